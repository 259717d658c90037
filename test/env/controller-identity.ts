// The controller's identity as users install it. Every environment applies the controller's Namespace,
// ServiceAccount and RBAC exactly as dist/ ships them (or as an EtcdOperator synthesizes them with `watchNamespaces`)
// and mints a token of that ServiceAccount (TokenRequest, as the kubelet does for the Deployment's Pods). Every
// controller a test runs (a process, or a reconciler driven in the test process) presents that token, so it can do
// exactly what the shipped RBAC grants and no more: a missing grant fails the e2e test that needs it.
import { join } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { App, Chart, Testing } from 'cdk8s';
import { CONTROLLER_NAME, DEFAULT_OPERATOR_NAMESPACE } from '../../constructs/conventions/names.js';
import { EtcdOperator } from '../../constructs/etcd-operator.js';
import { restrictedNamespaceLabels } from '../../constructs/security.js';
import { readManifests, toYamlStream } from './dist-manifests.js';
import { writeServiceAccountKubeconfig } from './kubeconfig.js';
import { kubectl } from './kubectl.js';
import { createNamespace } from './namespaces.js';

/** The user the API server sees for the controller's ServiceAccount token. */
export const CONTROLLER_USERNAME = `system:serviceaccount:${DEFAULT_OPERATOR_NAMESPACE}:${CONTROLLER_NAME}`;

/** What a controller of the tests runs as. */
export interface ControllerIdentity {
  /** A kubeconfig presenting the ServiceAccount's token to the environment's API server. */
  readonly kubeconfigPath: string;
  readonly kubeConfig: KubeConfig;
  /** `system:serviceaccount:<namespace>:<name>`. */
  readonly username: string;
}

export interface ControllerIdentityOptions {
  /**
   * Namespaces the controller watches, as `EtcdOperator`'s `watchNamespaces`: its RBAC is then synthesized by an
   * EtcdOperator with them (a Role in each), and the environment creates them (Pod Security `restricted`).
   * @default - dist/'s RBAC (every namespace)
   */
  readonly watchNamespaces?: readonly string[];
}

const RBAC_KINDS = new Set([
  'Namespace',
  'ServiceAccount',
  'ClusterRole',
  'ClusterRoleBinding',
  'Role',
  'RoleBinding',
]);

/** The operator's identity objects in dist/: its Namespace, ServiceAccount, ClusterRole, Roles and bindings. */
function distIdentityYaml(): string {
  const operator = readManifests().filter(
    (manifest) =>
      RBAC_KINDS.has(manifest.kind) &&
      (manifest.kind === 'Namespace'
        ? manifest.name === DEFAULT_OPERATOR_NAMESPACE
        : manifest.namespace === DEFAULT_OPERATOR_NAMESPACE || manifest.namespace === undefined),
  );
  if (!operator.some((manifest) => manifest.kind === 'ClusterRole'))
    throw new Error("dist/ holds no ClusterRole of the controller: run 'npm run synth' first");
  return toYamlStream(operator);
}

/** The same objects from an EtcdOperator synthesized with `watchNamespaces`. */
function scopedIdentityYaml(watchNamespaces: readonly string[]): string {
  const chart = new Chart(new App(), 'operator');
  new EtcdOperator(chart, 'operator', { crds: false, watchNamespaces });
  const objects = (Testing.synth(chart) as Array<{ kind: string }>).filter((object) =>
    RBAC_KINDS.has(object.kind),
  );
  return objects.map((object) => `---\n${JSON.stringify(object)}\n`).join('');
}

/** Applies the controller's identity objects and writes `<dir>/controller.kubeconfig` with a token of its ServiceAccount. */
export async function createControllerIdentity(
  admin: { kubeconfigPath: string; kubeConfig: KubeConfig },
  dir: string,
  options: ControllerIdentityOptions = {},
): Promise<ControllerIdentity> {
  for (const namespace of options.watchNamespaces ?? [])
    await createNamespace(admin.kubeConfig, namespace, restrictedNamespaceLabels());
  const yaml = options.watchNamespaces ? scopedIdentityYaml(options.watchNamespaces) : distIdentityYaml();
  await kubectl(admin.kubeconfigPath, ['apply', '--server-side', '-f', '-'], { input: yaml });
  const kubeconfigPath = join(dir, 'controller.kubeconfig');
  const kubeConfig = await writeServiceAccountKubeconfig(
    admin.kubeConfig,
    { namespace: DEFAULT_OPERATOR_NAMESPACE, name: CONTROLLER_NAME },
    kubeconfigPath,
  );
  return {
    kubeconfigPath,
    kubeConfig,
    username: CONTROLLER_USERNAME,
  };
}
