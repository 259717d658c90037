// Where `npm run build` writes our controller, backup and restore commands as the image ships them: bundled by
// image/bundle.ts. The image's code layer copies this directory, and the tests and benches that run our commands as
// processes run this same code (shippedCli), not the unbundled build/controller.
import { join } from 'node:path';
import { repoRoot } from '../test/env/binaries.js';

export const shippedCodeDir = join(repoRoot, 'build', 'app', 'controller');

/** `/app/controller/cli.js` in the image: `etcd-gitops <controller|backup|restore|defrag|drill> ...`. */
export const shippedCli = join(shippedCodeDir, 'cli.js');
