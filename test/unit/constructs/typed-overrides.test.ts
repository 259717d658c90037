// Member Pod overrides typed with cdk8s-plus-27's Kubernetes types, quantities as Sizes and numbers, durations as
// Durations; and a user affinity keeps the default pod anti-affinity on the Pods the controller makes.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Duration, Size } from 'cdk8s';
import type { k8s } from 'cdk8s-plus-27';
import {
  EtcdCluster,
  type EtcdClusterProps,
  type EtcdClusterSpec,
  EtcdOperator,
  type EtcdPodTemplateProps,
} from '../../../constructs/index.js';
import type { EtcdCluster as EtcdClusterResource } from '../../../controller/etcdcluster/api.js';
import { buildMemberPod } from '../../../controller/etcdcluster/member-pod.js';
import { clusterChart, type Manifest, only, synth, testChart } from './helpers.js';

function spec(props: Partial<EtcdClusterProps>): EtcdClusterSpec {
  const chart = clusterChart('db');
  new EtcdCluster(chart, 'main', { version: '3.6.16', ...props });
  return only(synth(chart), 'EtcdCluster', 'main').spec as EtcdClusterSpec;
}

/** The member Pod the controller makes for the synthesized cluster. */
function memberPod(clusterSpec: EtcdClusterSpec) {
  const cluster: EtcdClusterResource = {
    apiVersion: 'etcd.gitops.dev/v1alpha1',
    kind: 'EtcdCluster',
    metadata: { name: 'main', namespace: 'db', uid: 'uid-1' },
    spec: clusterSpec,
  };
  return buildMemberPod(cluster, { member: 'main-0', state: 'new', initialCluster: ['main-0'], token: 't' });
}

const defaultAntiAffinity = {
  weight: 100,
  podAffinityTerm: {
    topologyKey: 'kubernetes.io/hostname',
    labelSelector: {
      matchLabels: {
        'app.kubernetes.io/name': 'etcd',
        'app.kubernetes.io/instance': 'main',
        'app.kubernetes.io/component': 'member',
      },
    },
  },
};

const nodeAffinity: k8s.NodeAffinity = {
  requiredDuringSchedulingIgnoredDuringExecution: {
    nodeSelectorTerms: [{ matchExpressions: [{ key: 'disk', operator: 'In', values: ['ssd'] }] }],
  },
};

describe('typed member Pod overrides', () => {
  it('GIVEN affinity, tolerations and spread constraints as k8s types WHEN synthesized THEN the spec carries them as Kubernetes JSON', () => {
    const tolerations: k8s.Toleration[] = [
      { key: 'dedicated', operator: 'Equal', value: 'etcd', effect: 'NoExecute', tolerationSeconds: 30 },
    ];
    const topologySpreadConstraints: k8s.TopologySpreadConstraint[] = [
      {
        maxSkew: 1,
        topologyKey: 'topology.kubernetes.io/zone',
        whenUnsatisfiable: 'DoNotSchedule',
        labelSelector: { matchLabels: { 'app.kubernetes.io/instance': 'main' } },
      },
    ];
    const podTemplate = spec({
      podTemplate: { affinity: { nodeAffinity }, tolerations, topologySpreadConstraints },
    }).podTemplate as Manifest;
    assert.deepEqual(podTemplate.affinity, { nodeAffinity });
    assert.deepEqual(podTemplate.tolerations, tolerations);
    assert.deepEqual(podTemplate.topologySpreadConstraints, topologySpreadConstraints);
  });

  it('GIVEN a user node affinity WHEN the controller makes a member Pod THEN it has the node affinity and the default anti-affinity', () => {
    const pod = memberPod(spec({ podTemplate: { affinity: { nodeAffinity } } }));
    assert.deepEqual(pod.spec?.affinity, {
      nodeAffinity,
      podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [defaultAntiAffinity] },
    });
  });

  it('GIVEN a user pod anti-affinity term WHEN the controller makes a member Pod THEN both terms apply', () => {
    const zones: k8s.WeightedPodAffinityTerm = {
      weight: 50,
      podAffinityTerm: { topologyKey: 'topology.kubernetes.io/zone' },
    };
    const pod = memberPod(
      spec({
        podTemplate: {
          affinity: { podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [zones] } },
        },
      }),
    );
    assert.deepEqual(pod.spec?.affinity?.podAntiAffinity?.preferredDuringSchedulingIgnoredDuringExecution, [
      zones,
      defaultAntiAffinity,
    ]);
  });

  it('GIVEN no affinity WHEN the controller makes a member Pod THEN the default anti-affinity alone applies', () => {
    assert.deepEqual(memberPod(spec({})).spec?.affinity, {
      podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [defaultAntiAffinity] },
    });
  });

  it('GIVEN a typo in an affinity field THEN tsc refuses it', () => {
    const typo: EtcdPodTemplateProps = {
      // @ts-expect-error: 'podAntiAfinity' is not a field of k8s.Affinity (tsc compiles this file)
      affinity: { podAntiAfinity: {} },
    };
    assert.ok(typo);
  });

  it('GIVEN quantities as Sizes and numbers WHEN synthesized THEN the spec carries Kubernetes quantities', () => {
    const rendered = spec({
      storage: { size: Size.gibibytes(1.5) },
      resources: {
        requests: { cpu: 0.5, memory: Size.mebibytes(512) },
        limits: { memory: Size.gibibytes(2) },
      },
    });
    assert.equal(rendered.storage?.size, '1536Mi');
    assert.deepEqual(rendered.resources, {
      requests: { cpu: '0.5', memory: '512Mi' },
      limits: { memory: '2Gi' },
    });
  });

  it('GIVEN operator resources as Sizes WHEN synthesized THEN the Deployment requests Kubernetes quantities', () => {
    const chart = testChart(null);
    new EtcdOperator(chart, 'operator', {
      resources: { requests: { cpu: 0.1, memory: Size.mebibytes(96) } },
    });
    const deployment = only(synth(chart), 'Deployment');
    assert.deepEqual(deployment.spec.template.spec.containers[0].resources.requests, {
      cpu: '0.1',
      memory: '96Mi',
    });
  });

  it('GIVEN a retention age as a Duration WHEN synthesized THEN --max-age carries it in the duration grammar', () => {
    const chart = clusterChart('db');
    const cluster = new EtcdCluster(chart, 'main', { version: '3.6.16' });
    cluster.addBackupSchedule({
      schedule: '@daily',
      bucket: 'etcd-backups',
      credentialsSecretName: 's3',
      maxAge: Duration.hours(36),
    });
    const args = only(synth(chart), 'CronJob').spec.jobTemplate.spec.template.spec.containers[0].args;
    assert.ok(args.includes('--max-age=1d12h'), args.join(' '));
  });

  it('fails when a quantity is a zero Size, a negative number or not finite, naming the prop', () => {
    assert.throws(
      () => spec({ storage: { size: Size.gibibytes(0) } }),
      /^Error: 'storage.size' must be a Kubernetes quantity such as 1Gi, 512Mi or 10G greater than zero, got '0Ki'$/,
    );
    assert.throws(
      () => spec({ resources: { requests: { cpu: -1 } } }),
      /'resources.requests.cpu' .* greater than zero, got '-1'/,
    );
    assert.throws(
      () => spec({ resources: { limits: { cpu: Number.NaN } } }),
      /^Error: 'resources.limits.cpu' must be a finite number, got NaN$/,
    );
  });

  it('fails when a retention Duration is zero', () => {
    const chart = clusterChart('db');
    const cluster = new EtcdCluster(chart, 'main', { version: '3.6.16' });
    assert.throws(
      () =>
        cluster.addBackupSchedule({
          schedule: '@daily',
          bucket: 'etcd-backups',
          credentialsSecretName: 's3',
          maxAge: Duration.seconds(0),
        }),
      /^Error: 'maxAge' must be a positive duration of whole milliseconds, got /,
    );
  });
});
