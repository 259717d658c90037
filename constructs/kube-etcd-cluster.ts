// A typed EtcdCluster object (the custom resource itself), for users who reference or build one directly.
import { ApiObject, type ApiObjectMetadata, type GroupVersionKind } from 'cdk8s';
import type { Construct } from 'constructs';
import { API_GROUP_VERSION, ETCD_CLUSTER_KIND } from './conventions/api.js';
import type { EtcdClusterSpec } from './imports/etcd.gitops.dev.js';

/** Props of {@link KubeEtcdCluster}. */
export interface KubeEtcdClusterProps {
  /**
   * Object metadata.
   * @default - a name generated from the construct path (set one: members and Services derive from it)
   */
  readonly metadata?: ApiObjectMetadata;
  /** The desired cluster. */
  readonly spec: EtcdClusterSpec;
}

/** `etcd.gitops.dev/v1alpha1` `EtcdCluster`. The `EtcdCluster` construct makes one with its companions. */
export class KubeEtcdCluster extends ApiObject {
  /** Its API version and kind. */
  public static readonly GVK: GroupVersionKind = { apiVersion: API_GROUP_VERSION, kind: ETCD_CLUSTER_KIND };

  /** The object as plain JSON, without a construct. */
  public static manifest(props: KubeEtcdClusterProps): Record<string, unknown> {
    return { ...KubeEtcdCluster.GVK, ...props };
  }

  public constructor(scope: Construct, id: string, props: KubeEtcdClusterProps) {
    super(scope, id, { ...KubeEtcdCluster.GVK, ...props });
  }
}
