// A real Flux in the environment: the CRDs of the pinned releases and the source-controller and kustomize-controller
// built from them (their own mains), run as processes in the environment namespace as on a control-plane host, each
// with a kubeconfig of its own ServiceAccount in `flux-system`, bound as Flux's install binds them:
// kustomize-controller to cluster-admin (it applies whatever Git holds), source-controller to a ClusterRole over
// Flux's source kinds and the Secrets, ConfigMaps and Events it reads and writes. No leader election (one process
// each), no notification-controller.
//
// The objects users apply are docs/gitops/flux.yaml as the docs give it, with the GitRepository's `url` pointed at
// the environment's Git server (the file's repository is this project's on GitHub). The file's second Kustomization
// (`my-app`) names a GitRepository `my-app` the user brings: `applyDocs` creates it for the repository given.
//
// Flux notices a push when its interval comes round or a webhook Receiver asks; here `reconcileNow()` sets the
// `reconcile.fluxcd.io/requestedAt` annotation, as the Receiver and `flux reconcile` do.
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CustomObjectsApi, loadAllYaml } from '@kubernetes/client-node';
import { type FluxController, fluxBinary, fluxCrds, repoRoot } from '../binaries.js';
import { type Environment, processPlace } from '../environment.js';
import { writeServiceAccountKubeconfig } from '../kubeconfig.js';
import { freePorts } from '../ports.js';
import { type ManagedProcess, startProcess, whileRunning } from '../process-group.js';

export const FLUX_NAMESPACE = 'flux-system';
export const FLUX_DOCS_FILE = join(repoRoot, 'docs', 'gitops', 'flux.yaml');

interface Condition {
  readonly type: string;
  readonly status: string;
  readonly reason?: string;
  readonly message?: string;
  readonly lastTransitionTime?: string;
}

/** The part of a Kustomization (or GitRepository) the tests read. */
export interface FluxObject {
  readonly metadata: { name: string; generation?: number };
  readonly status?: {
    readonly observedGeneration?: number;
    readonly conditions?: Condition[];
    readonly lastAppliedRevision?: string;
  };
}

export interface Flux {
  readonly processes: readonly ManagedProcess[];
  /**
   * Applies docs/gitops/flux.yaml with its GitRepository's url set to `etcdGitops`, and the GitRepository `my-app`
   * its `my-app` Kustomization names, at `myApp`.
   */
  applyDocs(urls: { etcdGitops: string; myApp: string }): Promise<void>;
  kustomization(name: string): Promise<FluxObject>;
  gitRepository(name: string): Promise<FluxObject>;
  /** Asks for a reconciliation now, as a webhook Receiver does. */
  reconcileNow(kind: 'GitRepository' | 'Kustomization', name: string): Promise<void>;
  /** For a wait's `abortIf`: a controller's exit and log. */
  exited(): string | undefined;
  logTail(lines?: number): string;
  stop(): Promise<void>;
}

/** Installs Flux's two controllers into the environment and starts them; stopped by `stop()` or the environment's. */
export async function startFlux(env: Environment, dir: string): Promise<Flux> {
  await mkdir(join(dir, 'storage'), { recursive: true });
  await env.kubectl(['create', 'namespace', FLUX_NAMESPACE]);
  const crds = [...fluxCrds('source-controller'), ...fluxCrds('kustomize-controller')];
  await env.kubectl(['apply', '--server-side', ...crds.flatMap((file) => ['-f', file])]);
  await env.kubectl(['wait', '--for=condition=Established', '--timeout=60s', 'crd', '--all']);
  await env.kubectl(['apply', '--server-side', '-f', '-'], { input: installYaml() });
  const [storagePort, ...ports] = await freePorts(5);
  const storage = `127.0.0.1:${storagePort}`;
  const inside = processPlace(env);
  const start = async (name: FluxController, args: string[]) => {
    const kubeconfig = join(dir, `${name}.kubeconfig`);
    await writeServiceAccountKubeconfig(env.kubeConfig, { namespace: FLUX_NAMESPACE, name }, kubeconfig);
    const [metrics, health] = name === 'source-controller' ? ports.slice(0, 2) : ports.slice(2, 4);
    return env.controlPlane.adopt(
      startProcess({
        netns: inside.netns,
        name,
        command: fluxBinary(name),
        args: [
          `--metrics-addr=127.0.0.1:${metrics}`,
          `--health-addr=127.0.0.1:${health}`,
          '--enable-leader-election=false',
          '--watch-all-namespaces=true',
          '--log-encoding=console',
          ...args,
        ],
        env: { ...inside.env, KUBECONFIG: kubeconfig, RUNTIME_NAMESPACE: FLUX_NAMESPACE, TMPDIR: dir },
        logPath: join(dir, `${name}.log`),
        cwd: dir,
      }),
    );
  };
  const processes = [
    await start('source-controller', [
      `--storage-path=${join(dir, 'storage')}`,
      `--storage-addr=${storage}`,
      `--storage-adv-addr=${storage}`,
    ]),
    await start('kustomize-controller', []),
  ];
  const custom = env.kubeConfig.makeApiClient(CustomObjectsApi);
  const read = (group: string, plural: string) => async (name: string) =>
    (await custom.getNamespacedCustomObject({
      group,
      version: 'v1',
      namespace: FLUX_NAMESPACE,
      plural,
      name,
    })) as FluxObject;
  return {
    processes,
    applyDocs: async ({ etcdGitops, myApp }) => {
      const objects = loadAllYaml(await readFile(FLUX_DOCS_FILE, 'utf8')) as {
        kind: string;
        metadata: { name: string };
        spec: { url?: string };
      }[];
      const repository = objects.find((o) => o.kind === 'GitRepository');
      if (!repository) throw new Error(`${FLUX_DOCS_FILE} has no GitRepository`);
      repository.spec.url = etcdGitops;
      const app = {
        ...repository,
        metadata: { ...repository.metadata, name: 'my-app' },
        spec: { ...repository.spec, url: myApp },
      };
      await env.kubectl(['apply', '--server-side', '-f', '-'], {
        input: [...objects, app].map((o) => `---\n${JSON.stringify(o)}\n`).join(''),
      });
    },
    kustomization: read('kustomize.toolkit.fluxcd.io', 'kustomizations'),
    gitRepository: read('source.toolkit.fluxcd.io', 'gitrepositories'),
    reconcileNow: async (kind, name) => {
      await env.kubectl([
        'annotate',
        '--overwrite',
        kind === 'GitRepository'
          ? 'gitrepositories.source.toolkit.fluxcd.io'
          : 'kustomizations.kustomize.toolkit.fluxcd.io',
        name,
        '-n',
        FLUX_NAMESPACE,
        `reconcile.fluxcd.io/requestedAt=${new Date().toISOString()}`,
      ]);
    },
    exited: () => processes.map((p) => whileRunning(p)()).find(Boolean),
    logTail: (lines = 30) =>
      processes.map((p) => `--- ${p.name} (${p.exitStatus() ?? 'running'}):\n${p.logTail(lines)}`).join('\n'),
    stop: async () => {
      await Promise.all(processes.map((p) => p.stop()));
    },
  };
}

/** Flux's ServiceAccounts and their bindings, as its install makes them. */
function installYaml(): string {
  const partOf = { 'app.kubernetes.io/part-of': 'flux' };
  const serviceAccount = (name: string) => ({
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: { name, namespace: FLUX_NAMESPACE, labels: partOf },
  });
  const binding = (name: string, role: string, subject: string) => ({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name, labels: partOf },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
    subjects: [{ kind: 'ServiceAccount', name: subject, namespace: FLUX_NAMESPACE }],
  });
  const objects = [
    serviceAccount('source-controller'),
    serviceAccount('kustomize-controller'),
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'flux-source-controller', labels: partOf },
      rules: [
        { apiGroups: ['source.toolkit.fluxcd.io'], resources: ['*'], verbs: ['*'] },
        {
          apiGroups: [''],
          resources: ['secrets', 'configmaps', 'serviceaccounts'],
          verbs: ['get', 'list', 'watch'],
        },
        { apiGroups: [''], resources: ['events'], verbs: ['create', 'patch'] },
        { apiGroups: ['events.k8s.io'], resources: ['events'], verbs: ['create', 'patch'] },
      ],
    },
    binding('flux-source-controller', 'flux-source-controller', 'source-controller'),
    binding('flux-cluster-reconciler', 'cluster-admin', 'kustomize-controller'),
  ];
  return objects.map((object) => `---\n${JSON.stringify(object)}\n`).join('');
}
