// Where the locally built test binaries live. Versions come from test/env/versions.env, the one place
// they are pinned; test/env/bin-build/build.sh builds whatever is missing into the same directories.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Repository root, found from this file whether it runs from `test/env` or `build/test/env`. */
export const repoRoot = findRepoRoot(dirname(fileURLToPath(import.meta.url)));

function findRepoRoot(start: string): string {
  let dir = start;
  while (!existsSync(join(dir, 'package.json')) || !existsSync(join(dir, 'test', 'env', 'versions.env'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no repository root above ${start}`);
    dir = parent;
  }
  return dir;
}

/** The pinned versions, parsed from `test/env/versions.env`. */
export const versions: Readonly<Record<string, string>> = Object.fromEntries(
  readFileSync(join(repoRoot, 'test', 'env', 'versions.env'), 'utf8')
    .split('\n')
    .filter((line) => /^[A-Z0-9_]+=/.test(line))
    // At the first `=` only: a value may hold one (a module hash ends in `=`).
    .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
);

/** Cache directory for built binaries: `$ETCD_GITOPS_CACHE` or `~/.cache/etcd-gitops`. */
export const cacheDir = process.env.ETCD_GITOPS_CACHE ?? join(homedir(), '.cache', 'etcd-gitops');

function pinned(name: string): string {
  const value = versions[name];
  if (!value) throw new Error(`test/env/versions.env has no ${name}`);
  return value;
}

function binary(dir: string, name: string): string {
  const path = join(cacheDir, dir, name);
  if (!existsSync(path)) {
    throw new Error(
      `${path} is missing: run 'npm run binaries' (npm test, env:up, demo and bench do it first)`,
    );
  }
  return path;
}

export const kubernetesVersion = pinned('KUBERNETES_VERSION');

/**
 * The cache directory of a tool that stands beside our product only in the tests: build.sh compiles those without
 * optimizations, and their directories end in versions.env's TEST_TOOLS_BUILD label.
 */
const testToolDir = (dir: string) => `${dir}-${pinned('TEST_TOOLS_BUILD')}`;

/** A binary of the pinned Kubernetes. */
export function kubernetesBinary(
  name:
    | 'kube-apiserver'
    | 'kube-controller-manager'
    | 'kube-scheduler'
    | 'kubectl'
    | 'kubelet'
    | 'kube-proxy',
): string {
  return binary(`kubernetes-${kubernetesVersion}`, name);
}

/** The etcd versions the tests run, oldest first, as `X.Y.Z`. */
export const etcdVersions = {
  '3.4': pinned('ETCD34_DEBIAN'),
  '3.5': pinned('ETCD35_VERSION').replace(/^v/, ''),
  '3.6': pinned('ETCD36_VERSION').replace(/^v/, ''),
} as const;

/** `etcd`, `etcdctl` or `etcdutl` of an etcd version `X.Y.Z` (3.4 has no etcdutl: its etcdctl restores). */
export function etcdBinary(version: string, name: 'etcd' | 'etcdctl' | 'etcdutl'): string {
  return binary(`etcd-v${version.replace(/^v/, '')}`, name);
}

/** `etcdctl` or `etcdutl` of etcd `X.Y.Z` (3.5 and later) built for another OCI architecture (`arm64`, `amd64`). */
export function etcdToolFor(version: string, name: 'etcdctl' | 'etcdutl', architecture: string): string {
  return binary(`etcd-v${version.replace(/^v/, '')}-linux-${architecture}`, name);
}

export function minioBinary(): string {
  return binary(`minio-${pinned('MINIO_VERSION')}`, 'minio');
}

/** containerd 2.x, its runc shim and ctr, built from the Go module proxy. */
export function containerdBinary(name: 'containerd' | 'containerd-shim-runc-v2' | 'ctr'): string {
  return binary(`containerd-${pinned('CONTAINERD_VERSION')}`, name);
}

/** promtool, for the alert rule tests. */
export function promtoolBinary(): string {
  return binary(testToolDir(`prometheus-${pinned('PROMETHEUS_VERSION')}`), 'promtool');
}

/** The Prometheus server (Kubernetes service discovery only), for the image the Prometheus e2e runs. */
export function prometheusBinary(): string {
  return binary(testToolDir(`prometheus-${pinned('PROMETHEUS_VERSION')}`), 'prometheus');
}

/** distribution's `registry`, serving the images built here to the nodes (registry.ts). */
export function registryBinary(): string {
  return binary(`registry-${pinned('DISTRIBUTION_VERSION')}`, 'registry');
}

/** kube-state-metrics, for the image the Prometheus e2e runs. */
export function kubeStateMetricsBinary(): string {
  return binary(
    testToolDir(`kube-state-metrics-${pinned('KUBE_STATE_METRICS_VERSION')}`),
    'kube-state-metrics',
  );
}

/** The pinned kube-state-metrics release (its image tag). */
export function kubeStateMetricsVersion(): string {
  return pinned('KUBE_STATE_METRICS_VERSION');
}

/** The Prometheus release the pinned module version is: module v0.3XX.Y is Prometheus 3.XX.Y. */
export function prometheusRelease(): string {
  const module = pinned('PROMETHEUS_VERSION');
  const match = /^v0\.3(\d\d)\.(\d+)$/.exec(module);
  if (!match)
    throw new Error(`PROMETHEUS_VERSION ${module} is not a v0.3XX.Y module version (Prometheus 3.XX.Y)`);
  return `v3.${Number(match[1])}.${match[2]}`;
}

/** The Prometheus Operator's PodMonitor, ServiceMonitor and PrometheusRule CRDs (YAML files). */
export function prometheusOperatorCrds(): string[] {
  const dir = `prometheus-operator-crds-${pinned('PROMETHEUS_OPERATOR_VERSION')}`;
  return ['podmonitors', 'servicemonitors', 'prometheusrules'].map((name) =>
    binary(dir, `monitoring.coreos.com_${name}.yaml`),
  );
}

/** kube-router (its NetworkPolicy controller is the environment's enforcer, see nodes/kube-router.ts). */
export function kubeRouterBinary(): string {
  return binary(`kube-router-${pinned('KUBE_ROUTER_VERSION')}`, 'kube-router');
}

/**
 * A command whose main.go is in test/env/bin-build/<name>/, as build.sh's build_source_main builds it: per pinned
 * versions (the module versions it requires, in build.sh's order) and per hash of its source, so an edited main.go
 * is rebuilt by `npm run binaries`.
 */
function sourceBuiltBinary(name: string, versionNames: readonly string[]): string {
  return binary(testToolDir([name, ...versionNames.map(pinned), sourceSum(name)].join('-')), name);
}

/** test/env/bin-build/<name>/main.go. */
function mainSource(name: string): Buffer {
  return readFileSync(join(repoRoot, 'test', 'env', 'bin-build', name, 'main.go'));
}

/** The first 12 hex of the sha256 of test/env/bin-build/<name>/main.go, as build.sh keys its builds. */
function sourceSum(name: string): string {
  return createHash('sha256').update(mainSource(name)).digest('hex').slice(0, 12);
}

/** The mains of ours and the pinned versions of build.sh's build_test_tools, in the order its test_tools_key reads them. */
const testToolsMains = ['argocd', 'cert-manager'] as const;
const testToolsVersions = [
  'TEST_TOOLS_GOTOOLCHAIN',
  'ARGOCD_VERSION',
  'FLUX_SOURCE_CONTROLLER_VERSION',
  'FLUX_KUSTOMIZE_CONTROLLER_VERSION',
  'CERT_MANAGER_VERSION',
] as const;

/**
 * The key of build.sh's test_tools_key: the first 12 hex of the sha256 of one line per pinned version and per main's
 * sha256, so that a new version or an edited main is a new directory.
 */
export function testToolsKey(): string {
  const lines = [
    ...testToolsVersions.map((name) => `${name}=${pinned(name)}\n`),
    ...testToolsMains.map(
      (name) => `${name}=${createHash('sha256').update(mainSource(name)).digest('hex')}\n`,
    ),
  ];
  return createHash('sha256').update(lines.join('')).digest('hex').slice(0, 12);
}

/**
 * One of the test tools build.sh's build_test_tools builds in one go build: Argo CD, Flux's two controllers and
 * cert-manager's controller.
 */
function testToolsBinary(name: 'argocd' | 'cert-manager' | FluxController): string {
  return binary(testToolDir(`test-tools-${testToolsKey()}`), name);
}

/** CoreDNS (test/env/bin-build/coredns/main.go) at the pinned release, with the plugins the Corefile uses. */
export function corednsBinary(): string {
  return sourceBuiltBinary('coredns', ['COREDNS_VERSION']);
}

/** health-check (test/env/bin-build/health-check/main.go): kstatus and Flux's CEL health checks. */
export function healthCheckBinary(): string {
  return sourceBuiltBinary('health-check', ['CLI_UTILS_VERSION', 'FLUX_RUNTIME_VERSION']);
}

/** cert-manager's controller (test/env/bin-build/cert-manager/main.go) at the pinned release. */
export function certManagerBinary(): string {
  return testToolsBinary('cert-manager');
}

/** cert-manager's CRDs (YAML files) from the pinned release's module. */
export function certManagerCrds(): string[] {
  const dir = `cert-manager-crds-${pinned('CERT_MANAGER_VERSION')}`;
  return ['certificaterequests', 'certificates', 'clusterissuers', 'issuers'].map((plural) =>
    binary(dir, `cert-manager.io_${plural}.yaml`),
  );
}

/** Argo CD (test/env/bin-build/argocd/main.go): application-controller, repo-server and its health assessment. */
export function argocdBinary(): string {
  return testToolsBinary('argocd');
}

const argocdFiles = (file: string) => binary(`argocd-files-${pinned('ARGOCD_VERSION')}`, file);

/** Argo CD's Application and AppProject CRDs (YAML files) from the pinned release's module. */
export function argocdCrds(): string[] {
  return ['application-crd.yaml', 'appproject-crd.yaml'].map(argocdFiles);
}

/** The scripts Argo CD's image puts on the repo-server's PATH (git-verify-wrapper.sh, gpg-wrapper.sh), from its module. */
export function argocdScripts(): string[] {
  return ['git-verify-wrapper.sh', 'gpg-wrapper.sh'].map(argocdFiles);
}

/** A Flux controller at its pinned release, as build.sh's build_test_tools builds it. */
export type FluxController = 'source-controller' | 'kustomize-controller';
const fluxVersion = (name: FluxController) =>
  pinned(
    name === 'source-controller' ? 'FLUX_SOURCE_CONTROLLER_VERSION' : 'FLUX_KUSTOMIZE_CONTROLLER_VERSION',
  );

export function fluxBinary(name: FluxController): string {
  return testToolsBinary(name);
}

/** The CRDs (YAML files) of a Flux controller's pinned release: every kind it reconciles. */
export function fluxCrds(name: FluxController): string[] {
  const dir = binary(`${name}-crds-${fluxVersion(name)}`, '');
  return readdirSync(dir)
    .filter((file) => file.endsWith('.yaml'))
    .sort()
    .map((file) => join(dir, file));
}

/**
 * Every lookup above that finds a built file, by its export name, called as a test calls it: it returns once the
 * build that makes the file has finished and throws before. Each build moves its directory into the cache at once,
 * so one file of a directory stands for all of it. The test runner starts an integration or e2e file only once every
 * lookup the file imports returns (test/env/pending-builds.ts), while `npm test` builds the rest beside the tests
 * (scripts/test.mjs, build.sh's `rest`). etcd's lookups are not here: build.sh's `first` makes their files before
 * any test starts.
 */
export const lookups: Readonly<Record<string, () => unknown>> = {
  kubernetesBinary: () => kubernetesBinary('kubelet'),
  minioBinary,
  containerdBinary: () => containerdBinary('containerd'),
  promtoolBinary,
  prometheusBinary,
  registryBinary,
  kubeStateMetricsBinary,
  prometheusOperatorCrds,
  kubeRouterBinary,
  corednsBinary,
  healthCheckBinary,
  certManagerBinary,
  certManagerCrds,
  argocdBinary,
  argocdCrds,
  argocdScripts,
  fluxBinary: () => fluxBinary('source-controller'),
  fluxCrds: () => [fluxCrds('source-controller'), fluxCrds('kustomize-controller')],
};
