import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Duration } from 'cdk8s';
import { EtcdCluster, type EtcdClusterProps } from '../../../constructs/index.js';
import { clusterChart, matchSnapshot, only, synth } from './helpers.js';

const members = {
  'app.kubernetes.io/name': 'etcd',
  'app.kubernetes.io/instance': 'main',
  'app.kubernetes.io/component': 'member',
};

function cluster(props: Partial<EtcdClusterProps> = {}, namespace: string | null = 'etcd-test') {
  const chart = clusterChart(namespace);
  const construct = new EtcdCluster(chart, 'main', { version: '3.6.16', ...props });
  return { construct, objects: synth(chart) };
}

describe('EtcdCluster construct', () => {
  it('GIVEN only a version WHEN synthesized THEN it matches the snapshot with size 3 and a 1Gi PVC per member', () => {
    const { objects } = cluster();
    matchSnapshot('constructs', 'etcd-cluster-default', objects);
    const resource = only(objects, 'EtcdCluster', 'main');
    assert.equal(resource.apiVersion, 'etcd.gitops.dev/v1alpha1');
    assert.deepEqual(resource.spec, { size: 3, version: '3.6.16', storage: { size: '1Gi' } });
    assert.equal(resource.metadata.namespace, 'etcd-test');
    assert.equal(resource.metadata.annotations['argocd.argoproj.io/sync-wave'], '0');
  });

  it('GIVEN failureDetection as text and as a Duration THEN the spec carries both bounds; a bad one is refused naming the prop', () => {
    const resource = only(
      cluster({ failureDetection: { nodeNotReady: '30s', podStuck: Duration.minutes(10) } }).objects,
      'EtcdCluster',
      'main',
    );
    assert.deepEqual(resource.spec.failureDetection, { nodeNotReady: '30s', podStuck: '10m' });
    assert.equal(
      only(cluster({ failureDetection: {} }).objects, 'EtcdCluster', 'main').spec.failureDetection,
      undefined,
    );
    assert.throws(
      () => cluster({ failureDetection: { nodeNotReady: '2 minutes' } }),
      /'failureDetection.nodeNotReady' must be a positive duration such as .*, got '2 minutes'/,
    );
  });

  it('GIVEN a cluster THEN the peer Service is headless, publishes not-ready addresses and selects members by our labels', () => {
    const peer = only(cluster().objects, 'Service', 'main-peer');
    assert.equal(peer.spec.clusterIP, 'None');
    assert.equal(peer.spec.publishNotReadyAddresses, true);
    assert.deepEqual(peer.spec.selector, members);
    assert.deepEqual(
      peer.spec.ports.map((p: { name: string; port: number }) => [p.name, p.port]),
      [
        ['peer', 2380],
        ['client', 2379],
        ['metrics', 2381],
      ],
    );
  });

  it('GIVEN a cluster THEN the client Service exposes 2379 and the construct reports its URL', () => {
    const { construct, objects } = cluster();
    const client = only(objects, 'Service', 'main-client');
    assert.deepEqual(client.spec.selector, members);
    assert.deepEqual(client.spec.ports[0].port, 2379);
    assert.equal(construct.clientUrl, 'http://main-client.etcd-test.svc:2379');
  });

  it('GIVEN sizes 1, 3, 5 and 4 (opted in) THEN the PodDisruptionBudget allows one voluntary disruption at a time, whatever the size', () => {
    for (const size of [1, 3, 5, 4]) {
      const pdb = only(
        cluster({ size, allowEvenSize: size % 2 === 0 }).objects,
        'PodDisruptionBudget',
        'main',
      );
      assert.equal(pdb.spec.maxUnavailable, 1, `size ${size}`);
      assert.equal(pdb.spec.minAvailable, undefined, `size ${size}`);
      assert.deepEqual(pdb.spec.selector.matchLabels, members);
    }
  });

  it('GIVEN client selectors THEN the NetworkPolicy opens the peer port to members only and the client port to the controller, backup and defrag Jobs, members and those clients', () => {
    const policy = only(
      cluster({ clients: [{ podSelector: { app: 'api' } }, { namespaceSelector: { team: 'a' } }] }).objects,
      'NetworkPolicy',
      'main',
    );
    assert.deepEqual(policy.spec.podSelector.matchLabels, members);
    assert.deepEqual(policy.spec.policyTypes, ['Ingress']);
    const [peer, client] = policy.spec.ingress;
    assert.deepEqual(peer.ports, [{ port: 2380, protocol: 'TCP' }]);
    assert.deepEqual(peer.from, [{ podSelector: { matchLabels: members } }]);
    assert.deepEqual(client.ports, [{ port: 2379, protocol: 'TCP' }]);
    // Members reach each other's client port: a survivor restore's seed copies the survivor's snapshot over it.
    assert.deepEqual(client.from[3], { podSelector: { matchLabels: members } });
    assert.deepEqual(client.from.slice(4), [
      { podSelector: { matchLabels: { app: 'api' } } },
      { namespaceSelector: { matchLabels: { team: 'a' } }, podSelector: {} },
    ]);
    assert.equal(
      client.from[0].namespaceSelector.matchLabels['kubernetes.io/metadata.name'],
      'etcd-gitops-system',
    );
    assert.equal(client.from[1].podSelector.matchLabels['app.kubernetes.io/component'], 'backup');
    assert.equal(client.from[2].podSelector.matchLabels['app.kubernetes.io/component'], 'defrag');
  });

  it("GIVEN a cluster THEN the controller may get Secrets and request tokens of the cluster's backup ServiceAccount only, in this namespace only, through a Role and RoleBinding", () => {
    const { objects } = cluster();
    const role = only(objects, 'Role', 'main-etcd-gitops-controller');
    assert.equal(role.metadata.namespace, 'etcd-test');
    assert.deepEqual(role.rules, [
      { apiGroups: [''], resources: ['secrets'], verbs: ['get'] },
      {
        apiGroups: [''],
        resources: ['serviceaccounts/token'],
        verbs: ['create'],
        resourceNames: ['main-backup'],
      },
    ]);
    const binding = only(objects, 'RoleBinding', 'main-etcd-gitops-controller');
    assert.deepEqual(binding.subjects, [
      { kind: 'ServiceAccount', name: 'etcd-gitops-controller', namespace: 'etcd-gitops-system' },
    ]);
  });

  it('GIVEN every optional prop THEN the spec carries each one', () => {
    const backup = { bucket: 'etcd-backups', latestUnderPrefix: 'etcd/', credentialsSecretName: 's3' };
    const { objects } = cluster({
      size: 5,
      image: 'registry.local/etcd:v3.6.16',
      storage: { size: '8Gi', storageClassName: 'fast' },
      resources: { requests: { cpu: '500m', memory: '1Gi' }, limits: { memory: '2Gi' } },
      podTemplate: {
        labels: { team: 'a' },
        priorityClassName: 'system-cluster-critical',
        nodeSelector: { disk: 'ssd' },
      },
      bootstrapFromBackup: backup,
      pvcRetentionPolicy: { whenDeleted: 'Delete', whenScaled: 'Retain' },
      paused: true,
    });
    const spec = only(objects, 'EtcdCluster').spec;
    assert.equal(spec.size, 5);
    assert.equal(spec.image, 'registry.local/etcd:v3.6.16');
    assert.deepEqual(spec.storage, { size: '8Gi', storageClassName: 'fast' });
    assert.deepEqual(spec.resources.limits, { memory: '2Gi' });
    assert.equal(spec.podTemplate.priorityClassName, 'system-cluster-critical');
    assert.deepEqual(spec.bootstrap, { backup });
    assert.deepEqual(spec.persistentVolumeClaimRetentionPolicy, {
      whenDeleted: 'Delete',
      whenScaled: 'Retain',
    });
    assert.equal(spec.paused, true);
  });

  it('GIVEN ephemeral storage opted in THEN the spec says so', () => {
    assert.equal(
      only(cluster({ storage: { ephemeral: true } }).objects, 'EtcdCluster').spec.storage.ephemeral,
      true,
    );
  });

  it('GIVEN a chart without namespace THEN objects carry none and the client URL has no namespace part', () => {
    const { construct, objects } = cluster({}, null);
    assert.ok(objects.every((o) => o.metadata.namespace === undefined));
    assert.equal(construct.clientUrl, 'http://main-client:2379');
  });

  it('fails when size is 0', () => {
    assert.throws(() => cluster({ size: 0 }), /^Error: 'size' must be an integer from 1 to 9 .*, got 0$/);
  });

  it('fails when size is 10', () => {
    assert.throws(() => cluster({ size: 10 }), /^Error: 'size' must be an integer from 1 to 9 .*, got 10$/);
  });

  it('fails when size is even without the opt-in', () => {
    assert.throws(
      () => cluster({ size: 4 }),
      /^Error: 'size' must be odd to survive a member failure, got 4 \(set allowEvenSize: true to allow it\)$/,
    );
  });

  it('fails when the version is not semver', () => {
    assert.throws(
      () => cluster({ version: 'v3.6' }),
      /^Error: 'version' must be an etcd release written X\.Y\.Z .*, got 'v3\.6'$/,
    );
  });

  it('fails when the storage size is not a quantity', () => {
    assert.throws(
      () => cluster({ storage: { size: '10GB' } }),
      /^Error: 'storage.size' must be a Kubernetes quantity such as 1Gi, 512Mi or 10G, got '10GB'$/,
    );
  });

  it('fails when the storage size is a plain small number (bytes), naming the minimum and how to write it', () => {
    assert.throws(
      () => cluster({ storage: { size: 10 } }),
      /^Error: 'storage.size' must be a quantity of at least 128Mi \(etcd preallocates .*\); a plain number counts bytes: write '10Gi' or Size.gibibytes\(10\), got 10$/,
    );
    assert.throws(() => cluster({ storage: { size: '64Mi' } }), /got 64Mi$/);
    assert.equal(
      only(cluster({ storage: { size: '128Mi' } }).objects, 'EtcdCluster').spec.storage.size,
      '128Mi',
    );
  });

  it('fails when a memory limit is below its request', () => {
    assert.throws(
      () => cluster({ resources: { requests: { memory: '1Gi' }, limits: { memory: '512Mi' } } }),
      /^Error: 'resources.limits.memory' must be at least 'resources.requests.memory' \(1Gi\): Kubernetes refuses a limit below its request, got 512Mi$/,
    );
    assert.doesNotThrow(() => cluster({ resources: { requests: { cpu: '1' }, limits: { cpu: '1000m' } } }));
  });

  it('fails when a resource request is not a quantity', () => {
    assert.throws(
      () => cluster({ resources: { requests: { cpu: 'half' } } }),
      /'resources.requests.cpu' must be a Kubernetes quantity/,
    );
  });

  it('fails when the name is not a DNS label or too long for derived names', () => {
    assert.throws(
      () => cluster({ name: 'Main' }),
      /^Error: 'name' must be at most 45 characters .* got 'Main'$/,
    );
    assert.throws(() => cluster({ name: `a${'b'.repeat(45)}` }), /'name' must be at most 45 characters/);
  });

  it('GIVEN podTemplate.memberAntiAffinity Required and an affinity THEN the spec carries both', () => {
    const nodeAffinity = {
      requiredDuringSchedulingIgnoredDuringExecution: {
        nodeSelectorTerms: [
          { matchExpressions: [{ key: 'disk', operator: 'In' as const, values: ['ssd'] }] },
        ],
      },
    };
    const spec = only(
      cluster({ podTemplate: { memberAntiAffinity: 'Required', affinity: { nodeAffinity } } }).objects,
      'EtcdCluster',
    ).spec;
    assert.equal(spec.podTemplate.memberAntiAffinity, 'Required');
    assert.deepEqual(spec.podTemplate.affinity, { nodeAffinity });
  });

  it('fails when podTemplate.memberAntiAffinity is neither Preferred nor Required', () => {
    assert.throws(
      () => cluster({ podTemplate: { memberAntiAffinity: 'required' as never } }),
      /^Error: 'podTemplate.memberAntiAffinity' must be 'Preferred' or 'Required', got "required"$/,
    );
  });

  it('fails when a podTemplate label, node selector or annotation key is not a qualified name, or a label value not a label value, naming the prop, the value and what is allowed', () => {
    const refusals: Array<[Record<string, unknown>, RegExp]> = [
      [
        { labels: { 'team name': 'a' } },
        /^Error: 'podTemplate.labels' keys must be a name of at most 63 .*, got 'team name'$/,
      ],
      [
        { labels: { team: 'platform team' } },
        /^Error: 'podTemplate.labels.team' must be empty, or at most 63 .*, got 'platform team'$/,
      ],
      [
        { labels: { tier: 'x'.repeat(64) } },
        /^Error: 'podTemplate.labels.tier' must be empty, or at most 63 .*, got 'x{64}'$/,
      ],
      [
        { nodeSelector: { 'kubernetes.io/': 'ssd' } },
        /^Error: 'podTemplate.nodeSelector' keys must be .*, got 'kubernetes.io\/'$/,
      ],
      [{ nodeSelector: { disk: 'ssd!' } }, /^Error: 'podTemplate.nodeSelector.disk' must be .*, got 'ssd!'$/],
      [{ annotations: { '-bad': 'x' } }, /^Error: 'podTemplate.annotations' keys must be .*, got '-bad'$/],
    ];
    for (const [podTemplate, message] of refusals) assert.throws(() => cluster({ podTemplate }), message);
    const fine = { 'example.com/team': 'platform', empty: '', 'a.b_c-d': 'X.y_z-1' };
    const spec = only(
      cluster({
        podTemplate: {
          labels: fine,
          nodeSelector: fine,
          annotations: { 'example.com/note': 'any text at all' },
        },
      }).objects,
      'EtcdCluster',
    ).spec;
    assert.deepEqual(spec.podTemplate.labels, fine);
  });

  it('fails when podTemplate labels override a selector label', () => {
    assert.throws(
      () => cluster({ podTemplate: { labels: { 'app.kubernetes.io/instance': 'other' } } }),
      /^Error: 'podTemplate.labels' must not set 'app.kubernetes.io\/instance'/,
    );
  });

  it('GIVEN a bootstrap backup read with a web identity THEN the backup ServiceAccount exists without a schedule; with a Secret it does not', () => {
    const webIdentity = { roleArn: 'arn:aws:iam::123456789012:role/etcd' };
    const { objects } = cluster({
      bootstrapFromBackup: { bucket: 'etcd-backups', latestUnderPrefix: 'etcd/', webIdentity },
    });
    assert.deepEqual(only(objects, 'EtcdCluster').spec.bootstrap.backup.webIdentity, webIdentity);
    assert.equal(only(objects, 'ServiceAccount', 'main-backup').automountServiceAccountToken, false);
    const withSecret = cluster({
      bootstrapFromBackup: {
        bucket: 'etcd-backups',
        latestUnderPrefix: 'etcd/',
        credentialsSecretName: 's3',
      },
    });
    assert.ok(!withSecret.objects.some((o) => o.kind === 'ServiceAccount'));
  });

  it('fails when the bootstrap backup names both a Secret and a web identity, or neither', () => {
    const location = { bucket: 'etcd-backups', key: 'a.db' };
    assert.throws(
      () => cluster({ bootstrapFromBackup: location }),
      /^Error: 'bootstrapFromBackup': set exactly one of 'credentialsSecretName' .* or 'webIdentity' .*, got neither$/,
    );
    assert.throws(
      () =>
        cluster({
          bootstrapFromBackup: {
            ...location,
            credentialsSecretName: 's3',
            webIdentity: { roleArn: 'arn:aws:iam::1:role/x' },
          },
        }),
      /, got both$/,
    );
  });

  it('fails when the bootstrap backup names both a key and a prefix', () => {
    assert.throws(
      () =>
        cluster({
          bootstrapFromBackup: {
            bucket: 'etcd-backups',
            key: 'a.db',
            latestUnderPrefix: 'x/',
            credentialsSecretName: 's',
          },
        }),
      /^Error: 'bootstrapFromBackup' must set exactly one of 'key' .* got both$/,
    );
  });
});
