// The namespace of etcd clusters, when a cluster creates it: Pod Security `restricted` (member Pods meet it), and
// always protected from deletion: deleting it deletes the member volumes in it, whatever the cluster's own
// `deletionProtection` and `whenDeleted` say.
import { Chart, JsonPatch } from 'cdk8s';
import { k8s } from 'cdk8s-plus-27';
import type { Construct } from 'constructs';
import { groupOf, registerUnique, registryOf } from '../app-registry.js';
import { LABEL_MANAGED_BY, LABEL_PART_OF, MANAGED_BY } from '../conventions/labels.js';
import { deletionProtection, SYNC_WAVE, SyncWave } from '../gitops.js';
import { restrictedNamespaceLabels } from '../security.js';

/** A Namespace `name` under `scope`; synth fails, naming both, when another construct of the app creates it too. */
export function createClusterNamespace(scope: Construct, name: string): k8s.KubeNamespace {
  const namespace = new k8s.KubeNamespace(scope, 'Namespace', {
    metadata: {
      name,
      labels: { [LABEL_MANAGED_BY]: MANAGED_BY, [LABEL_PART_OF]: MANAGED_BY, ...restrictedNamespaceLabels() },
      annotations: { [SYNC_WAVE]: SyncWave.CLUSTERS, ...deletionProtection() },
    },
  });
  // cdk8s stamps the chart's namespace onto every object; a Namespace is cluster-scoped and has none.
  if (Chart.of(scope).namespace) namespace.addJsonPatch(JsonPatch.remove('/metadata/namespace'));
  registerUnique(
    namespace,
    groupOf(registryOf(scope).namespaces, name),
    namespace,
    (first) =>
      `Namespace '${name}' is created twice, here and by '${first.node.path}': set 'createNamespace' on one cluster of the namespace only`,
  );
  return namespace;
}
