import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  backupCronJobName,
  clientServiceURL,
  clientURL,
  controllerSecretsRoleName,
  initialCluster,
  memberFromPeerURL,
  memberIndex,
  memberName,
  memberOfPvc,
  memberSelectorString,
  peerURL,
  pvcName,
} from '../../../constructs/conventions/index.js';

describe('derived names and URLs', () => {
  it('GIVEN cluster main in db WHEN names are derived THEN they are the documented ones', () => {
    assert.equal(memberName('main', 2), 'main-2');
    assert.equal(pvcName('main-2'), 'main-2-data');
    assert.equal(backupCronJobName('main'), 'main-backup');
    assert.equal(backupCronJobName('main', 'daily'), 'main-backup-daily');
    assert.equal(controllerSecretsRoleName('main'), 'main-etcd-gitops-controller');
    assert.equal(peerURL('main', 'db', 'main-2', 'http'), 'http://main-2.main-peer.db.svc:2380');
    assert.equal(clientURL('main', 'db', 'main-2', 'http'), 'http://main-2.main-peer.db.svc:2379');
    assert.equal(clientServiceURL('main', 'db'), 'http://main-client.db.svc:2379');
    assert.equal(clientServiceURL('main'), 'http://main-client:2379');
    assert.equal(
      initialCluster('main', 'db', ['main-0', 'main-1'], 'http'),
      'main-0=http://main-0.main-peer.db.svc:2380,main-1=http://main-1.main-peer.db.svc:2380',
    );
    assert.equal(
      memberSelectorString('main'),
      'app.kubernetes.io/name=etcd,app.kubernetes.io/instance=main,app.kubernetes.io/component=member',
    );
  });

  it('GIVEN derived names WHEN read back THEN the member and its index come out', () => {
    assert.equal(memberIndex('main', 'main-12'), 12);
    assert.equal(memberOfPvc('main-12-data'), 'main-12');
    assert.equal(memberFromPeerURL('main', 'db', peerURL('main', 'db', 'main-3', 'http')), 'main-3');
  });

  it('fails when a name or URL is not one of ours', () => {
    assert.equal(memberIndex('main', 'main-01'), undefined);
    assert.equal(memberIndex('main', 'other-1'), undefined);
    assert.equal(memberOfPvc('main-1'), undefined);
    assert.equal(memberFromPeerURL('main', 'db', peerURL('other', 'db', 'other-0', 'http')), undefined);
    assert.equal(memberFromPeerURL('main', 'db', peerURL('main', 'prod', 'main-0', 'http')), undefined);
  });
});
