// The CustomResourceDefinitions of etcd-gitops, generated from constructs/api.
import { ApiObject, Chart } from 'cdk8s';
import { Construct } from 'constructs';
import { type CrdManifest, etcdClusterCrd, etcdRestoreCrd } from './api/crds.js';
import { operatorLabels } from './conventions/labels.js';
import { crdAnnotations } from './gitops.js';

/**
 * The `EtcdCluster` and `EtcdRestore` CRDs. Cluster-scoped: place it in a chart without a `namespace`.
 * Argo CD applies them in the first sync wave and never prunes or deletes them.
 */
export class EtcdCrds extends Construct {
  /** The EtcdCluster CRD (`etcdclusters.etcd.gitops.dev`). */
  public readonly etcdCluster: ApiObject;
  /** The EtcdRestore CRD (`etcdrestores.etcd.gitops.dev`). */
  public readonly etcdRestore: ApiObject;

  public constructor(scope: Construct, id: string) {
    super(scope, id);
    const namespace = Chart.of(this).namespace;
    if (namespace) {
      throw new Error(
        `EtcdCrds must be in a chart without 'namespace' (CRDs are cluster-scoped), got namespace '${namespace}'`,
      );
    }
    this.etcdCluster = this.crd('EtcdCluster', etcdClusterCrd());
    this.etcdRestore = this.crd('EtcdRestore', etcdRestoreCrd());
  }

  private crd(id: string, manifest: CrdManifest): ApiObject {
    return new ApiObject(this, id, {
      ...manifest,
      metadata: {
        ...manifest.metadata,
        labels: operatorLabels(),
        annotations: crdAnnotations(),
      },
    });
  }
}
