// Writes constructs/imports/etcd.gitops.dev.ts and docs/api/etcdcluster.md from the schemas: `npm run gen:api`.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderApiReference } from '../constructs/api/docgen.js';
import { renderApiTypes } from '../constructs/api/typegen.js';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
for (const [target, text] of [
  [join(repo, 'constructs', 'imports', 'etcd.gitops.dev.ts'), renderApiTypes()],
  [join(repo, 'docs', 'api', 'etcdcluster.md'), renderApiReference()],
] as const) {
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, text);
  console.log(`wrote ${target}`);
}
