// A typed EtcdRestore object: restore an EtcdCluster from a backup without deleting the EtcdCluster.
import { ApiObject, type ApiObjectMetadata, type GroupVersionKind } from 'cdk8s';
import type { Construct } from 'constructs';
import { registryOf, unwatchedNamespaceProblem } from './app-registry.js';
import { API_GROUP_VERSION, ETCD_RESTORE_KIND } from './conventions/api.js';
import { clusterLabels } from './conventions/labels.js';
import { customResourceAnnotations } from './gitops.js';
import type { EtcdRestoreSpec } from './imports/etcd.gitops.dev.js';
import { validateS3Location } from './s3-location.js';
import { validateDnsLabel } from './validate/names.js';

/** Props of {@link KubeEtcdRestore}. */
export interface KubeEtcdRestoreProps {
  /**
   * Object metadata.
   * @default - a name generated from the construct path
   */
  readonly metadata?: ApiObjectMetadata;
  /** Which cluster, from which backup (`backup`) or surviving member (`survivor`). */
  readonly spec: EtcdRestoreSpec;
}

/** `etcd.gitops.dev/v1alpha1` `EtcdRestore`, checked at synth time and placed in the clusters' sync wave. */
export class KubeEtcdRestore extends ApiObject {
  /** Its API version and kind. */
  public static readonly GVK: GroupVersionKind = { apiVersion: API_GROUP_VERSION, kind: ETCD_RESTORE_KIND };

  public constructor(scope: Construct, id: string, props: KubeEtcdRestoreProps) {
    validateDnsLabel('spec.clusterName', props.spec.clusterName);
    const { backup, survivor } = props.spec;
    if ((backup === undefined) === (survivor === undefined)) {
      throw new Error(
        `set exactly one of 'spec.backup' (restore a backup from S3) and 'spec.survivor' (recover from a member that still has its data), got ${backup ? 'both' : 'neither'}`,
      );
    }
    if (backup) validateS3Location('spec.backup', backup);
    if (survivor && (survivor.member === undefined) === (survivor.newest !== true)) {
      throw new Error(
        `'spec.survivor' takes exactly one of member (a member name such as main-2) and newest: true, got ${JSON.stringify(survivor)}`,
      );
    }
    if (survivor?.member !== undefined) validateDnsLabel('spec.survivor.member', survivor.member);
    super(scope, id, {
      ...KubeEtcdRestore.GVK,
      ...props,
      metadata: {
        ...props.metadata,
        // The cluster's labels (component `restore`), so `kubectl get all,etcdrestores -l app.kubernetes.io/instance=<cluster>` finds it.
        labels: { ...clusterLabels(props.spec.clusterName, 'restore'), ...props.metadata?.labels },
        annotations: { ...customResourceAnnotations(), ...props.metadata?.annotations },
      },
    });
    const { clusterName } = props.spec;
    this.node.addValidation({ validate: () => [...this.unknownCluster(clusterName), ...this.unwatched()] });
  }

  /** A restore where the app's operator does not watch: it would never run. */
  private unwatched(): string[] {
    return registryOf(this).operators.flatMap(
      ({ identity }) =>
        unwatchedNamespaceProblem(identity, this.metadata.namespace, `EtcdRestore '${this.name}'`) ?? [],
    );
  }

  /**
   * A restore of a cluster this app does not hold, while the app holds clusters in the restore's namespace: most
   * likely a misspelt name (a cluster synthesized in another app, in a namespace this app has no cluster in, is not
   * checked).
   */
  private unknownCluster(clusterName: string): string[] {
    const namespace = this.metadata.namespace ?? '<none>';
    const known = [...registryOf(this).clusters.keys()]
      .filter((key) => key.startsWith(`${namespace}/`))
      .map((key) => key.slice(namespace.length + 1));
    if (known.length === 0 || known.includes(clusterName)) return [];
    return [
      `'spec.clusterName' is '${clusterName}', but this app's clusters in namespace '${namespace}' are ${known.map((name) => `'${name}'`).join(', ')}: name one of them (a cluster of another app belongs in that app's namespace)`,
    ];
  }
}
