// Reading the committed GitOps output in dist/.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Yaml } from 'cdk8s';
import { repoRoot } from '../../env/binaries.js';

// biome-ignore lint/suspicious/noExplicitAny: manifests are untyped JSON
export type Manifest = Record<string, any>;

export const distDir = join(repoRoot, 'dist');

export function yamlFiles(dir: string): string[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .sort();
}

/** Every object of every YAML file in dist/. */
export function distObjects(): Manifest[] {
  return yamlFiles(distDir).flatMap((f) => (Yaml.load(join(distDir, f)) as Manifest[]).filter(Boolean));
}
