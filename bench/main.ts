// `npm run bench`: runs every benchmark module in this list, one after the other.
// Each module exports `run(): Promise<void>` that prints a table and writes bench/results/<name>.json; then the
// README's performance table is rendered again from bench/results (readme-table.ts).
import * as backup from './backup.js';
import * as large from './large.js';
import * as membership from './membership.js';
import * as nodeLoss from './node-loss.js';
import { writeReadmeTable } from './readme-table.js';
import * as restore from './restore.js';
import * as rolling from './rolling.js';
import * as scale from './scale.js';
import * as synth from './synth.js';

interface BenchModule {
  run(): Promise<void>;
}

const benches: Array<[string, BenchModule]> = [
  ['synth', synth],
  ['backup', backup],
  ['restore', restore],
  ['large', large],
  ['membership', membership],
  ['node-loss', nodeLoss],
  ['rolling', rolling],
  ['scale', scale],
];

const wanted = process.argv.slice(2);
for (const [name, bench] of benches) {
  if (wanted.length > 0 && !wanted.includes(name)) continue;
  console.log(`== bench ${name}`);
  await bench.run();
}
writeReadmeTable();
