// The local control plane is real Kubernetes: honest /version, Pod Security admission, the
// CronJob, Job and garbage-collector controllers of kube-controller-manager.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type ApiException, BatchV1Api, CoreV1Api, type V1Pod, VersionApi } from '@kubernetes/client-node';
import { kubernetesVersion } from '../env/binaries.js';
import { type Environment, startEnvironment } from '../env/environment.js';
import { waitFor } from '../env/wait.js';

function pod(name: string, securityContext: V1Pod['spec']): V1Pod {
  return { metadata: { name }, spec: securityContext };
}

const privilegedPod = pod('privileged', {
  containers: [{ name: 'main', image: 'busybox', securityContext: { privileged: true } }],
});

const restrictedPod = pod('restricted', {
  securityContext: { runAsNonRoot: true, runAsUser: 1000, seccompProfile: { type: 'RuntimeDefault' } },
  containers: [
    {
      name: 'main',
      image: 'busybox',
      securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } },
    },
  ],
});

describe('local control plane', () => {
  let env: Environment;
  before(async () => {
    env = await startEnvironment();
  });
  after(() => env?.stop());

  test('GIVEN the control plane WHEN /version is read THEN it reports the pinned Kubernetes version', async () => {
    const version = await env.kubeConfig.makeApiClient(VersionApi).getCode();
    assert.equal(version.gitVersion, kubernetesVersion);
    assert.equal(version.gitVersion, 'v1.34.4');
  });

  describe('GIVEN a namespace labelled pod-security.kubernetes.io/enforce=restricted', () => {
    const namespace = 'psa-restricted';
    before(() => env.createNamespace(namespace, { 'pod-security.kubernetes.io/enforce': 'restricted' }));

    test('fails when a privileged Pod is created: Pod Security admission rejects it', async () => {
      const core = env.kubeConfig.makeApiClient(CoreV1Api);
      await assert.rejects(
        core.createNamespacedPod({ namespace, body: privilegedPod }),
        (error: ApiException<string>) => {
          assert.equal(error.code, 403);
          const status = JSON.parse(error.body) as { reason: string; message: string };
          assert.equal(status.reason, 'Forbidden');
          assert.match(status.message, /violates PodSecurity "restricted:latest"/);
          assert.match(status.message, /must not set securityContext\.privileged=true/);
          return true;
        },
      );
      const pods = await core.listNamespacedPod({ namespace });
      assert.deepEqual(
        pods.items.map((p) => p.metadata?.name),
        [],
      );
    });

    test('WHEN a Pod that meets the restricted profile is created THEN it is admitted', async () => {
      const core = env.kubeConfig.makeApiClient(CoreV1Api);
      await core.createNamespacedPod({ namespace, body: restrictedPod });
      const stored = await core.readNamespacedPod({ namespace, name: 'restricted' });
      assert.equal(stored.spec?.containers[0]?.securityContext?.allowPrivilegeEscalation, false);
      // ServiceAccount admission is on: the Pod got the default ServiceAccount's projected token.
      assert.equal(stored.spec?.serviceAccountName, 'default');
      assert.ok(stored.spec?.volumes?.some((v) => v.name.startsWith('kube-api-access-') && v.projected));
    });

    test('WHEN the same privileged Pod goes to an unlabelled namespace THEN it is admitted (the label is what rejects it)', async () => {
      await env.createNamespace('psa-unlabelled');
      const core = env.kubeConfig.makeApiClient(CoreV1Api);
      const created = await core.createNamespacedPod({ namespace: 'psa-unlabelled', body: privilegedPod });
      assert.equal(created.spec?.containers[0]?.securityContext?.privileged, true);
    });
  });

  test('GIVEN a CronJob scheduled every minute WHEN its schedule comes THEN the CronJob controller creates a Job, the Job controller its Pod, and deleting the CronJob garbage-collects both', async () => {
    const namespace = 'cron';
    await env.createNamespace(namespace);
    const batch = env.kubeConfig.makeApiClient(BatchV1Api);
    const core = env.kubeConfig.makeApiClient(CoreV1Api);
    const cronJob = await batch.createNamespacedCronJob({
      namespace,
      body: {
        metadata: { name: 'tick' },
        spec: {
          schedule: '* * * * *',
          jobTemplate: {
            spec: {
              template: {
                spec: {
                  restartPolicy: 'Never',
                  containers: [{ name: 'main', image: 'busybox', command: ['true'] }],
                },
              },
            },
          },
        },
      },
    });

    const job = await waitFor(async () => (await batch.listNamespacedJob({ namespace })).items[0], {
      what: 'the CronJob to create a Job (at the next minute boundary)',
      timeoutMs: 130_000,
      intervalMs: 500,
    });
    const owner = job.metadata?.ownerReferences?.[0];
    assert.equal(owner?.kind, 'CronJob');
    assert.equal(owner?.uid, cronJob.metadata?.uid);
    assert.match(job.metadata?.name ?? '', /^tick-\d+$/);

    const jobPod = await waitFor(
      async () =>
        (await core.listNamespacedPod({ namespace, labelSelector: `job-name=${job.metadata?.name}` }))
          .items[0],
      { what: `the Job controller to create a Pod for Job ${job.metadata?.name}`, timeoutMs: 30_000 },
    );
    assert.equal(jobPod.metadata?.ownerReferences?.[0]?.uid, job.metadata?.uid);

    await batch.deleteNamespacedCronJob({ namespace, name: 'tick', propagationPolicy: 'Background' });
    await waitFor(async () => (await batch.listNamespacedJob({ namespace })).items.length === 0, {
      what: 'the garbage collector to delete the Jobs of the deleted CronJob',
      timeoutMs: 60_000,
    });
  });
});
