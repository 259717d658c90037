// A real Argo CD in the environment: the CRDs of the pinned release, its application-controller and repo-server (our
// build of Argo CD's own commands, bin-build/argocd/main.go) and a Redis (Debian's redis-server), run as processes in
// the environment namespace as on a control-plane host, without the API server, UI or Dex (the tests read and write
// Argo CD's objects with kubectl, as `argocd --core` does).
//
// What users install is installed as they install it: the `argocd` namespace, Argo CD's CRDs, the ConfigMap
// docs/gitops/argocd-cm.yaml exactly as the README tells users to merge it (the only argocd-cm here, so the merge
// is the file), and an Application that is docs/gitops/argocd-application.yaml with `repoURL` pointed at the
// environment's Git server (the file tells users to replace it). What Argo CD's own install does besides: an empty
// `argocd-secret`, the `default` AppProject (argocd-server creates it on start; no argocd-server runs here), and the
// application-controller's ServiceAccount bound to a ClusterRole of every verb on every resource, as install.yaml
// binds it. The controller reaches the in-cluster destination (https://kubernetes.default.svc) through a kubeconfig
// of that ServiceAccount (ARGOCD_FAKE_IN_CLUSTER, Argo CD's switch for a controller outside a Pod).
//
// Argo CD notices a push when a webhook tells argocd-server, which sets the Application's refresh annotation; here
// `refresh()` sets that annotation after a test's commit (without it the controller polls every 3 minutes).
import { mkdir, readFile, symlink } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { CustomObjectsApi, loadYaml } from '@kubernetes/client-node';
import { argocdBinary, argocdCrds, argocdScripts, repoRoot } from '../binaries.js';
import { type Environment, processPlace } from '../environment.js';
import { writeServiceAccountKubeconfig } from '../kubeconfig.js';
import { freePorts } from '../ports.js';
import { type ManagedProcess, startProcess, whileRunning } from '../process-group.js';
import { waitFor } from '../wait.js';

export const ARGOCD_NAMESPACE = 'argocd';
const CONTROLLER_SA = 'argocd-application-controller';
const GROUP = 'argoproj.io';
const VERSION = 'v1alpha1';
/** The docs' Application users copy (its `repoURL` to be replaced) and the argocd-cm keys they merge. */
export const ARGOCD_APPLICATION_FILE = join(repoRoot, 'docs', 'gitops', 'argocd-application.yaml');
export const ARGOCD_CM_FILE = join(repoRoot, 'docs', 'gitops', 'argocd-cm.yaml');

/** One managed resource in an Application's status. */
export interface ManagedResource {
  readonly group?: string;
  readonly kind: string;
  readonly namespace?: string;
  readonly name: string;
  readonly status?: string;
  readonly health?: { status?: string; message?: string };
  readonly requiresPruning?: boolean;
}

/** The part of an Application the tests read. */
export interface Application {
  readonly metadata: { name: string; annotations?: Record<string, string> };
  readonly spec: Record<string, unknown>;
  readonly status?: {
    readonly sync?: { status?: string; revision?: string };
    readonly health?: { status?: string; message?: string };
    readonly resources?: ManagedResource[];
    readonly conditions?: { type: string; message?: string }[];
    readonly operationState?: {
      operation?: { initiatedBy?: { automated?: boolean; username?: string } };
      phase?: string;
      message?: string;
      startedAt?: string;
      finishedAt?: string;
      syncResult?: {
        revision?: string;
        resources?: { group?: string; kind: string; name: string; namespace?: string; status?: string }[];
      };
    };
  };
}

export interface SyncedOptions {
  /** The Application's health to wait for; `null`: any. @default 'Healthy' */
  readonly health?: string | null;
  /**
   * `OutOfSync`: the commit leaves objects Argo CD must not prune (Prune=false) still in the cluster; then a sync
   * operation at the revision must have Succeeded, and every resource not Synced must require pruning.
   * @default 'Synced'
   */
  readonly sync?: 'Synced' | 'OutOfSync';
  /** @default 180 s */
  readonly timeoutMs?: number;
}

export interface ArgoCd {
  readonly processes: readonly ManagedProcess[];
  /** Creates the docs' Application with `repoURL`; returns its name. */
  createApplication(repoURL: string): Promise<string>;
  /** The Application as the API server has it. */
  application(name: string): Promise<Application>;
  /** Tells Argo CD to look at Git now, as a push webhook does (the refresh annotation). */
  refresh(name: string): Promise<void>;
  /**
   * Waits until the Application is Synced (or `OutOfSync` only by what must not be pruned) at `revision`, no sync
   * operation is running, one at `revision` (if any: a commit that only removes objects Argo CD leaves needs none)
   * Succeeded, and its health is `health`; fails early with the controllers' logs when one exits.
   */
  synced(name: string, revision: string, options?: SyncedOptions): Promise<Application>;
  /** The last lines of the application-controller's log. */
  logTail(lines?: number): string;
  stop(): Promise<void>;
}

/** Installs Argo CD into the environment and starts it; stopped by `stop()` or the environment's. */
export async function startArgoCd(env: Environment, dir: string): Promise<ArgoCd> {
  await mkdir(join(dir, 'home'), { recursive: true });
  await mkdir(join(dir, 'tmp'), { recursive: true });
  // What Argo CD's image has on its PATH: `argocd` (git runs it as the credential helper) and its git wrappers.
  const bin = join(dir, 'bin');
  await mkdir(bin, { recursive: true });
  for (const file of [argocdBinary(), ...argocdScripts()]) {
    await symlink(file, join(bin, file === argocdBinary() ? 'argocd' : basename(file)));
  }
  await env.kubectl(['create', 'namespace', ARGOCD_NAMESPACE]);
  await env.kubectl(['apply', '--server-side', ...argocdCrds().flatMap((file) => ['-f', file])]);
  await env.kubectl([
    'wait',
    '--for=condition=Established',
    '--timeout=60s',
    `crd/applications.${GROUP}`,
    `crd/appprojects.${GROUP}`,
  ]);
  await env.kubectl(['apply', '--server-side', '-f', ARGOCD_CM_FILE]);
  await env.kubectl(['apply', '--server-side', '-f', '-'], { input: installYaml() });
  const kubeconfigPath = join(dir, 'argocd-application-controller.kubeconfig');
  await writeServiceAccountKubeconfig(
    env.kubeConfig,
    { namespace: ARGOCD_NAMESPACE, name: CONTROLLER_SA },
    kubeconfigPath,
  );
  const [redisPort, repoPort, repoMetricsPort, controllerMetricsPort] = await freePorts(4);
  const inside = processPlace(env);
  const start = (name: string, command: string, args: string[], extraEnv: Record<string, string> = {}) =>
    env.controlPlane.adopt(
      startProcess({
        netns: inside.netns,
        name,
        command,
        args,
        env: {
          ...inside.env,
          HOME: join(dir, 'home'),
          TMPDIR: join(dir, 'tmp'),
          PATH: `${bin}:${process.env.PATH}`,
          ...extraEnv,
        },
        logPath: join(dir, `${name}.log`),
        cwd: dir,
      }),
    );
  const redis = start('argocd-redis', '/usr/bin/redis-server', [
    '--bind',
    '127.0.0.1',
    '--port',
    String(redisPort),
    '--save',
    '',
    '--appendonly',
    'no',
    '--dir',
    dir,
  ]);
  const redisAddress = `127.0.0.1:${redisPort}`;
  const repoServer = start(
    'argocd-repo-server',
    argocdBinary(),
    [
      'repo-server',
      '--address=127.0.0.1',
      `--port=${repoPort}`,
      '--metrics-address=127.0.0.1',
      `--metrics-port=${repoMetricsPort}`,
      '--disable-tls',
      '--client-ca-path=',
      `--redis=${redisAddress}`,
      '--logformat=text',
    ],
    // No GnuPG here: signature verification is off, as for any Application without signature keys.
    { ARGOCD_GPG_ENABLED: 'false' },
  );
  const controller = start(
    'argocd-application-controller',
    argocdBinary(),
    [
      'application-controller',
      `--namespace=${ARGOCD_NAMESPACE}`,
      `--repo-server=127.0.0.1:${repoPort}`,
      '--repo-server-plaintext',
      `--redis=${redisAddress}`,
      `--metrics-port=${controllerMetricsPort}`,
      '--logformat=text',
    ],
    { KUBECONFIG: kubeconfigPath, ARGOCD_FAKE_IN_CLUSTER: 'true' },
  );
  const processes = [redis, repoServer, controller];
  const custom = env.kubeConfig.makeApiClient(CustomObjectsApi);
  const application = async (name: string) =>
    (await custom.getNamespacedCustomObject({
      group: GROUP,
      version: VERSION,
      namespace: ARGOCD_NAMESPACE,
      plural: 'applications',
      name,
    })) as Application;
  const anyExited = () => processes.map((p) => whileRunning(p)()).find(Boolean);
  const logs = (lines = 30) =>
    processes.map((p) => `--- ${p.name} (${p.exitStatus() ?? 'running'}):\n${p.logTail(lines)}`).join('\n');
  return {
    processes,
    createApplication: async (repoURL) => {
      const app = loadYaml(await readFile(ARGOCD_APPLICATION_FILE, 'utf8')) as {
        metadata: { name: string };
        spec: { source: { repoURL: string } };
      };
      app.spec.source.repoURL = repoURL;
      await env.kubectl(['apply', '--server-side', '-f', '-'], { input: JSON.stringify(app) });
      return app.metadata.name;
    },
    application,
    refresh: async (name) => {
      await env.kubectl([
        'annotate',
        '--overwrite',
        'applications.argoproj.io',
        name,
        '-n',
        ARGOCD_NAMESPACE,
        'argocd.argoproj.io/refresh=normal',
      ]);
    },
    synced: async (name, revision, options = {}) => {
      const health = options.health === undefined ? 'Healthy' : options.health;
      const sync = options.sync ?? 'Synced';
      let last: Application | undefined;
      try {
        return await waitFor(
          async () => {
            last = await application(name);
            const s = last.status;
            // A commit that only drops objects Argo CD must leave (Prune=false) needs no sync operation; any
            // operation at this revision must have finished and succeeded.
            const operation = s?.operationState;
            const atRevision = operation?.syncResult?.revision === revision;
            const operationDone =
              !operation ||
              (operation.phase !== 'Running' &&
                operation.phase !== 'Terminating' &&
                (!atRevision || operation.phase === 'Succeeded'));
            const syncOk =
              sync === 'Synced'
                ? s?.sync?.status === 'Synced'
                : s?.sync?.status === 'OutOfSync' &&
                  atRevision &&
                  (s.resources ?? []).every((r) => r.status === 'Synced' || r.requiresPruning);
            return syncOk &&
              s?.sync?.revision === revision &&
              operationDone &&
              (health === null || s.health?.status === health)
              ? last
              : undefined;
          },
          {
            what: `Application ${name} ${sync} at ${revision.slice(0, 8)}${health === null ? '' : ` and ${health}`}`,
            timeoutMs: options.timeoutMs ?? 180_000,
            intervalMs: 500,
            abortIf: anyExited,
          },
        );
      } catch (error) {
        throw new Error(
          `${(error as Error).message}\nlast status: ${JSON.stringify(summary(last))}\n${logs()}`,
        );
      }
    },
    logTail: (lines) => controller.logTail(lines),
    stop: async () => {
      await Promise.all([controller.stop(), repoServer.stop()]);
      await redis.stop();
    },
  };
}

/** What a failure message shows of an Application: sync, health, operation and the resources not Synced/Healthy. */
export function summary(app: Application | undefined): unknown {
  const s = app?.status;
  return {
    sync: s?.sync,
    health: s?.health,
    operation: s?.operationState && {
      phase: s.operationState.phase,
      message: s.operationState.message,
      revision: s.operationState.syncResult?.revision,
    },
    conditions: s?.conditions,
    resources: s?.resources
      ?.filter((r) => r.status !== 'Synced' || (r.health && r.health.status !== 'Healthy'))
      .map((r) => `${r.kind}/${r.namespace ?? ''}/${r.name}: ${r.status} ${r.health?.status ?? ''}`),
  };
}

/** What Argo CD's install.yaml (and argocd-server, for the project) create besides the ConfigMap users edit. */
function installYaml(): string {
  const partOf = { 'app.kubernetes.io/part-of': 'argocd' };
  const objects = [
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'argocd-secret', namespace: ARGOCD_NAMESPACE, labels: partOf },
      type: 'Opaque',
    },
    {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: CONTROLLER_SA, namespace: ARGOCD_NAMESPACE, labels: partOf },
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: CONTROLLER_SA, labels: partOf },
      rules: [
        { apiGroups: ['*'], resources: ['*'], verbs: ['*'] },
        { nonResourceURLs: ['*'], verbs: ['*'] },
      ],
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: CONTROLLER_SA, labels: partOf },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: CONTROLLER_SA },
      subjects: [{ kind: 'ServiceAccount', name: CONTROLLER_SA, namespace: ARGOCD_NAMESPACE }],
    },
    {
      apiVersion: `${GROUP}/${VERSION}`,
      kind: 'AppProject',
      metadata: { name: 'default', namespace: ARGOCD_NAMESPACE },
      spec: {
        sourceRepos: ['*'],
        destinations: [{ server: '*', namespace: '*' }],
        clusterResourceWhitelist: [{ group: '*', kind: '*' }],
      },
    },
  ];
  return objects.map((object) => `---\n${JSON.stringify(object)}\n`).join('');
}
