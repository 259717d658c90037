// Writes constructs/imports/etcd.gitops.dev.ts from the schemas: `npm run gen:api`.
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderApiTypes } from '../constructs/api/typegen.js';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const target = join(repo, 'constructs', 'imports', 'etcd.gitops.dev.ts');
writeFileSync(target, renderApiTypes());
console.log(`wrote ${target}`);
