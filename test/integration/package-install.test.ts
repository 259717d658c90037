// The package users install, tried as they would: packed from a clean copy of the repository, installed from the
// tarball into (a) an ES module cdk8s app and (b) a CommonJS app made from the `cdk8s init typescript-app`
// template that cdk8s-cli ships (its tsconfig, jest config and dev dependencies), which compiles, runs its jest
// tests and synthesizes. Both run on this machine's Node.js and on the Node.js 22 our image ships; the CommonJS
// app installs the lowest cdk8s, constructs and cdk8s-plus-27 the peer ranges accept, the ES module app the ones
// this repository builds with. npm installs from the registry (its cache makes later runs quick).
import assert from 'node:assert/strict';
import { type SpawnSyncOptions, spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Yaml } from 'cdk8s';
import { type NodeRuntime, nodeRuntime } from '../../image/node-runtime.js';
import { repoRoot } from '../env/binaries.js';
import { type ControlPlane, startControlPlane } from '../env/control-plane.js';
import { kubectl } from '../env/kubectl.js';

const work = mkdtempSync(join(tmpdir(), 'egt-package-'));
after(() => rmSync(work, { recursive: true, force: true }));
const appTmp = join(work, 'tmp');
mkdirSync(appTmp);

/** What the controller needs and a user's app must never get. */
const CONTROLLER_ONLY = [
  '@kubernetes/client-node',
  'etcd3',
  '@aws-sdk/client-s3',
  'pino',
  'prom-client',
  'cockatiel',
];
const PEERS = ['cdk8s', 'constructs', 'cdk8s-plus-27'];
/** The cdk8s-plus-33 the npm registry served on 2026-11-26 (cdk8s-cli's template asks for ^2.x of it). */
const PLUS_33 = '2.5.57';

interface Manifest {
  name: string;
  version: string;
  keywords?: string[];
  repository?: { url?: string };
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

/** Runs `command`, failing the test with its output unless it exits 0. npm's own `npm_*` variables (set when the
 *  tests run under `npm test`) are dropped, so they do not configure the npm the test runs. */
function sh(command: string, args: string[], cwd: string, options: SpawnSyncOptions = {}): string {
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key)));
  const run = spawnSync(command, args, {
    cwd,
    encoding: 'utf8',
    maxBuffer: 1 << 26,
    // The apps' own temp files (jest's cache, cdk8s Testing out dirs) go under the test's dir, removed with it.
    env: { ...env, TMPDIR: appTmp, npm_config_update_notifier: 'false', ...options.env },
    ...options,
  });
  assert.equal(
    run.status,
    0,
    `${command} ${args.join(' ')} (in ${cwd}) exited ${run.status}:\n${run.stdout}\n${run.stderr}`,
  );
  return String(run.stdout);
}

const npmFlags = ['--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'];
const npmInstall = ['install', ...npmFlags];

/** The tracked and not-ignored files of the working tree: what a clean clone of it holds, nothing built. */
function cleanCopy(target: string): void {
  const files = sh('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], repoRoot)
    .split('\0')
    .filter((file) => file && existsSync(join(repoRoot, file)));
  for (const file of files) {
    mkdirSync(dirname(join(target, file)), { recursive: true });
    cpSync(join(repoRoot, file), join(target, file));
  }
}

function readManifest(path: string): Manifest {
  return JSON.parse(readFileSync(path, 'utf8')) as Manifest;
}

/** The version of `name` this repository's lockfile installs. */
function lockedVersion(name: string): string {
  const lock = JSON.parse(readFileSync(join(repoRoot, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { version?: string }>;
  };
  const version = lock.packages[`node_modules/${name}`]?.version;
  assert.ok(version, `package-lock.json has no ${name}`);
  return version;
}

/** Every installed copy of `name` in `app`, by `npm ls` (one line per place in the tree, deduped or not). */
function copiesOf(app: string, name: string): string[] {
  const tree = JSON.parse(sh('npm', ['ls', name, '--all', '--json', '--long'], app)) as NpmTree;
  const paths = new Set<string>();
  const walk = (node: NpmTree) => {
    for (const [dep, child] of Object.entries(node.dependencies ?? {})) {
      if (dep === name && child.path) paths.add(child.path);
      walk(child);
    }
  };
  walk(tree);
  return [...paths];
}

interface NpmTree {
  path?: string;
  dependencies?: Record<string, NpmTree>;
}

/** Controller-only packages anywhere under `app`'s node_modules. */
function controllerPackagesIn(app: string): string[] {
  const found: string[] = [];
  const walk = (nodeModules: string) => {
    if (!existsSync(nodeModules)) return;
    for (const name of CONTROLLER_ONLY) {
      if (existsSync(join(nodeModules, name, 'package.json')))
        found.push(relative(app, join(nodeModules, name)));
    }
    for (const entry of readdirSync(nodeModules, { withFileTypes: true })) {
      if (!entry.isDirectory() || entry.name.startsWith('.')) continue;
      const scoped = entry.name.startsWith('@')
        ? readdirSync(join(nodeModules, entry.name)).map((n) => join(entry.name, n))
        : [entry.name];
      for (const pkg of scoped) walk(join(nodeModules, pkg, 'node_modules'));
    }
  };
  walk(join(app, 'node_modules'));
  return found;
}

/** The synthesized YAML of an app's `dist/`, all files. */
function distYaml(app: string): string {
  return readdirSync(join(app, 'dist'))
    .map((file) => readFileSync(join(app, 'dist', file), 'utf8'))
    .join('\n---\n');
}

/** A real API server (no nodes) for Pod Security admission; started by the first test that needs it. */
let controlPlane: ControlPlane | undefined;
after(async () => controlPlane?.stop());

interface DistObject {
  kind: string;
  metadata: { name: string; namespace?: string };
  spec?: {
    template?: { metadata?: { labels?: Record<string, string> }; spec?: object };
    selector?: { matchLabels: Record<string, string> };
    ingress?: Array<{ from: object[]; ports: Array<{ port: number }> }>;
  };
}

/** The objects of an app's `dist/`, plain, as written (client-node's loadAllYaml would turn them into its models,
 *  `from` into `_from`). */
function distObjects(app: string): DistObject[] {
  return readdirSync(join(app, 'dist')).flatMap((file) => Yaml.load(join(app, 'dist', file))) as DistObject[];
}

/**
 * What a real API server's Pod Security admission says of each named Deployment's Pods in `namespace`: the app's
 * own Namespace object `namespace` (as it synthesized it) is applied first, then one Pod from each Deployment's
 * template is created with a server-side dry run (the admission check a ReplicaSet's Pods meet). Exit code and
 * stderr per Deployment.
 */
async function podAdmission(
  app: string,
  namespace: string,
  deployments: readonly string[],
): Promise<Record<string, { code: number; stderr: string }>> {
  controlPlane ??= await startControlPlane({ waitForControllers: false });
  const { kubeconfigPath } = controlPlane;
  const objects = distObjects(app);
  const ns = objects.find((o) => o.kind === 'Namespace' && o.metadata.name === namespace);
  assert.ok(ns, `the app synthesizes Namespace ${namespace}`);
  await kubectl(kubeconfigPath, ['apply', '--server-side', '-f', '-'], { input: JSON.stringify(ns) });
  const verdicts: Record<string, { code: number; stderr: string }> = {};
  for (const name of deployments) {
    const deployment = objects.find((o) => o.kind === 'Deployment' && o.metadata.name.includes(name));
    const template = deployment?.spec?.template;
    assert.ok(template?.spec, `the ${name} Deployment's Pod template`);
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: `${name}-pod`, namespace, labels: template.metadata?.labels ?? {} },
      spec: template.spec,
    };
    const result = await kubectl(kubeconfigPath, ['create', '--dry-run=server', '-f', '-'], {
      input: JSON.stringify(pod),
      allowFailure: true,
    });
    verdicts[name] = { code: result.code, stderr: result.stderr };
  }
  return verdicts;
}

let tarball = '';
let packed: { files: { path: string }[] } = { files: [] };
let node22: NodeRuntime;

before(async () => {
  const clone = join(work, 'repo');
  cleanCopy(clone);
  // What the library's build needs and no more: the root's TypeScript and the library's own dev dependencies.
  sh('npm', ['ci', '--workspace=etcd-gitops', '--include-workspace-root', ...npmFlags], clone);
  const [result] = JSON.parse(
    sh(
      'npm',
      ['pack', '--workspace=etcd-gitops', '--pack-destination', work, '--json', '--loglevel=error'],
      clone,
    ),
  ) as { filename: string; files: { path: string }[] }[];
  assert.ok(result);
  tarball = join(work, result.filename);
  packed = result;
  node22 = await nodeRuntime();
});

describe('the etcd-gitops package', () => {
  it('GIVEN a clean clone WHEN the library is packed THEN the tarball holds the compiled library, its types, README, LICENSE and package.json, nothing else', () => {
    const sources = (dir: string): string[] =>
      readdirSync(join(repoRoot, dir), { withFileTypes: true }).flatMap((entry) => {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) return entry.name === 'lib' ? [] : sources(path);
        return entry.name.endsWith('.ts') ? [relative('constructs', path).replace(/\.ts$/, '')] : [];
      });
    const modules = sources('constructs');
    assert.ok(modules.includes('index') && modules.includes('conventions/cli/codec'), modules.join(', '));
    const expected = [
      'LICENSE',
      'README.md',
      'package.json',
      'lib/cjs/package.json',
      ...modules.flatMap((m) =>
        ['esm', 'cjs'].flatMap((format) => [`lib/${format}/${m}.js`, `lib/${format}/${m}.d.ts`]),
      ),
    ].sort();
    assert.deepEqual(packed.files.map((f) => f.path).sort(), expected);

    const unpacked = join(work, 'unpacked');
    mkdirSync(unpacked);
    sh('tar', ['-xzf', tarball, '-C', unpacked], work);
    const manifest = readManifest(join(unpacked, 'package', 'package.json'));
    assert.equal(manifest.name, 'etcd-gitops');
    assert.ok(manifest.keywords?.includes('cdk8s'), 'keywords name cdk8s');
    assert.match(manifest.repository?.url ?? '', /github\.com\/etcd-gitops\/etcd-gitops/);
    assert.deepEqual(manifest.dependencies ?? {}, {});
    assert.deepEqual(Object.keys(manifest.peerDependencies ?? {}).sort(), [...PEERS].sort());
    assert.match(readFileSync(join(unpacked, 'package', 'LICENSE'), 'utf8'), /Apache License\s+Version 2\.0/);
    assert.ok(!existsSync(join(work, 'repo', 'constructs', 'LICENSE')), 'postpack removed the LICENSE copy');
  });

  it('GIVEN an ES module cdk8s app WHEN it installs the tarball, compiles and synthesizes on Node.js 20 and 22 THEN the operator and both clusters are in dist/, with one cdk8s and no controller dependency', () => {
    const app = join(work, 'esm-app');
    cpSync(join(repoRoot, 'test', 'fixtures', 'package-apps', 'esm'), app, { recursive: true });
    const dependencies = Object.fromEntries(PEERS.map((name) => [name, lockedVersion(name)]));
    writeFileSync(
      join(app, 'package.json'),
      JSON.stringify({ name: 'esm-app', private: true, type: 'module', dependencies }, null, 2),
    );
    sh('npm', [...npmInstall, tarball], app);
    sh(join(repoRoot, 'node_modules', '.bin', 'tsc'), ['-p', 'tsconfig.json'], app);

    for (const node of [process.execPath, node22.node]) {
      rmSync(join(app, 'dist'), { recursive: true, force: true });
      sh(node, ['main.js'], app);
      const yaml = distYaml(app);
      assert.match(yaml, /name: ETCD_ENDPOINTS\n\s+value: http:\/\/payments-etcd-client\.payments\.svc:2379/);
      assert.match(yaml, /kind: CustomResourceDefinition/);
      assert.match(yaml, /kind: EtcdCluster\nmetadata:[\s\S]*?name: payments-etcd\n {2}namespace: payments/);
      assert.match(yaml, /kind: EtcdCluster\nmetadata:[\s\S]*?name: orders-etcd\n {2}namespace: orders/);
      assert.match(yaml, /name: payments-etcd-backup\n/);
      // The cluster found the operator in etcd-system: its NetworkPolicy lets the controller in from there.
      assert.match(yaml, /kubernetes\.io\/metadata\.name: etcd-system/);
    }
    for (const name of ['cdk8s', 'constructs']) assert.equal(copiesOf(app, name).length, 1, name);
    assert.deepEqual(controllerPackagesIn(app), []);
    // The scan finds them where they are: the repository installs the controller's dependencies.
    assert.ok(controllerPackagesIn(repoRoot).includes('node_modules/etcd3'));
  });

  it('GIVEN the app `cdk8s init typescript-app` creates (CommonJS, ts-jest) with the lowest peers the ranges accept WHEN it compiles, runs its jest tests and synthesizes on Node.js 20 and 22 THEN all pass, with one cdk8s and no controller dependency, and its cdk8s-plus-27 client (the JSON patch the README shows) is admitted in the restricted namespace the cluster creates', async () => {
    const template = join(repoRoot, 'node_modules', 'cdk8s-cli', 'templates', 'typescript-app');
    const app = join(work, 'cjs-app');
    mkdirSync(app);
    for (const file of ['tsconfig.json', 'jest.config.js']) cpSync(join(template, file), join(app, file));
    cpSync(join(repoRoot, 'test', 'fixtures', 'package-apps', 'cjs'), app, { recursive: true });
    const templateManifest = readManifest(join(template, 'package.json'));
    const lib = readManifest(join(repoRoot, 'constructs', 'package.json'));
    // `^2.70.0` → 2.70.0: the oldest release each peer range claims to work with.
    const lowest = Object.fromEntries(
      PEERS.map((name) => [name, (lib.peerDependencies?.[name] ?? '').replace(/^\^/, '')]),
    );
    // The template's dev dependencies (jest, ts-jest, TypeScript 5.9, …) but not the CLI and ts-node it uses for
    // `cdk8s synth`: the test runs the compiled main.js instead.
    const devDependencies = Object.fromEntries(
      Object.entries(templateManifest.devDependencies ?? {}).filter(
        ([name]) => !['cdk8s-cli', 'ts-node'].includes(name),
      ),
    );
    assert.ok(devDependencies.jest && devDependencies['ts-jest'] && devDependencies.typescript);
    writeFileSync(
      join(app, 'package.json'),
      JSON.stringify(
        {
          name: 'cjs-app',
          version: '1.0.0',
          main: 'main.js',
          private: true,
          dependencies: lowest,
          devDependencies,
        },
        null,
        2,
      ),
    );
    sh('npm', [...npmInstall, tarball], app);
    assert.equal(readManifest(join(app, 'node_modules', 'cdk8s', 'package.json')).version, lowest.cdk8s);

    sh(join(app, 'node_modules', '.bin', 'tsc'), ['--build'], app); // the template's `npm run compile`
    const jest = join(app, 'node_modules', 'jest', 'bin', 'jest.js');
    for (const node of [process.execPath, node22.node]) {
      rmSync(join(app, 'dist'), { recursive: true, force: true });
      const tests = spawnSync(node, [jest, '--ci'], {
        cwd: app,
        encoding: 'utf8',
        env: { ...process.env, TMPDIR: appTmp },
      });
      assert.equal(tests.status, 0, `jest on ${node}:\n${tests.stdout}\n${tests.stderr}`);
      assert.match(tests.stderr, /Tests: +2 passed, 2 total/);
      sh(node, ['main.js'], app);
      assert.match(distYaml(app), /kind: EtcdCluster\nmetadata:[\s\S]*?name: main-etcd\n {2}namespace: web/);
    }
    for (const name of ['cdk8s', 'constructs']) assert.equal(copiesOf(app, name).length, 1, name);
    assert.deepEqual(controllerPackagesIn(app), []);
    const { web } = await podAdmission(app, 'web', ['web']);
    assert.equal(web?.code, 0, `the plus-27 client's Pod in restricted 'web': ${web?.stderr}`);
  });

  it(`GIVEN today's \`cdk8s init\` app, on cdk8s-plus-33 ${PLUS_33} as its template installs WHEN its plus-33 Deployments are given to clients and allowFrom() and plus-33 Pods.select() to allowMetricsFrom() THEN it compiles under the template's strict tsconfig and the NetworkPolicy admits exactly those Pods; the README's plus-33 client with its own certificate is admitted in a restricted namespace, a default plus-33 Pod is not`, async () => {
    const template = join(repoRoot, 'node_modules', 'cdk8s-cli', 'templates', 'typescript-app');
    const templateManifest = readManifest(join(template, 'package.json'));
    assert.ok(
      templateManifest.dependencies?.['cdk8s-plus-33'],
      "cdk8s-cli's template installs cdk8s-plus-33",
    );
    // The template's TypeScript and Node.js types, as its `npm run compile` uses them.
    const tools = ['typescript', '@types/node'].map(
      (name) => `${name}@${templateManifest.devDependencies?.[name] ?? ''}`,
    );
    const app = join(work, 'plus33-app');
    mkdirSync(app);
    cpSync(join(template, 'tsconfig.json'), join(app, 'tsconfig.json'));
    cpSync(join(repoRoot, 'test', 'fixtures', 'package-apps', 'plus33'), app, { recursive: true });
    const dependencies = {
      cdk8s: lockedVersion('cdk8s'),
      constructs: lockedVersion('constructs'),
      'cdk8s-plus-33': PLUS_33,
    };
    writeFileSync(
      join(app, 'package.json'),
      JSON.stringify({ name: 'plus33-app', version: '1.0.0', private: true, dependencies }, null, 2),
    );
    sh('npm', [...npmInstall, tarball, ...tools], app);
    sh(join(app, 'node_modules', '.bin', 'tsc'), ['--build'], app);
    sh(process.execPath, ['main.js'], app);
    const objects = distObjects(app);
    const podLabels = (name: string) => {
      const deployment = objects.find((o) => o.kind === 'Deployment' && o.metadata.name.includes(name));
      assert.ok(deployment?.spec?.selector, `the ${name} Deployment`);
      return deployment.spec.selector.matchLabels;
    };
    const policy = objects.find((o) => o.kind === 'NetworkPolicy' && o.metadata.name === 'main-etcd');
    const from = (port: number) =>
      policy?.spec?.ingress?.find((rule) => rule.ports.some((p) => p.port === port))?.from;
    // Each Deployment's Pods by its own selector labels, in the chart's namespace (the last two client-port peers).
    const inWeb = { matchLabels: { 'kubernetes.io/metadata.name': 'web' } };
    assert.deepEqual(from(2379)?.slice(-2), [
      { podSelector: { matchLabels: podLabels('api') }, namespaceSelector: inWeb },
      { podSelector: { matchLabels: podLabels('worker') }, namespaceSelector: inWeb },
    ]);
    assert.deepEqual(from(2381), [
      {
        podSelector: { matchLabels: { 'app.kubernetes.io/name': 'prometheus' } },
        namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } },
      },
    ]);
    assert.deepEqual(controllerPackagesIn(app), []);

    // The restricted pattern: its own client certificate's Secret mounted, the https URL, admitted with no patch.
    const reporting = objects.find((o) => o.kind === 'Deployment' && o.metadata.name.includes('reporting'));
    const reportingPod = JSON.stringify(reporting?.spec?.template?.spec);
    assert.match(reportingPod, /"secretName":"reporting-etcd"/);
    assert.match(reportingPod, /"value":"https:\/\/secure-etcd-client\.secure\.svc:2379"/);
    const verdicts = await podAdmission(app, 'secure', ['reporting', 'api']);
    assert.equal(verdicts.reporting?.code, 0, `the restricted pattern's Pod: ${verdicts.reporting?.stderr}`);
    // The check bites: plus-33's defaults alone (the `api` Deployment) are refused, naming what is missing.
    assert.notEqual(verdicts.api?.code, 0);
    assert.match(verdicts.api?.stderr ?? '', /violates PodSecurity "restricted:latest"/);
    assert.match(verdicts.api?.stderr ?? '', /seccompProfile/);
  });
});
