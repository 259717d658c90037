// A typed EtcdRestore object: restore an EtcdCluster from a backup without deleting the EtcdCluster.
import { ApiObject, type ApiObjectMetadata, type GroupVersionKind } from 'cdk8s';
import type { Construct } from 'constructs';
import { API_GROUP_VERSION, ETCD_RESTORE_KIND } from './conventions/api.js';
import { customResourceAnnotations } from './gitops.js';
import type { EtcdRestoreSpec } from './imports/etcd.gitops.dev.js';
import { validateS3Location } from './s3-location.js';
import { validateDnsLabel } from './validate/names.js';

export interface KubeEtcdRestoreProps {
  /**
   * Object metadata.
   * @default - a name generated from the construct path
   */
  readonly metadata?: ApiObjectMetadata;
  /** Which cluster, from which backup. */
  readonly spec: EtcdRestoreSpec;
}

/** `etcd.gitops.dev/v1alpha1` `EtcdRestore`, checked at synth time and placed in the clusters' sync wave. */
export class KubeEtcdRestore extends ApiObject {
  public static readonly GVK: GroupVersionKind = { apiVersion: API_GROUP_VERSION, kind: ETCD_RESTORE_KIND };

  public constructor(scope: Construct, id: string, props: KubeEtcdRestoreProps) {
    validateDnsLabel('spec.clusterName', props.spec.clusterName);
    validateS3Location('spec.backup', props.spec.backup);
    super(scope, id, {
      ...KubeEtcdRestore.GVK,
      ...props,
      metadata: {
        ...props.metadata,
        annotations: { ...customResourceAnnotations(), ...props.metadata?.annotations },
      },
    });
  }
}
