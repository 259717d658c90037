// The README's performance table is the one bench/readme-table.ts renders from the committed bench/results: a
// figure changed in one and not the other fails here.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import {
  README,
  RESULTS,
  readResults,
  renderTable,
  replaceTable,
  TABLE_END,
  TABLE_START,
} from '../../../bench/readme-table.js';

describe('README performance table', () => {
  it('GIVEN the committed bench results THEN the README holds exactly the table they render', () => {
    const readme = readFileSync(README, 'utf8');
    const table = renderTable(readResults(RESULTS));
    assert.equal(readme, replaceTable(readme, table), 'run `npm run bench:table` after a bench');
  });

  it('GIVEN a README without the markers THEN replacing the table says which block is missing', () => {
    assert.throws(() => replaceTable('# no table', '| a |'), new RegExp(TABLE_START.slice(0, 20)));
  });

  it('GIVEN a figure that differs THEN the README no longer matches', () => {
    const readme = `x\n${TABLE_START}\n| old |\n${TABLE_END}\ny`;
    assert.equal(replaceTable(readme, '| new |'), `x\n${TABLE_START}\n| new |\n${TABLE_END}\ny`);
  });

  it('GIVEN large-database results THEN each size gets its backup, verification and restore rows, and the learner one', () => {
    const results = readResults(RESULTS);
    const row = {
      databaseMiB: 2048,
      snapshotMiB: 2050,
      keys: 4000,
      runs: 1,
      backupSeconds: 40,
      backupMiBps: 51.25,
      backupPeakRssMiB: 90,
      etcdctlSeconds: 20,
      uploadSeconds: 30,
      baselineMiBps: 41,
      etcdctlPeakRssMiB: 30,
      uploadPeakRssMiB: 120,
      verifySeconds: 25,
      verifyPeakRssMiB: 70,
      restoreFetchSeconds: 60,
      restoreFetchPeakRssMiB: 100,
      restoreToHealthySeconds: 75,
      byHandDownloadSeconds: 30,
      byHandRestoreSeconds: 35,
      byHandToHealthySeconds: 70,
    };
    const table = renderTable({
      ...results,
      large: {
        bench: 'large',
        node: 'v22',
        etcd: '3.6.16',
        date: '2026-12-02T09:00:00Z',
        runs: 1,
        nodeOptions: { backupJob: 'a', controller: 'b' },
        limits: { backupJobMiB: 256, controllerMiB: 256 },
        rows: [row, { ...row, databaseMiB: 8192, snapshotMiB: 8200 }],
        learner: {
          databaseMiB: 2048,
          promotedSeconds: 80.04,
          refusedPromotes: 12,
          busyPromotes: 3,
          keys: 4000,
          revision: '4100',
        },
      },
    });
    assert.match(
      table,
      /^\| backup of a 2 GiB database \(4000 keys, snapshot 2050 MiB\) \| 40\.0 s \(51 MiB\/s\), peak RSS 90 MiB of the Job's 256 MiB limit, on the bench's Node\.js v22, 1 run \| 50\.0 s .* \| 0\.80× \| – \| large, 2026-12-02 \|$/m,
    );
    assert.match(table, /^\| backup of an 8 GiB database \(4000 keys, snapshot 8200 MiB\) \|/m);
    assert.match(
      table,
      /^\| controller's verification before a restore, 2 GiB \| 25\.0 s, peak RSS 70 MiB /m,
    );
    assert.match(table, /^\| restore fetch → healthy member, 2 GiB \| 75\.0 s .* \| 1\.07× \|/m);
    assert.match(
      table,
      /^\| a learner catching up on 2 GiB, loopback \| promoted 80\.0 s after AddLearner \(12 promotes/m,
    );
  });
});
