// The `tls` prop: spec.tls, the cert-manager objects of its cert-manager form, the client certificate of the backup
// and defrag CronJobs, the connection, and the synth-time errors (docs/design/tls.md).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { backupSave, defrag } from '../../../constructs/conventions/index.js';
import { EtcdCluster, type EtcdClusterProps, type EtcdTlsProps } from '../../../constructs/index.js';
import { clusterChart, type Manifest, matchSnapshot, only, synth } from './helpers.js';

function cluster(tls: EtcdTlsProps, namespace: string | null = 'db', props: Partial<EtcdClusterProps> = {}) {
  const chart = clusterChart(namespace);
  const construct = new EtcdCluster(chart, 'main', { version: '3.6.16', tls, ...props });
  return { chart, construct, objects: () => synth(chart) };
}

const certManager = (objects: Manifest[]) => objects.filter((o) => o.apiVersion === 'cert-manager.io/v1');
const names = (objects: Manifest[]) => objects.map((o) => `${o.kind}/${o.metadata.name}`);
const podSpec = (cronJob: Manifest) => cronJob.spec.jobTemplate.spec.template.spec;

const secrets: EtcdTlsProps = {
  client: { secretName: 'main-serving', clientSecretName: 'main-client-cert' },
  peer: { secretName: 'main-peer-cert' },
};

describe('EtcdCluster tls: your Secrets', () => {
  it('GIVEN Secrets for both sides WHEN synthesized THEN spec.tls names them and no cert-manager object is made', () => {
    const { construct, objects } = cluster(secrets);
    const all = objects();
    assert.deepEqual(only(all, 'EtcdCluster', 'main').spec.tls, {
      client: { secretName: 'main-serving', clientSecretName: 'main-client-cert' },
      peer: { secretName: 'main-peer-cert' },
    });
    assert.deepEqual(certManager(all), []);
    assert.deepEqual(construct.certManagerObjects, []);
    assert.deepEqual(construct.tls, only(all, 'EtcdCluster', 'main').spec.tls);
  });

  it('GIVEN only a peer side THEN spec.tls has only peer, and the client URL stays http', () => {
    const { construct, objects } = cluster({ peer: { secretName: 'main-peer-cert' } });
    assert.deepEqual(only(objects(), 'EtcdCluster', 'main').spec.tls, {
      peer: { secretName: 'main-peer-cert' },
    });
    assert.equal(construct.clientUrl, 'http://main-client.db.svc:2379');
    assert.equal(construct.connection.scheme, 'http');
  });

  it('GIVEN no tls THEN spec has no tls and the cluster has no tls attribute', () => {
    const chart = clusterChart('db');
    const construct = new EtcdCluster(chart, 'main', { version: '3.6.16' });
    assert.equal(only(synth(chart), 'EtcdCluster', 'main').spec.tls, undefined);
    assert.equal(construct.tls, undefined);
  });

  it('GIVEN Secrets and no namespace at synth time THEN spec.tls is rendered (only the cert-manager form needs it)', () => {
    const { objects } = cluster(secrets, null);
    assert.equal(only(objects(), 'EtcdCluster', 'main').spec.tls.client.secretName, 'main-serving');
  });
});

describe('EtcdCluster tls: cert-manager form', () => {
  it('GIVEN certManager: true on both sides WHEN synthesized THEN it matches the snapshot: one self-signed Issuer, a CA and CA Issuer per side, three leaf Certificates', () => {
    const { construct, objects } = cluster({ client: { certManager: true }, peer: { certManager: true } });
    const made = certManager(objects());
    matchSnapshot('constructs', 'etcd-cluster-tls-cert-manager', made);
    assert.deepEqual(names(made).sort(), [
      'Certificate/main-client-ca',
      'Certificate/main-client-tls',
      'Certificate/main-peer-ca',
      'Certificate/main-peer-tls',
      'Certificate/main-server-tls',
      'Issuer/main-client-ca',
      'Issuer/main-peer-ca',
      'Issuer/main-selfsigned',
    ]);
    assert.equal(construct.certManagerObjects.length, 8);
    assert.deepEqual(only(objects(), 'EtcdCluster', 'main').spec.tls, {
      client: { secretName: 'main-server-tls', clientSecretName: 'main-client-tls' },
      peer: { secretName: 'main-peer-tls' },
    });
  });

  it('GIVEN certManager: true THEN each CA is a 10-year ECDSA CA never re-keyed, signed by the self-signed Issuer, and backs a CA Issuer of its name', () => {
    const all = objects2({ client: { certManager: true }, peer: { certManager: true } });
    assert.deepEqual(only(all, 'Issuer', 'main-selfsigned').spec, { selfSigned: {} });
    for (const ca of ['main-client-ca', 'main-peer-ca']) {
      const certificate = only(all, 'Certificate', ca);
      assert.equal(certificate.metadata.namespace, 'db');
      assert.equal(certificate.spec.isCA, true);
      assert.equal(certificate.spec.duration, '87600h');
      assert.equal(certificate.spec.secretName, ca);
      assert.deepEqual(certificate.spec.privateKey, {
        algorithm: 'ECDSA',
        size: 256,
        rotationPolicy: 'Never',
      });
      assert.deepEqual(certificate.spec.issuerRef, {
        name: 'main-selfsigned',
        kind: 'Issuer',
        group: 'cert-manager.io',
      });
      assert.deepEqual(only(all, 'Issuer', ca).spec, { ca: { secretName: ca } });
    }
  });

  it('GIVEN certManager: true THEN the serving and client certificates come from the client CA, the peer certificate from the peer CA, with the usages, DNS names and loopback address of the design', () => {
    const all = objects2({ client: { certManager: true }, peer: { certManager: true } });
    const server = only(all, 'Certificate', 'main-server-tls').spec;
    assert.equal(server.secretName, 'main-server-tls');
    assert.equal(server.issuerRef.name, 'main-client-ca');
    assert.deepEqual(server.usages, ['digital signature', 'key encipherment', 'server auth', 'client auth']);
    assert.deepEqual(server.dnsNames, [
      '*.main-peer.db.svc',
      '*.main-peer.db.svc.cluster.local',
      'main-client',
      'main-client.db',
      'main-client.db.svc',
      'main-client.db.svc.cluster.local',
    ]);
    // The loopback every member also listens on: etcdctl in a member's container verifies it.
    assert.deepEqual(server.ipAddresses, ['127.0.0.1']);
    assert.equal(server.isCA, undefined);
    const client = only(all, 'Certificate', 'main-client-tls').spec;
    assert.equal(client.secretName, 'main-client-tls');
    assert.equal(client.issuerRef.name, 'main-client-ca');
    assert.deepEqual(client.usages, ['digital signature', 'key encipherment', 'client auth']);
    assert.equal(client.commonName, 'etcd-gitops');
    assert.equal(client.dnsNames, undefined);
    const peer = only(all, 'Certificate', 'main-peer-tls').spec;
    assert.equal(peer.secretName, 'main-peer-tls');
    assert.equal(peer.issuerRef.name, 'main-peer-ca');
    assert.deepEqual(peer.usages, ['digital signature', 'key encipherment', 'server auth', 'client auth']);
    assert.deepEqual(peer.dnsNames, [
      '*.main-peer.db.svc',
      '*.main-peer.db.svc.cluster.local',
      'main-peer.db.svc',
      'main-peer.db.svc.cluster.local',
    ]);
  });

  it('GIVEN a clusterDomain THEN the DNS names end in it', () => {
    const all = objects2({ client: { certManager: true }, clusterDomain: 'k8s.example.org' });
    assert.ok(
      only(all, 'Certificate', 'main-server-tls').spec.dnsNames.includes(
        'main-client.db.svc.k8s.example.org',
      ),
    );
  });

  it('GIVEN your ClusterIssuer on the client side and a self-signed peer side THEN only the peer CA is made and the client certificates name your issuer', () => {
    const all = objects2({
      client: { certManager: { issuer: { name: 'corp-ca', kind: 'ClusterIssuer' } } },
      peer: { certManager: true },
    });
    assert.deepEqual(names(certManager(all)).sort(), [
      'Certificate/main-client-tls',
      'Certificate/main-peer-ca',
      'Certificate/main-peer-tls',
      'Certificate/main-server-tls',
      'Issuer/main-peer-ca',
      'Issuer/main-selfsigned',
    ]);
    for (const name of ['main-server-tls', 'main-client-tls']) {
      assert.deepEqual(only(all, 'Certificate', name).spec.issuerRef, {
        name: 'corp-ca',
        kind: 'ClusterIssuer',
        group: 'cert-manager.io',
      });
    }
  });

  it('GIVEN your Issuer on both sides THEN only the three leaf Certificates are made, issued by it', () => {
    const issuer = { name: 'team-ca', kind: 'Issuer' } as const;
    const all = objects2({ client: { certManager: { issuer } }, peer: { certManager: { issuer } } });
    assert.deepEqual(names(certManager(all)).sort(), [
      'Certificate/main-client-tls',
      'Certificate/main-peer-tls',
      'Certificate/main-server-tls',
    ]);
    for (const c of certManager(all)) assert.equal(c.spec.issuerRef.name, 'team-ca');
  });

  it('GIVEN cert-manager on one side and Secrets on the other THEN spec.tls mixes the made and the given names', () => {
    const all = objects2({ client: { certManager: true }, peer: { secretName: 'my-peer' } });
    assert.deepEqual(only(all, 'EtcdCluster', 'main').spec.tls, {
      client: { secretName: 'main-server-tls', clientSecretName: 'main-client-tls' },
      peer: { secretName: 'my-peer' },
    });
    assert.ok(!names(all).includes('Certificate/main-peer-ca'));
  });

  it('GIVEN the cert-manager form THEN its objects carry the cluster labels, the cluster sync wave and skip the dry run while cert-manager CRDs are missing', () => {
    for (const o of certManager(objects2({ client: { certManager: true }, peer: { certManager: true } }))) {
      assert.equal(o.metadata.annotations['argocd.argoproj.io/sync-wave'], '0', o.metadata.name);
      assert.equal(
        o.metadata.annotations['argocd.argoproj.io/sync-options'],
        'SkipDryRunOnMissingResource=true',
        o.metadata.name,
      );
      assert.equal(o.metadata.labels['app.kubernetes.io/instance'], 'main', o.metadata.name);
    }
  });
});

describe('EtcdCluster.addClientCertificate', () => {
  it('GIVEN the cert-manager form WHEN an application asks for a client certificate THEN a client-auth Certificate from the client CA writes a Secret of its name, returned with the https connection', () => {
    const { construct, objects } = cluster({ client: { certManager: true } });
    const made = construct.addClientCertificate('api', { secretName: 'api-etcd-client' });
    const spec = only(objects(), 'Certificate', 'api-etcd-client').spec;
    // What the application mounts and where it connects: its own Secret, never the controller's.
    assert.equal(made.secretName, 'api-etcd-client');
    assert.equal(made.commonName, 'api-etcd-client');
    assert.equal(made.certificate.metadata.name, 'api-etcd-client');
    assert.equal(made.connection.url, 'https://main-client.db.svc:2379');
    assert.equal(made.connection, construct.connection);
    assert.equal(spec.secretName, 'api-etcd-client');
    assert.equal(spec.commonName, 'api-etcd-client');
    assert.deepEqual(spec.usages, ['digital signature', 'key encipherment', 'client auth']);
    assert.deepEqual(spec.issuerRef, { name: 'main-client-ca', kind: 'Issuer', group: 'cert-manager.io' });
  });

  it('GIVEN your issuer and a common name THEN the application certificate is issued by it with that name', () => {
    const { construct, objects } = cluster({
      client: { certManager: { issuer: { name: 'corp', kind: 'ClusterIssuer' } } },
    });
    construct.addClientCertificate('api', { secretName: 'api-etcd', commonName: 'api' });
    const spec = only(objects(), 'Certificate', 'api-etcd').spec;
    assert.equal(spec.commonName, 'api');
    assert.deepEqual(spec.issuerRef, { name: 'corp', kind: 'ClusterIssuer', group: 'cert-manager.io' });
  });

  it('fails when the client side is not the cert-manager form', () => {
    assert.throws(
      () => cluster(secrets).construct.addClientCertificate('api', { secretName: 'api-etcd' }),
      /^Error: EtcdCluster 'main': addClientCertificate\(\) needs tls.client.certManager .*, got tls.client with your Secrets;/,
    );
    assert.throws(
      () =>
        cluster({ peer: { certManager: true } }).construct.addClientCertificate('api', { secretName: 'a' }),
      /got no tls.client;/,
    );
  });

  it('fails when the Secret name is one the cluster uses, or the common name is too long', () => {
    const { construct } = cluster({ client: { certManager: true } });
    assert.throws(
      () => construct.addClientCertificate('api', { secretName: 'main-client-tls' }),
      /^Error: 'secretName' must not be a name the cluster's TLS objects use \(.*\), got 'main-client-tls'$/,
    );
    assert.throws(
      () => construct.addClientCertificate('api', { secretName: 'api', commonName: 'x'.repeat(65) }),
      /^Error: 'commonName' must be 1 to 64 characters \(X.509\), got 'x+'$/,
    );
  });
});

function objects2(tls: EtcdTlsProps): Manifest[] {
  return cluster(tls).objects();
}

describe('EtcdCluster tls: backup and defrag CronJobs and the connection', () => {
  it('GIVEN tls.client THEN the backup CronJob mounts the client certificate Secret read-only, whole, 0440, and backup save gets https and the three files', () => {
    const { construct, objects } = cluster(secrets);
    construct.addBackupSchedule({ schedule: '@daily', bucket: 'etcd-backups', credentialsSecretName: 's3' });
    const spec = podSpec(only(objects(), 'CronJob', 'main-backup'));
    assert.deepEqual(spec.volumes[1], {
      name: 'client-tls',
      secret: { secretName: 'main-client-cert', defaultMode: 0o440 },
    });
    const [container] = spec.containers;
    assert.deepEqual(container.volumeMounts[1], {
      name: 'client-tls',
      mountPath: '/etc/etcd-gitops/tls',
      readOnly: true,
    });
    // Whole directory (no subPath: renewals reach the volume). The files are read through the Pod's group (fsGroup), which the kubelet gives Secret volumes.
    assert.equal(spec.securityContext.fsGroup, 65532);
    assert.equal(spec.securityContext.runAsGroup, 65532);
    const args = backupSave.decode(container.args.slice(2));
    assert.deepEqual(args.endpoints, ['https://main-client.db.svc:2379']);
    assert.equal(args.cacert, '/etc/etcd-gitops/tls/ca.crt');
    assert.equal(args.cert, '/etc/etcd-gitops/tls/tls.crt');
    assert.equal(args.key, '/etc/etcd-gitops/tls/tls.key');
  });

  it('GIVEN tls.client THEN the defrag CronJob mounts the client certificate Secret and defrag gets https and the three files', () => {
    const { construct, objects } = cluster({ client: { certManager: true } });
    construct.addDefragSchedule();
    const spec = podSpec(only(objects(), 'CronJob', 'main-defrag'));
    assert.deepEqual(spec.volumes[1], {
      name: 'client-tls',
      secret: { secretName: 'main-client-tls', defaultMode: 0o440 },
    });
    assert.deepEqual(spec.containers[0].volumeMounts[1], {
      name: 'client-tls',
      mountPath: '/etc/etcd-gitops/tls',
      readOnly: true,
    });
    const args = defrag.decode(spec.containers[0].args.slice(1));
    assert.deepEqual(args.endpoints, ['https://main-client.db.svc:2379']);
    assert.deepEqual(
      [args.cacert, args.cert, args.key],
      ['/etc/etcd-gitops/tls/ca.crt', '/etc/etcd-gitops/tls/tls.crt', '/etc/etcd-gitops/tls/tls.key'],
    );
  });

  it('GIVEN only tls.peer THEN the CronJobs talk http and mount nothing more', () => {
    const { construct, objects } = cluster({ peer: { secretName: 'main-peer-cert' } });
    construct.addBackupSchedule({ schedule: '@daily', bucket: 'etcd-backups', credentialsSecretName: 's3' });
    construct.addDefragSchedule();
    for (const name of ['main-backup', 'main-defrag']) {
      const spec = podSpec(only(objects(), 'CronJob', name));
      assert.deepEqual(
        spec.volumes.map((v: Manifest) => v.name),
        ['tmp'],
        name,
      );
      assert.ok(
        spec.containers[0].args.some((a: string) => a.startsWith('--endpoints=http://')),
        name,
      );
      assert.ok(!spec.containers[0].args.some((a: string) => a.startsWith('--cacert')), name);
    }
  });

  it('GIVEN tls.client without a namespace at synth time THEN the endpoint is https in the Pod namespace', () => {
    const { construct, objects } = cluster(secrets, null);
    construct.addDefragSchedule();
    const args = podSpec(only(objects(), 'CronJob', 'main-defrag')).containers[0].args as string[];
    assert.ok(args.includes('--endpoints=https://main-client.$(POD_NAMESPACE).svc:2379'));
  });

  it("GIVEN tls.client WHEN the connection is read THEN it is https and names no Secret (the controller's client certificate is not handed out)", () => {
    const { construct } = cluster(secrets);
    assert.deepEqual(construct.connection, {
      url: 'https://main-client.db.svc:2379',
      serviceName: 'main-client',
      namespace: 'db',
      port: 2379,
      scheme: 'https',
    });
    assert.equal(construct.clientUrl, 'https://main-client.db.svc:2379');
  });
});

describe('EtcdCluster tls: synth-time errors', () => {
  const fails = (tls: unknown, message: RegExp, namespace: string | null = 'db') =>
    assert.throws(() => cluster(tls as EtcdTlsProps, namespace), message);

  it('fails when one side has both a Secret and certManager', () => {
    fails(
      { client: { secretName: 'a', clientSecretName: 'b', certManager: true } },
      /^Error: 'tls.client' takes either secretName and clientSecretName \(your Secrets\) or certManager \(Certificates made here\), got both secretName, clientSecretName and certManager$/,
    );
    fails(
      { peer: { secretName: 'a', certManager: true } },
      /^Error: 'tls.peer' takes either secretName \(your Secrets\) or certManager .*, got both secretName and certManager$/,
    );
  });

  it('fails when a side has neither Secrets nor certManager', () => {
    fails(
      { client: {} },
      /^Error: 'tls.client' needs secretName and clientSecretName .* or certManager .*, got \{\}$/,
    );
  });

  it('fails when the client side has a serving Secret but no client certificate Secret', () => {
    fails(
      { client: { secretName: 'main-serving' } },
      /^Error: 'tls.client.clientSecretName' is required with 'tls.client.secretName' \(or use certManager\), got undefined$/,
    );
  });

  it('fails when a Secret name is no Kubernetes object name', () => {
    fails(
      { client: { secretName: 'Main_Serving', clientSecretName: 'c' } },
      /^Error: 'tls.client.secretName' must be a Kubernetes object name .*, got 'Main_Serving'$/,
    );
    fails(
      { peer: { secretName: 'peer/x' } },
      /^Error: 'tls.peer.secretName' must be a Kubernetes object name/,
    );
  });

  it('fails when the peer side names a client certificate Secret', () => {
    fails(
      { peer: { secretName: 'p', clientSecretName: 'c' } },
      /^Error: 'tls.peer.clientSecretName' is not a peer setting .*, got 'c'$/,
    );
  });

  it('fails when the cert-manager form has no namespace at synth time', () => {
    fails(
      { client: { certManager: true } },
      /^Error: 'tls.client.certManager' needs the cluster's namespace at synth time \(the certificates' DNS names contain it\): set 'namespace' or use a chart with one, got none$/,
      null,
    );
    fails(
      { peer: { certManager: true } },
      /^Error: 'tls.peer.certManager' needs the cluster's namespace/,
      null,
    );
  });

  it('fails when certManager is neither true nor an issuer, or the issuer kind or name is wrong', () => {
    fails(
      { client: { certManager: false } },
      /^Error: 'tls.client.certManager' must be true \(a CA made here\) or \{ issuer: \{ name, kind: 'Issuer' \| 'ClusterIssuer' \} \}, got false$/,
    );
    fails(
      { peer: { certManager: { issuer: { name: 'ca', kind: 'CA' } } } },
      /^Error: 'tls.peer.certManager.issuer.kind' must be 'Issuer' or 'ClusterIssuer', got 'CA'$/,
    );
    fails(
      { peer: { certManager: { issuer: { name: 'Bad Name', kind: 'Issuer' } } } },
      /^Error: 'tls.peer.certManager.issuer.name' must be a Kubernetes object name .*, got 'Bad Name'$/,
    );
  });

  it('fails when your Secret on one side is a Secret the cert-manager form of the other side writes', () => {
    fails(
      { client: { certManager: true }, peer: { secretName: 'main-server-tls' } },
      /^Error: 'tls.peer.secretName' must not be 'main-server-tls': the cert-manager form of tls.client writes that Secret; name your Secret otherwise$/,
    );
    fails(
      { client: { secretName: 'main-peer-ca', clientSecretName: 'c' }, peer: { certManager: true } },
      /^Error: 'tls.client.secretName' must not be 'main-peer-ca': the cert-manager form of tls.peer writes that Secret/,
    );
  });

  it('fails when the cluster domain is no DNS domain, or is given with nothing for cert-manager to issue', () => {
    fails(
      { client: { certManager: true }, clusterDomain: 'Cluster.Local.' },
      /^Error: 'tls.clusterDomain' must be a DNS domain .*, got 'Cluster.Local.'$/,
    );
    fails(
      { peer: { secretName: 'p' }, clusterDomain: 'example.org' },
      /^Error: 'tls.clusterDomain' only goes into the DNS names of certificates made with certManager, got 'example.org' with Secrets on every side$/,
    );
    fails(
      { clusterDomain: 'example.org' },
      /^Error: 'tls.clusterDomain' only goes into .*, got 'example.org' without tls.client or tls.peer$/,
    );
  });
});
