// `npm run build`'s last step: bundles build/controller/cli.js into build/app/controller (image/shipped-code.ts).
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { repoRoot } from '../test/env/binaries.js';
import { bundleController } from './bundle.js';
import { shippedCodeDir } from './shipped-code.js';

await rm(shippedCodeDir, { recursive: true, force: true });
await bundleController(join(repoRoot, 'build', 'controller', 'cli.js'), shippedCodeDir);
