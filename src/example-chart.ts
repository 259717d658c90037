// dist/02-example.k8s.yaml: a 3-member etcd 3.6 cluster with a backup every 6 hours to S3-compatible storage.
import { Chart, JsonPatch } from 'cdk8s';
import { k8s } from 'cdk8s-plus-27';
import type { Construct } from 'constructs';
import { EtcdCluster } from '../constructs/etcd-cluster.js';
import { SYNC_WAVE, SyncWave } from '../constructs/gitops.js';

export const EXAMPLE_NAMESPACE = 'etcd-example';

export class ExampleChart extends Chart {
  public readonly cluster: EtcdCluster;

  public constructor(scope: Construct, id: string) {
    super(scope, id, { namespace: EXAMPLE_NAMESPACE });
    const namespace = new k8s.KubeNamespace(this, 'namespace', {
      metadata: {
        name: EXAMPLE_NAMESPACE,
        labels: {
          'pod-security.kubernetes.io/enforce': 'restricted',
          'pod-security.kubernetes.io/enforce-version': 'latest',
        },
        annotations: { [SYNC_WAVE]: SyncWave.CLUSTERS },
      },
    });
    // cdk8s stamps the chart's namespace onto every object; a Namespace is cluster-scoped and has none.
    namespace.addJsonPatch(JsonPatch.remove('/metadata/namespace'));
    this.cluster = new EtcdCluster(this, 'example', {
      version: '3.6.16',
      size: 3,
      // Client Pods carry this label to reach the client port through the NetworkPolicy.
      clients: [{ podSelector: { 'etcd.gitops.dev/client': 'example' } }],
    });
    // The Secret is created out of band (kubectl, Sealed Secrets, External Secrets): it is not in Git.
    this.cluster.addBackupSchedule({
      schedule: '0 */6 * * *',
      bucket: 'etcd-backups',
      endpoint: 'http://minio.etcd-example.svc:9000',
      forcePathStyle: true,
      credentialsSecretName: 'example-backup-s3',
      keepLast: 7,
    });
  }
}
