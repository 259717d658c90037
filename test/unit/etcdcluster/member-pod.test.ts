// The member Pod and PVC: the flags of the member's moment and the fields Pod Security and Argo CD rely on.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1Pod } from '@kubernetes/client-node';
import type { EtcdCluster } from '../../../controller/etcdcluster/api.js';
import { buildMemberPod, buildMemberPvc } from '../../../controller/etcdcluster/member-pod.js';
import { podRevision } from '../../../controller/etcdcluster/revision.js';
import { toPvcView } from '../../../controller/etcdcluster/views.js';

function etcdCluster(spec: Partial<EtcdCluster['spec']> = {}): EtcdCluster {
  return {
    apiVersion: 'etcd.gitops.dev/v1alpha1',
    kind: 'EtcdCluster',
    metadata: { name: 'demo', namespace: 'ns', uid: 'uid-1', generation: 1 },
    spec: { size: 3, version: '3.6.16', ...spec },
  };
}

const url = (member: string, port: number) => `http://${member}.demo-peer.ns.svc:${port}`;

/** The `ETCD_INITIAL_*` variables etcd gets, resolved from the Pod's annotations as the kubelet does. */
function initialEnv(pod: V1Pod): Record<string, string | undefined> {
  const env = pod.spec?.containers[0]?.env ?? [];
  return Object.fromEntries(
    env
      .filter((variable) => variable.name.startsWith('ETCD_INITIAL_'))
      .map((variable) => {
        const path = variable.valueFrom?.fieldRef?.fieldPath ?? '';
        const key = /^metadata\.annotations\['(.+)'\]$/.exec(path)?.[1];
        assert.ok(key, `${variable.name} comes from an annotation, not ${path}`);
        return [variable.name, pod.metadata?.annotations?.[key]];
      }),
  );
}

describe('buildMemberPod', () => {
  it('GIVEN the seed moment THEN flags and annotation-fed environment start a new cluster with its token', () => {
    // WHEN
    const pod = buildMemberPod(etcdCluster(), {
      member: 'demo-0',
      state: 'new',
      initialCluster: ['demo-0'],
      token: 't-1',
    });
    // THEN
    const container = pod.spec?.containers[0];
    assert.deepEqual(container?.command, ['/usr/local/bin/etcd']);
    assert.deepEqual(container?.args, [
      '--name=demo-0',
      '--data-dir=/var/lib/etcd/data',
      '--listen-peer-urls=http://$(POD_IP):2380',
      '--listen-client-urls=http://$(POD_IP):2379,http://127.0.0.1:2379',
      '--listen-metrics-urls=http://$(POD_IP):2381',
      `--advertise-client-urls=${url('demo-0', 2379)}`,
      `--initial-advertise-peer-urls=${url('demo-0', 2380)}`,
      '--initial-cluster-token=t-1',
      // Defaults for the default 1Gi volume: 1h of history, (1Gi - 256Mi) / 2 = 384Mi quota.
      '--auto-compaction-mode=periodic',
      '--auto-compaction-retention=1h0m0s',
      `--quota-backend-bytes=${384 * 2 ** 20}`,
    ]);
    assert.deepEqual(initialEnv(pod), {
      ETCD_INITIAL_CLUSTER: `demo-0=${url('demo-0', 2380)}`,
      ETCD_INITIAL_CLUSTER_STATE: 'new',
    });
    assert.equal(pod.metadata?.annotations?.['etcd.gitops.dev/cluster-token'], 't-1');
  });

  it('GIVEN compaction, a quota and extra flags in the spec THEN members get them, extra flags last and by name', () => {
    const cluster = etcdCluster();
    cluster.spec.autoCompaction = { mode: 'periodic', retention: '1d12h' };
    cluster.spec.storage = { size: '10Gi' };
    cluster.spec.quotaBackendBytes = '2Gi';
    cluster.spec.extraFlags = { 'snapshot-count': '50000', 'heartbeat-interval': '200' };
    const args = buildMemberPod(cluster, { member: 'demo-0', state: 'new', initialCluster: ['demo-0'] }).spec
      ?.containers[0]?.args;
    assert.deepEqual(args?.slice(-5), [
      '--auto-compaction-mode=periodic',
      '--auto-compaction-retention=36h0m0s',
      `--quota-backend-bytes=${2 * 2 ** 30}`,
      '--heartbeat-interval=200',
      '--snapshot-count=50000',
    ]);
  });

  it("GIVEN revision compaction and ephemeral storage THEN the retention is a count and the quota is etcd's own", () => {
    const cluster = etcdCluster();
    cluster.spec.autoCompaction = { mode: 'revision', retention: '10000' };
    cluster.spec.storage = { ephemeral: true };
    const args = buildMemberPod(cluster, { member: 'demo-0', state: 'new', initialCluster: ['demo-0'] }).spec
      ?.containers[0]?.args;
    assert.deepEqual(args?.slice(-2), [
      '--auto-compaction-mode=revision',
      '--auto-compaction-retention=10000',
    ]);
  });

  it('GIVEN a joiner THEN it lists the members of that moment, says existing and carries no token', () => {
    const pod = buildMemberPod(etcdCluster(), {
      member: 'demo-2',
      state: 'existing',
      initialCluster: ['demo-0', 'demo-1', 'demo-2'],
    });
    const args = pod.spec?.containers[0]?.args ?? [];
    assert.deepEqual(initialEnv(pod), {
      ETCD_INITIAL_CLUSTER: `demo-0=${url('demo-0', 2380)},demo-1=${url('demo-1', 2380)},demo-2=${url('demo-2', 2380)}`,
      ETCD_INITIAL_CLUSTER_STATE: 'existing',
    });
    assert.equal(
      args.some((arg) => arg.startsWith('--initial-cluster')),
      false,
      'no --initial-cluster* flag: etcd refuses a flag shadowing its environment variable',
    );
    assert.equal(pod.metadata?.annotations?.['etcd.gitops.dev/cluster-token'], undefined);
  });

  it('GIVEN any member THEN the Pod is named, labelled, addressed and owned per the conventions', () => {
    const pod = buildMemberPod(etcdCluster(), {
      member: 'demo-1',
      state: 'existing',
      initialCluster: ['demo-0', 'demo-1'],
    });
    assert.equal(pod.metadata?.name, 'demo-1');
    assert.equal(pod.spec?.hostname, 'demo-1');
    assert.equal(pod.spec?.subdomain, 'demo-peer');
    assert.deepEqual(pod.metadata?.labels, {
      'app.kubernetes.io/name': 'etcd',
      'app.kubernetes.io/instance': 'demo',
      'app.kubernetes.io/component': 'member',
      'app.kubernetes.io/managed-by': 'etcd-gitops',
      'etcd.gitops.dev/member': 'demo-1',
    });
    assert.deepEqual(pod.metadata?.ownerReferences, [
      {
        apiVersion: 'etcd.gitops.dev/v1alpha1',
        kind: 'EtcdCluster',
        name: 'demo',
        uid: 'uid-1',
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    const annotation = (key: string) => ({
      fieldRef: { fieldPath: `metadata.annotations['etcd.gitops.dev/${key}']` },
    });
    assert.deepEqual(pod.spec?.containers[0]?.env, [
      { name: 'POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
      { name: 'ETCD_INITIAL_CLUSTER', valueFrom: annotation('initial-cluster') },
      { name: 'ETCD_INITIAL_CLUSTER_STATE', valueFrom: annotation('initial-cluster-state') },
    ]);
    assert.deepEqual(pod.spec?.volumes, [
      { name: 'data', persistentVolumeClaim: { claimName: 'demo-1-data' } },
    ]);
    assert.equal(pod.spec?.containers[0]?.image, 'gcr.io/etcd-development/etcd:v3.6.16');
  });

  it('GIVEN spec.tls client and peer THEN etcd listens and advertises https, demands client certificates on both ports, names the peer Service as the allowed peer, mounts each Secret read-only as a whole directory, and probes the plain-http metrics port', () => {
    const pod = buildMemberPod(
      etcdCluster({
        tls: {
          client: { secretName: 'demo-server-tls', clientSecretName: 'demo-client-tls' },
          peer: { secretName: 'demo-peer-tls' },
        },
      }),
      { member: 'demo-1', state: 'existing', initialCluster: ['demo-0', 'demo-1'] },
    );
    const container = pod.spec?.containers[0];
    const args = container?.args ?? [];
    for (const flag of [
      '--listen-peer-urls=https://$(POD_IP):2380',
      '--listen-client-urls=https://$(POD_IP):2379,https://127.0.0.1:2379',
      '--listen-metrics-urls=http://$(POD_IP):2381',
      '--advertise-client-urls=https://demo-1.demo-peer.ns.svc:2379',
      '--initial-advertise-peer-urls=https://demo-1.demo-peer.ns.svc:2380',
      '--cert-file=/etc/etcd/tls/client/tls.crt',
      '--key-file=/etc/etcd/tls/client/tls.key',
      '--trusted-ca-file=/etc/etcd/tls/client/ca.crt',
      '--client-cert-auth',
      '--peer-cert-file=/etc/etcd/tls/peer/tls.crt',
      '--peer-key-file=/etc/etcd/tls/peer/tls.key',
      '--peer-trusted-ca-file=/etc/etcd/tls/peer/ca.crt',
      '--peer-client-cert-auth',
      '--peer-cert-allowed-hostname=demo-peer.ns.svc',
    ])
      assert.ok(args.includes(flag), `${flag} in ${args.join(' ')}`);
    assert.equal(
      initialEnv(pod).ETCD_INITIAL_CLUSTER,
      'demo-0=https://demo-0.demo-peer.ns.svc:2380,demo-1=https://demo-1.demo-peer.ns.svc:2380',
    );
    assert.deepEqual(pod.spec?.volumes?.slice(1), [
      { name: 'tls-client', secret: { secretName: 'demo-server-tls', defaultMode: 0o440 } },
      { name: 'tls-peer', secret: { secretName: 'demo-peer-tls', defaultMode: 0o440 } },
    ]);
    assert.deepEqual(container?.volumeMounts?.slice(1), [
      { name: 'tls-client', mountPath: '/etc/etcd/tls/client', readOnly: true },
      { name: 'tls-peer', mountPath: '/etc/etcd/tls/peer', readOnly: true },
    ]);
    assert.deepEqual(container?.readinessProbe?.httpGet, { path: '/readyz', port: 2381, scheme: 'HTTP' });
    assert.deepEqual(container?.livenessProbe?.httpGet, { path: '/livez', port: 2381, scheme: 'HTTP' });
  });

  it('GIVEN no spec.tls THEN no certificate flag or Secret volume, and http everywhere', () => {
    const pod = buildMemberPod(etcdCluster(), { member: 'demo-0', state: 'new', initialCluster: ['demo-0'] });
    const args = pod.spec?.containers[0]?.args ?? [];
    assert.ok(!args.some((arg) => /cert|key-file|https/.test(arg)), args.join(' '));
    assert.deepEqual(
      pod.spec?.volumes?.map((volume) => volume.name),
      ['data'],
    );
  });

  it('GIVEN any member THEN it satisfies Pod Security restricted', () => {
    const pod = buildMemberPod(etcdCluster(), { member: 'demo-0', state: 'new', initialCluster: ['demo-0'] });
    assert.equal(pod.spec?.securityContext?.runAsNonRoot, true);
    assert.equal(pod.spec?.securityContext?.seccompProfile?.type, 'RuntimeDefault');
    const container = pod.spec?.containers[0]?.securityContext;
    assert.equal(container?.allowPrivilegeEscalation, false);
    assert.deepEqual(container?.capabilities?.drop, ['ALL']);
    assert.equal(container?.runAsNonRoot, true);
  });

  for (const [version, readiness, liveness] of [
    ['3.4.23', '/health?exclude=NOSPACE', 'tcp'],
    ['3.5.35', '/health?exclude=NOSPACE', 'tcp'],
    ['3.6.16', '/readyz', '/livez'],
  ] as const) {
    it(`GIVEN etcd ${version} THEN readiness uses ${readiness} and liveness ${liveness} with a budget beyond an election`, () => {
      const pod = buildMemberPod(etcdCluster({ version }), {
        member: 'demo-0',
        state: 'new',
        initialCluster: ['demo-0'],
      });
      const container = pod.spec?.containers[0];
      assert.equal(container?.readinessProbe?.httpGet?.path, readiness);
      if (liveness === 'tcp') assert.equal(container?.livenessProbe?.tcpSocket?.port, 2379);
      else assert.equal(container?.livenessProbe?.httpGet?.path, liveness);
      const budget =
        (container?.livenessProbe?.failureThreshold ?? 0) * (container?.livenessProbe?.periodSeconds ?? 0);
      assert.ok(budget >= 60, `liveness budget ${budget} s`);
    });
  }

  it('GIVEN no affinity in podTemplate THEN members prefer distinct nodes', () => {
    const pod = buildMemberPod(etcdCluster(), { member: 'demo-0', state: 'new', initialCluster: ['demo-0'] });
    const term = pod.spec?.affinity?.podAntiAffinity?.preferredDuringSchedulingIgnoredDuringExecution?.[0];
    assert.equal(term?.podAffinityTerm.topologyKey, 'kubernetes.io/hostname');
    assert.equal(term?.podAffinityTerm.labelSelector?.matchLabels?.['app.kubernetes.io/instance'], 'demo');
  });

  it('GIVEN a podTemplate THEN its labels, annotations and scheduling fields are merged, ours win on conflict, the default anti-affinity stays', () => {
    const pod = buildMemberPod(
      etcdCluster({
        podTemplate: {
          labels: { team: 'a', 'app.kubernetes.io/instance': 'spoof' },
          annotations: { note: 'x' },
          nodeSelector: { disk: 'ssd' },
          priorityClassName: 'high',
          affinity: { nodeAffinity: {} },
        },
      }),
      { member: 'demo-0', state: 'new', initialCluster: ['demo-0'] },
    );
    assert.equal(pod.metadata?.labels?.team, 'a');
    assert.equal(pod.metadata?.labels?.['app.kubernetes.io/instance'], 'demo');
    assert.equal(pod.metadata?.annotations?.note, 'x');
    assert.deepEqual(pod.spec?.nodeSelector, { disk: 'ssd' });
    assert.equal(pod.spec?.priorityClassName, 'high');
    // the user's affinity is kept and the default anti-affinity added to it, not replaced by it
    assert.deepEqual(pod.spec?.affinity?.nodeAffinity, {});
    assert.equal(
      pod.spec?.affinity?.podAntiAffinity?.preferredDuringSchedulingIgnoredDuringExecution?.[0]
        ?.podAffinityTerm.topologyKey,
      'kubernetes.io/hostname',
    );
  });

  it('GIVEN memberAntiAffinity Required and a user nodeAffinity THEN members must be on distinct hostnames and the nodeAffinity stays', () => {
    const nodeAffinity = {
      requiredDuringSchedulingIgnoredDuringExecution: {
        nodeSelectorTerms: [{ matchExpressions: [{ key: 'disk', operator: 'In', values: ['ssd'] }] }],
      },
    };
    const pod = buildMemberPod(
      etcdCluster({ podTemplate: { memberAntiAffinity: 'Required', affinity: { nodeAffinity } } }),
      { member: 'demo-0', state: 'new', initialCluster: ['demo-0'] },
    );
    assert.deepEqual(pod.spec?.affinity, {
      nodeAffinity,
      podAntiAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: [
          {
            topologyKey: 'kubernetes.io/hostname',
            labelSelector: {
              matchLabels: {
                'app.kubernetes.io/name': 'etcd',
                'app.kubernetes.io/instance': 'demo',
                'app.kubernetes.io/component': 'member',
              },
            },
          },
        ],
      },
    });
  });

  it('GIVEN the API server filled in the default memberAntiAffinity THEN the pod revision is that of no podTemplate (no roll)', () => {
    // An existing cluster gets `podTemplate.memberAntiAffinity: Preferred` from the CRD default only when it has
    // a podTemplate; either way its members must keep their revision.
    assert.equal(
      podRevision(etcdCluster({ podTemplate: { memberAntiAffinity: 'Preferred' } })),
      podRevision(etcdCluster()),
    );
    assert.notEqual(
      podRevision(etcdCluster({ podTemplate: { memberAntiAffinity: 'Required' } })),
      podRevision(etcdCluster()),
    );
  });

  it('GIVEN ephemeral storage THEN the data volume is an emptyDir', () => {
    const pod = buildMemberPod(etcdCluster({ storage: { ephemeral: true } }), {
      member: 'demo-0',
      state: 'new',
      initialCluster: ['demo-0'],
    });
    assert.deepEqual(pod.spec?.volumes, [{ name: 'data', emptyDir: {} }]);
  });
});

describe('buildMemberPvc', () => {
  it('GIVEN the default retention THEN the PVC has no ownerReference (deleting the cluster keeps the data)', () => {
    const pvc = buildMemberPvc(etcdCluster(), 'demo-0', 't-1');
    assert.equal(pvc.metadata?.name, 'demo-0-data');
    assert.equal(pvc.metadata?.ownerReferences, undefined);
    assert.equal(pvc.metadata?.annotations?.['etcd.gitops.dev/cluster-token'], 't-1');
    assert.equal(pvc.metadata?.annotations?.['etcd.gitops.dev/cluster-uid'], 'uid-1');
    assert.deepEqual(pvc.spec?.resources?.requests, { storage: '1Gi' });
    assert.equal(pvc.spec?.storageClassName, undefined);
  });

  it('GIVEN a static bootstrap THEN each seed PVC records the whole initial membership, which its view reads back', () => {
    const members = ['demo-0', 'demo-1', 'demo-2'];
    const pvc = buildMemberPvc(etcdCluster(), 'demo-1', 't-1', members);
    assert.equal(pvc.metadata?.annotations?.['etcd.gitops.dev/initial-members'], 'demo-0,demo-1,demo-2');
    assert.deepEqual(toPvcView(pvc)?.initialCluster, members);
    assert.equal(toPvcView(pvc)?.token, 't-1');
    // AND a lone seed's PVC records no membership
    const lone = buildMemberPvc(etcdCluster(), 'demo-0', 't-1', ['demo-0']);
    assert.equal(lone.metadata?.annotations?.['etcd.gitops.dev/initial-members'], undefined);
    assert.equal(toPvcView(lone)?.initialCluster, undefined);
  });

  it('GIVEN whenDeleted Delete and a storage class THEN the PVC is owned by the cluster and uses the class', () => {
    const pvc = buildMemberPvc(
      etcdCluster({
        storage: { size: '2Gi', storageClassName: 'fast' },
        persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Delete' },
      }),
      'demo-3',
    );
    assert.equal(pvc.metadata?.ownerReferences?.[0]?.uid, 'uid-1');
    assert.equal(pvc.spec?.storageClassName, 'fast');
    assert.deepEqual(pvc.spec?.resources?.requests, { storage: '2Gi' });
    assert.equal(pvc.metadata?.annotations?.['etcd.gitops.dev/cluster-token'], undefined);
  });
});
