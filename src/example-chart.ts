// dist/02-example.k8s.yaml: a 3-member etcd 3.6 cluster in its own namespace, a backup every 6 hours to
// S3-compatible storage and a daily restore drill of it, suspended until its Secret and endpoint exist (README,
// "Plain kubectl").
import { Chart } from 'cdk8s';
import type { Construct } from 'constructs';
import { EtcdCluster } from '../constructs/etcd-cluster.js';

export const EXAMPLE_NAMESPACE = 'etcd-example';

export interface ExampleChartProps {
  /**
   * The cluster's `deletionProtection` (the GitOps e2e commits the example without it, as the docs' opt-out).
   * @default true
   */
  readonly deletionProtection?: boolean;
}

export class ExampleChart extends Chart {
  public readonly cluster: EtcdCluster;

  public constructor(scope: Construct, id: string, props: ExampleChartProps = {}) {
    super(scope, id, { namespace: EXAMPLE_NAMESPACE });
    this.cluster = new EtcdCluster(this, 'example', {
      deletionProtection: props.deletionProtection,
      version: '3.6.16',
      size: 3,
      // The namespace holds the members' volumes: created here, Pod Security `restricted`, never pruned.
      createNamespace: true,
      // Client Pods carry this label to reach the client port through the NetworkPolicy.
      clients: [{ podSelector: { 'etcd.gitops.dev/client': 'example' } }],
    });
    // The Secret is created out of band (kubectl, Sealed Secrets, External Secrets): it is not in Git. Suspended,
    // so that dist/ applied as shipped runs no Job that can only fail; `kubectl create job --from` still works.
    const backups = this.cluster.addBackupSchedule({
      schedule: '0 */6 * * *',
      bucket: 'etcd-backups',
      endpoint: 'http://minio.etcd-example.svc:9000',
      forcePathStyle: true,
      credentialsSecretName: 'example-backup-s3',
      keepLast: 7,
      suspend: true,
    });
    // Daily, the newest backup restored into the drill Pod's own volume and served by a throw-away etcd: proof that
    // it restores (docs/design/restore-drill.md). Suspended with the schedule it drills.
    backups.addRestoreDrill({ schedule: '30 4 * * *', suspend: true });
  }
}
