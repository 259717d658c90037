// The names the docs cite must be the code's: a renamed reason, action, step or flag, or a field that left the
// schema, fails here until the docs follow. Checked: every backticked multi-word PascalCase name (reasons, actions,
// phases, kinds, functions) and `--flag` must occur as a word in our sources, and every backticked
// `spec.…`/`status.…` path must exist in one of the CRDs' schemas. A name from elsewhere (etcd, Go, Kubernetes)
// or one a note says is not built is listed below with what it is.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { etcdClusterCrd, etcdRestoreCrd } from '../../../constructs/api/crds.js';
import type { JsonSchema } from '../../../constructs/api/json-schema.js';
import { CLUSTER_REASONS } from '../../../controller/etcdcluster/reasons.js';
import { RESTORE_REASONS } from '../../../controller/restore/facts.js';
import { repoRoot } from '../../env/binaries.js';

/** Names the docs cite that are not ours, or not built (the note says so), with what each is. */
const NOT_OURS: Readonly<Record<string, string>> = {
  ReadyNotify: 'etcd server internals (rolling-update.md)',
  AssumeRoleWithWebIdentity: 'the STS action a web identity token is exchanged by (workload-identity.md)',
  CalculateExpectedPodCountFailed:
    "kube-controller-manager's disruption controller Event (disruption-budget.md)",
  FailedMount: "the kubelet's Event when it cannot mount a Pod's volumes (bootstrap.md)",
  '--strict-reconfig-check':
    "etcd's flag that refuses a membership change while it is unsafe (membership.md)",
  InsufficientPods: 'PodDisruptionBudget condition reason (policy/v1)',
  SufficientPods: 'PodDisruptionBudget condition reason (policy/v1)',
  ErrBadLeaderTransferee: 'etcd server error',
  ErrGRPCNotLeader: 'etcd gRPC error',
  TryTransferLeadershipOnShutdown: 'etcd server internals',
  SetVersion: 'etcd server internals',
  ClusterVersionSet: 'etcd server internals',
  '--next-cluster-version-compatible': 'an etcd flag we do not set',
  '--max-learners': 'an etcd flag we do not set (bootstrap.md)',
  HealthInterval: 'etcd server internals (bootstrap.md)',
  '--enable-v2': 'an etcd flag we do not set',
  '--help': "etcd's (tls.md quotes its text)",
  GetClientCertificate: 'Go crypto/tls (tls.md)',
  VerifyPeerCertificate: 'Go crypto/tls',
  RequireAndVerifyClientCert: 'Go crypto/tls',
  ServerConfig: "etcd's transport TLS info",
  ClientConfig: "etcd's transport TLS info",
  GetCertificate: 'Go crypto/tls',
  RenewalTime: "cert-manager's renewal time",
  NoClientCertificate: 'a reason tls.md says does not exist',
  EtcdCertificateExpiresSoon: 'an alert tls.md says is not built',
  CompleteMultipartUpload: 'an S3 API operation (backup.md)',
  ListObjects: 'an S3 API operation',
  UploadPartCopy: 'an S3 API operation',
  HeadObject: 'an S3 API operation',
  DeleteObject: 'an S3 API operation',
  MemberUpdate: "etcd's Cluster API call (tls.md, a migration that is not built)",
  GitRepository: "Flux's source kind (docs/gitops)",
  ExternalSecret: "External Secrets Operator's kind",
  '--authorization-mode': 'a kube-apiserver flag (README, the local Kubernetes)',
  '--allow-privileged': 'a kube-apiserver flag',
  '--cpu-prof': 'a Node.js flag (README, Performance: the backup profile)',
  '--lite-mode': 'a V8 flag tried on a backup (README, Performance; ADR 0008)',
  'status.podIP': "a Pod's field",
  'status.ts': 'a file name (controller/etcdcluster/status.ts)',
};

const DOCS = [
  ...['design', 'gitops'].flatMap((dir) =>
    readdirSync(join(repoRoot, 'docs', dir))
      .filter((file) => file.endsWith('.md'))
      .map((file) => join('docs', dir, file)),
  ),
  join('docs', 'api', 'constructs.md'),
  'README.md',
  join('constructs', 'README.md'),
];

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (['node_modules', 'lib', '__snapshots__'].includes(name)) return [];
    if (statSync(path).isDirectory()) return sources(path);
    return /\.(ts|mjs|lua)$/.test(name) ? [path] : [];
  });
}

const corpus = [
  'controller',
  'constructs',
  'image',
  'src',
  'scripts',
  'bench',
  join('test', 'env'),
  join('test', 'soak'),
  join('docs', 'gitops'),
]
  .flatMap((dir) => sources(join(repoRoot, dir)))
  .map((file) => readFileSync(file, 'utf8'))
  .join('\n');
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** `name` as a whole word of our sources; a `--flag` as itself or as its bare name in quotes (the flag tables). */
function inCode(name: string): boolean {
  if (name.startsWith('--')) {
    const bare = escapeRegExp(name.slice(2));
    return new RegExp(`(--${bare}|['"\`]${bare}['"\`])`).test(corpus);
  }
  return new RegExp(`(^|[^A-Za-z0-9_-])${escapeRegExp(name)}($|[^A-Za-z0-9_-])`).test(corpus);
}

const cited = (pattern: RegExp) =>
  DOCS.flatMap((doc) =>
    [...readFileSync(join(repoRoot, doc), 'utf8').matchAll(/`([^`\n]+)`/g)]
      .map((match) => match[1] as string)
      .filter((token) => pattern.test(token))
      .map((token) => ({ doc, token: token.replace(/=.*$/, '') })),
  );

const schemas = [etcdClusterCrd(), etcdRestoreCrd()].map(
  (crd) =>
    (crd as unknown as { spec: { versions: { schema: { openAPIV3Schema: JsonSchema } }[] } }).spec.versions[0]
      ?.schema.openAPIV3Schema as JsonSchema,
);
function inSchema(schema: JsonSchema, path: readonly string[]): boolean {
  let at: JsonSchema | undefined = schema;
  for (const part of path) {
    const additional: JsonSchema | undefined =
      typeof at?.additionalProperties === 'object' ? at.additionalProperties : undefined;
    at = at?.properties?.[part] ?? at?.items?.properties?.[part] ?? additional;
    if (!at) return false;
  }
  return true;
}

describe('names the docs cite', () => {
  it('GIVEN every backticked PascalCase name and --flag in the docs THEN each is in our code (or listed as not ours)', () => {
    const names = cited(/^([A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+|--[a-z][a-z0-9-]+(=.*)?)$/);
    assert.ok(names.length > 100, `${names.length} names cited`);
    const missing = names.filter(({ token }) => !(token in NOT_OURS) && !inCode(token));
    assert.deepEqual(
      [...new Set(missing.map(({ doc, token }) => `${relative('.', doc)}: ${token}`))],
      [],
      'rename it in the doc, or list it in NOT_OURS with what it is',
    );
  });

  it('GIVEN every backticked spec.… or status.… path in the docs THEN it is a field of a CRD schema (or listed as not ours)', () => {
    const paths = cited(/^(spec|status)(\.[a-zA-Z]+)+$/);
    assert.ok(paths.length > 30, `${paths.length} paths cited`);
    const missing = paths.filter(
      ({ token }) => !(token in NOT_OURS) && !schemas.some((schema) => inSchema(schema, token.split('.'))),
    );
    assert.deepEqual([...new Set(missing.map(({ doc, token }) => `${doc}: ${token}`))], []);
  });

  it('GIVEN the list of names that are not ours THEN each is still cited (no stale entries)', () => {
    const all = new Set(cited(/./).map(({ token }) => token));
    assert.deepEqual(
      Object.keys(NOT_OURS).filter((name) => !all.has(name)),
      [],
    );
  });

  it('GIVEN a renamed name WHEN it is looked up THEN the check finds it missing (the check bites)', () => {
    assert.ok(inCode('MembersUnreachable'));
    assert.ok(!inCode('MembersUnreachableX'));
    assert.ok(!inCode('SeedMember'), 'an action restore.md once named and the code never had');
    assert.ok(inSchema(schemas[0] as JsonSchema, ['spec', 'tls', 'client', 'clientSecretName']));
    assert.ok(!inSchema(schemas[0] as JsonSchema, ['spec', 'tls', 'client', 'caSecretName']));
  });

  it('GIVEN the Argo CD health scripts WHEN they compare a condition reason THEN it is one of the reason constants', () => {
    const reasons = new Set<string>([...Object.values(CLUSTER_REASONS), ...Object.values(RESTORE_REASONS)]);
    const dir = join(repoRoot, 'docs', 'gitops');
    const compared = readdirSync(dir)
      .filter((file) => file.endsWith('.lua'))
      .flatMap((file) =>
        [...readFileSync(join(dir, file), 'utf8').matchAll(/\.reason\s*==\s*"([^"]+)"/g)].map(
          (match) => `${file}: ${match[1]}`,
        ),
      );
    assert.ok(compared.length > 0, 'the scripts compare at least one reason');
    assert.deepEqual(
      compared.filter((entry) => !reasons.has(entry.slice(entry.indexOf(': ') + 2))),
      [],
    );
  });
});
