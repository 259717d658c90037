// Reads the synthesized YAML in dist/ and orders it the way Argo CD syncs it: by sync wave
// (`argocd.argoproj.io/sync-wave`, default 0), then by kind (Namespaces and CRDs first, custom
// resources last), so a fresh cluster can take it in one pass.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { loadAllYaml } from '@kubernetes/client-node';
import { repoRoot } from './binaries.js';

export const distDir = join(repoRoot, 'dist');

export interface Manifest {
  apiVersion: string;
  kind: string;
  name: string;
  namespace?: string;
  wave: number;
  /** The document's own YAML text, unchanged. */
  yaml: string;
  file: string;
}

// Argo CD's (Helm's) install order for the kinds that matter here; anything else comes after these.
const kindOrder = [
  'Namespace',
  'NetworkPolicy',
  'ResourceQuota',
  'LimitRange',
  'PodSecurityPolicy',
  'PodDisruptionBudget',
  'ServiceAccount',
  'Secret',
  'ConfigMap',
  'StorageClass',
  'PersistentVolume',
  'PersistentVolumeClaim',
  'CustomResourceDefinition',
  'ClusterRole',
  'ClusterRoleBinding',
  'Role',
  'RoleBinding',
  'Service',
  'DaemonSet',
  'Pod',
  'ReplicaSet',
  'Deployment',
  'StatefulSet',
  'Job',
  'CronJob',
];

function kindRank(kind: string): number {
  const rank = kindOrder.indexOf(kind);
  return rank === -1 ? kindOrder.length : rank;
}

function yamlFiles(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((entry) => {
      const path = join(dir, entry);
      if (statSync(path).isDirectory()) return yamlFiles(path);
      return /\.ya?ml$/.test(entry) ? [path] : [];
    });
}

/** Every object in `dir` (default dist/), in sync order. */
export function readManifests(dir = distDir): Manifest[] {
  const manifests = yamlFiles(dir).flatMap((file) =>
    readFileSync(file, 'utf8')
      .split(/^---[ \t]*$/m)
      .filter((doc) => doc.trim() !== '' && !/^(\s*#.*\n?)*\s*$/.test(doc))
      .map((doc) => toManifest(doc, file)),
  );
  return manifests
    .map((manifest, index) => ({ manifest, index }))
    .sort(
      (a, b) =>
        a.manifest.wave - b.manifest.wave ||
        kindRank(a.manifest.kind) - kindRank(b.manifest.kind) ||
        a.index - b.index,
    )
    .map(({ manifest }) => manifest);
}

function toManifest(doc: string, file: string): Manifest {
  const [object] = loadAllYaml(doc) as Array<{
    apiVersion?: string;
    kind?: string;
    metadata?: { name?: string; namespace?: string; annotations?: Record<string, string> };
  }>;
  if (!object?.apiVersion || !object.kind || !object.metadata?.name) {
    throw new Error(`${file}: a document without apiVersion, kind or metadata.name:\n${doc.slice(0, 200)}`);
  }
  const wave = Number(object.metadata.annotations?.['argocd.argoproj.io/sync-wave'] ?? '0');
  if (!Number.isInteger(wave))
    throw new Error(`${file}: ${object.kind}/${object.metadata.name} has a non-integer sync wave`);
  return {
    apiVersion: object.apiVersion,
    kind: object.kind,
    name: object.metadata.name,
    namespace: object.metadata.namespace,
    wave,
    yaml: doc.replace(/^\n+/, ''),
    file,
  };
}

/** The manifests grouped by wave, ascending. */
export function syncWaves(manifests: Manifest[]): Manifest[][] {
  const waves = new Map<number, Manifest[]>();
  for (const manifest of manifests) waves.set(manifest.wave, [...(waves.get(manifest.wave) ?? []), manifest]);
  return [...waves.entries()].sort(([a], [b]) => a - b).map(([, group]) => group);
}

/** One multi-document YAML stream of `manifests`, in order. */
export function toYamlStream(manifests: Manifest[]): string {
  return manifests.map((manifest) => `---\n${manifest.yaml.trimEnd()}\n`).join('');
}
