// The CustomResourceDefinitions of etcd-gitops, generated from constructs/api.
import { ApiObject, Chart } from 'cdk8s';
import { Construct } from 'constructs';
import { type CrdManifest, etcdClusterCrd, etcdRestoreCrd } from './api/crds.js';
import { registerUnique, registryOf } from './app-registry.js';
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
    this.registerOnce();
    this.etcdCluster = this.crd('EtcdCluster', etcdClusterCrd());
    this.etcdRestore = this.crd('EtcdRestore', etcdRestoreCrd());
  }

  /** The CRDs exist once per app: twice, the second apply would fight the first over the same objects. */
  private registerOnce(): void {
    registerUnique(
      this,
      registryOf(this).crds,
      this,
      (first) =>
        `EtcdCrds '${this.node.path}' emits the CRDs a second time (they are also in '${first.node.path}'): keep one, e.g. EtcdOperator with 'crds: false' beside one EtcdCrds, or the operator's own`,
    );
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
