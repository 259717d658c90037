// A cluster and its operator know each other: the NetworkPolicy and the Secret RoleBinding name where the operator
// really runs, and what cannot be decided (no operator, two, disagreeing props) or would collide fails at synth.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { App, Chart } from 'cdk8s';
import { DEFAULT_OPERATOR_IMAGE } from '../../../constructs/conventions/index.js';
import { EtcdCluster, type EtcdClusterProps, EtcdCrds, EtcdOperator } from '../../../constructs/index.js';
import { type Manifest, only, synth, testChart } from './helpers.js';

function operatorChart(app: App, id = 'operator'): Chart {
  return new Chart(app, id);
}

/** The operator namespace and ServiceAccount a cluster's objects grant access to. */
function grantedTo(objects: Manifest[]): { policy: string; subject: Manifest } {
  const policy = only(objects, 'NetworkPolicy', 'main');
  const binding = only(objects, 'RoleBinding', 'main-etcd-gitops-controller');
  return {
    policy: policy.spec.ingress[1].from[0].namespaceSelector.matchLabels['kubernetes.io/metadata.name'],
    subject: binding.subjects[0],
  };
}

const cluster = (chart: Chart, props: Partial<EtcdClusterProps> = {}, id = 'main') =>
  new EtcdCluster(chart, id, { version: '3.6.16', ...props });

describe('EtcdCluster and EtcdOperator', () => {
  it('GIVEN an operator in etcd-system added after the cluster WHEN synthesized THEN the NetworkPolicy and RoleBinding name etcd-system', () => {
    // GIVEN
    const chart = testChart('payments');
    const main = cluster(chart);
    new EtcdOperator(operatorChart(App.of(chart)), 'operator', { namespace: 'etcd-system' });
    // WHEN
    const granted = grantedTo(synth(chart));
    // THEN
    assert.equal(granted.policy, 'etcd-system');
    assert.deepEqual(granted.subject, {
      kind: 'ServiceAccount',
      name: 'etcd-gitops-controller',
      namespace: 'etcd-system',
    });
    assert.deepEqual(main.operatorIdentity, {
      namespace: 'etcd-system',
      serviceAccountName: 'etcd-gitops-controller',
      image: DEFAULT_OPERATOR_IMAGE,
    });
  });

  it('GIVEN the operator passed as a prop THEN the cluster uses it', () => {
    const chart = testChart('payments');
    const operator = new EtcdOperator(operatorChart(App.of(chart)), 'operator', { namespace: 'ops' });
    cluster(chart, { operator });
    assert.equal(grantedTo(synth(chart)).policy, 'ops');
  });

  it('GIVEN no operator in the app and an explicit operatorNamespace and ServiceAccount THEN the cluster grants them', () => {
    const chart = testChart('payments');
    cluster(chart, { operatorNamespace: 'platform', operatorServiceAccount: 'etcd-controller' });
    const granted = grantedTo(synth(chart));
    assert.equal(granted.policy, 'platform');
    assert.deepEqual(granted.subject, {
      kind: 'ServiceAccount',
      name: 'etcd-controller',
      namespace: 'platform',
    });
  });

  it('GIVEN an operator in the app and the same operatorNamespace THEN they agree and synth passes', () => {
    const chart = testChart('payments');
    new EtcdOperator(operatorChart(App.of(chart)), 'operator', { namespace: 'ops' });
    cluster(chart, { operatorNamespace: 'ops' });
    assert.equal(grantedTo(synth(chart)).policy, 'ops');
  });

  it('fails when the app has no operator and neither operator nor operatorNamespace is set, saying what to do', () => {
    const chart = testChart('payments');
    cluster(chart);
    assert.throws(
      () => synth(chart),
      /\[test\/main\] no operator: this app has no EtcdOperator, and 'operator' and 'operatorNamespace' are unset; add an EtcdOperator to this app .* set 'operatorNamespace'/,
    );
  });

  it('fails when operatorServiceAccount comes without operatorNamespace and the app has no operator', () => {
    const chart = testChart('payments');
    cluster(chart, { operatorServiceAccount: 'etcd-controller' });
    assert.throws(
      () => synth(chart),
      /\[test\/main\] 'operatorServiceAccount' is 'etcd-controller' but 'operatorNamespace' is unset and this app has no EtcdOperator; add an EtcdOperator/,
    );
  });

  it('fails when operatorNamespace disagrees with the operator of the app, naming both', () => {
    const chart = testChart('payments');
    new EtcdOperator(operatorChart(App.of(chart)), 'operator', { namespace: 'etcd-system' });
    cluster(chart, { operatorNamespace: 'etcd-gitops-system' });
    assert.throws(
      () => synth(chart),
      /\[test\/main\] 'operatorNamespace' is 'etcd-gitops-system', but EtcdOperator 'operator\/operator' \(namespace 'etcd-system', ServiceAccount 'etcd-gitops-controller'\) runs in 'etcd-system'/,
    );
  });

  it('fails when operatorServiceAccount disagrees with the operator of the app, naming both', () => {
    const chart = testChart('payments');
    new EtcdOperator(operatorChart(App.of(chart)), 'operator');
    cluster(chart, { operatorServiceAccount: 'other' });
    assert.throws(
      () => synth(chart),
      /'operatorServiceAccount' is 'other', but EtcdOperator 'operator\/operator' .* runs as 'etcd-gitops-controller'/,
    );
  });

  it('fails when the operator prop is another app’s operator while this app has its own, naming both', () => {
    const chart = testChart('payments');
    new EtcdOperator(operatorChart(App.of(chart)), 'operator');
    const elsewhere = new EtcdOperator(operatorChart(new App({ outdir: 'unused' }), 'other'), 'operator');
    cluster(chart, { operator: elsewhere });
    assert.throws(
      () => synth(chart),
      /'operator' is EtcdOperator 'other\/operator' .* but this app also has EtcdOperator 'operator\/operator'/,
    );
  });

  it('fails when an app holds two operators, naming both', () => {
    const chart = testChart('payments');
    const app = App.of(chart);
    new EtcdOperator(operatorChart(app, 'a'), 'operator', { crds: false });
    new EtcdOperator(operatorChart(app, 'b'), 'operator', { namespace: 'other', crds: false });
    cluster(chart);
    assert.throws(
      () => synth(chart),
      (error: Error) => {
        assert.match(
          error.message,
          /\[b\/operator\] EtcdOperator 'b\/operator' is a second operator in this app, besides 'a\/operator'/,
        );
        assert.match(
          error.message,
          /\[test\/main\] this app has two operators, EtcdOperator 'a\/operator' .* and EtcdOperator 'b\/operator' .*: pass 'operator'/,
        );
        return true;
      },
    );
  });

  it('fails when two clusters have the same name in one namespace, naming both', () => {
    const chart = testChart('payments');
    new EtcdOperator(operatorChart(App.of(chart)), 'operator');
    cluster(chart, {}, 'main');
    cluster(new Chart(App.of(chart), 'more', { namespace: 'payments' }), { name: 'main' }, 'again');
    assert.throws(
      () => synth(chart),
      /\[more\/again\] 'name' is 'main' in namespace 'payments', the same as EtcdCluster 'test\/main': their objects would overwrite each other/,
    );
  });

  it('GIVEN two clusters with the same name in different namespaces THEN both synthesize', () => {
    const chart = testChart('payments');
    new EtcdOperator(operatorChart(App.of(chart)), 'operator');
    cluster(chart);
    cluster(chart, { name: 'main', namespace: 'orders' }, 'orders-main');
    const objects = synth(chart);
    assert.deepEqual(
      objects
        .filter((o) => o.kind === 'EtcdCluster')
        .map((o) => `${o.metadata.namespace}/${o.metadata.name}`),
      ['payments/main', 'orders/main'],
    );
  });

  it('fails when the CRDs are emitted twice (by the operator and by EtcdCrds), naming both', () => {
    const app = new App({ outdir: 'unused' });
    new EtcdOperator(operatorChart(app), 'operator');
    const crds = new Chart(app, 'crds');
    new EtcdCrds(crds, 'crds');
    assert.throws(
      () => synth(crds),
      /\[crds\/crds\] EtcdCrds 'crds\/crds' emits the CRDs a second time \(they are also in 'operator\/operator\/Crds'\)/,
    );
  });

  it('fails when operatorNamespace or operatorServiceAccount is not a Kubernetes name', () => {
    assert.throws(
      () => cluster(testChart('payments'), { operatorNamespace: 'Etcd_System' }),
      /^Error: 'operatorNamespace' must be at most 63 characters .* got 'Etcd_System'$/,
    );
    assert.throws(
      () => cluster(testChart('payments'), { operatorNamespace: 'ops', operatorServiceAccount: 'Bad Name' }),
      /^Error: 'operatorServiceAccount' must be a Kubernetes object name .* got 'Bad Name'$/,
    );
  });
});

describe("the operator's image in the cluster's Jobs", () => {
  const jobImage = (objects: Manifest[], cronJob: string) =>
    only(objects, 'CronJob', cronJob).spec.jobTemplate.spec.template.spec.containers[0].image;
  const backup = { schedule: '0 * * * *', bucket: 'etcd-backups', credentialsSecretName: 's3' };

  it("GIVEN an operator with a mirrored image, added after the schedules THEN the backup and defrag Jobs run that image, and a schedule's own image wins", () => {
    const chart = testChart('payments');
    const main = cluster(chart);
    main.addBackupSchedule(backup);
    main.addBackupSchedule({ ...backup, name: 'pinned', image: 'mirror.local/etcd-gitops:pinned' });
    main.addDefragSchedule();
    new EtcdOperator(operatorChart(App.of(chart)), 'operator', { image: 'mirror.local/etcd-gitops:1.2.3' });
    const objects = synth(chart);
    assert.equal(jobImage(objects, 'main-backup'), 'mirror.local/etcd-gitops:1.2.3');
    assert.equal(jobImage(objects, 'main-defrag'), 'mirror.local/etcd-gitops:1.2.3');
    assert.equal(jobImage(objects, 'main-backup-pinned'), 'mirror.local/etcd-gitops:pinned');
  });

  it('GIVEN an operator synthesized elsewhere (operatorNamespace) THEN the Jobs run the default image', () => {
    const chart = testChart('payments');
    cluster(chart, { operatorNamespace: 'etcd-system' }).addBackupSchedule(backup);
    assert.equal(jobImage(synth(chart), 'main-backup'), DEFAULT_OPERATOR_IMAGE);
  });
});
