// The goals under the README's performance table are read from the results: a goal is reached exactly when its
// figures are within it, at the edge included where the goal says ≤ and excluded where it says <.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GOALS, renderGoals } from '../../../bench/goals.js';
import { type BenchResults, RESULTS, readResults } from '../../../bench/readme-table.js';

const committed = readResults(RESULTS);

/** A deep copy of the committed results with `change` applied. */
function results(change: (copy: BenchResults) => void): BenchResults {
  const copy = structuredClone(committed) as BenchResults;
  change(copy);
  return copy;
}

function reached(goalStart: string, input: BenchResults): boolean {
  const goal = GOALS.find((g) => g.goal.startsWith(goalStart));
  assert.ok(goal, `no goal starts with ${goalStart}`);
  return goal.status(input).reached;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** The membership row `name` of `r`, to change in place. */
const membershipRow = (r: BenchResults, name: string) =>
  r.membership.rows.find((x) => x.case === name) as Mutable<BenchResults['membership']['rows'][number]>;

/** The scale row of `clusters` clusters of `r`, to change in place. */
const scaleRow = (r: BenchResults, clusters: number) =>
  r.scale.rows.find((x) => x.clusters === clusters) as Mutable<BenchResults['scale']['rows'][number]>;

/** Sets the RSS at rest (peak and end of the window) of the bootstrap rows' controller after them in `r`. */
const idleAfterBootstrap = (r: BenchResults, rssMiB: number) => {
  const after = r.scale.afterBootstrap;
  assert.ok(after, 'scale.json has no afterBootstrap');
  (r.scale as Mutable<BenchResults['scale']>).afterBootstrap = {
    ...after,
    restPeakRssMiB: rssMiB,
    restEndRssMiB: rssMiB,
  };
};

/** The backup rows of `r`, to change in place. */
const backupRows = (r: BenchResults) =>
  r.backup.rows as Array<Mutable<BenchResults['backup']['rows'][number]>>;

describe('performance goals from the bench results', () => {
  const cases: Array<[title: string, goal: string, change: (r: BenchResults) => void, expected: boolean]> = [
    [
      'size 3 at exactly 1.3× its floor',
      'size 3 → Ready',
      (r) => {
        const row = membershipRow(r, 'size 3 → Ready');
        row.podFloorMs = 1000;
        row.oursMs = 1300;
      },
      true,
    ],
    [
      'size 3 just over 1.3×',
      'size 3 → Ready',
      (r) => {
        const row = membershipRow(r, 'size 3 → Ready');
        row.podFloorMs = 1000;
        row.oursMs = 1301;
      },
      false,
    ],
    [
      'a replacement of exactly 5 s',
      'a dead member replaced',
      (r) => {
        const row = membershipRow(r, 'dead member replaced');
        row.podFloorMs = 4000;
        row.oursMs = 5000;
      },
      false,
    ],
    [
      '50 clusters at 119 MiB, p99 0.5 s',
      '50 clusters',
      (r) => {
        const row = scaleRow(r, 50);
        row.restPeakRssMiB = 119;
        row.restReconcileP99Seconds = 0.5;
      },
      true,
    ],
    [
      '50 clusters at 120 MiB',
      '50 clusters',
      (r) => {
        const row = scaleRow(r, 50);
        row.restPeakRssMiB = 120;
      },
      false,
    ],
    [
      'a controller idle at 79 MiB with one cluster and after the bootstrap rows',
      'controller RSS idle',
      (r) => {
        scaleRow(r, 1).restPeakRssMiB = 79;
        idleAfterBootstrap(r, 79);
      },
      true,
    ],
    [
      'a controller idle at 79 MiB with one cluster but at 80 MiB after the bootstrap rows',
      'controller RSS idle',
      (r) => {
        scaleRow(r, 1).restPeakRssMiB = 79;
        idleAfterBootstrap(r, 80);
      },
      false,
    ],
    [
      'a controller idle at 80 MiB with one cluster and 79 MiB after the bootstrap rows',
      'controller RSS idle',
      (r) => {
        scaleRow(r, 1).restPeakRssMiB = 80;
        idleAfterBootstrap(r, 79);
      },
      false,
    ],
    [
      'backups as fast as the baseline',
      'backup ≥ 1.0×',
      (r) => {
        for (const row of backupRows(r)) row.oursSeconds = row.baselineSeconds;
      },
      true,
    ],
    [
      'one backup 96 MiB at its peak',
      'backup peak RSS',
      (r) => {
        for (const [i, row] of backupRows(r).entries()) row.oursPeakRssMiB = i === 0 ? 96 : 90;
      },
      false,
    ],
  ];
  for (const [title, goal, change, expected] of cases) {
    it(`GIVEN ${title} THEN "${goal}" is ${expected ? '' : 'not '}reached`, () => {
      assert.equal(reached(goal, results(change)), expected);
    });
  }

  it('GIVEN a goal not reached THEN its row says what holds it; a reached one says only "reached"', () => {
    const table = renderGoals(
      results((r) => {
        scaleRow(r, 1).restPeakRssMiB = 79;
        idleAfterBootstrap(r, 78);
      }),
    );
    const row = (start: string) => table.split('\n').find((line) => line.startsWith(`| ${start}`)) ?? '';
    assert.match(
      row('controller RSS idle'),
      /\| 79 MiB with one cluster; 78 MiB with none after 12 created and deleted \(78 MiB at the end of its rest\) \| reached \|$/,
    );
    assert.match(
      row('backup peak RSS'),
      /not reached: on the image's Node.js the command holds 72 MiB before a byte moves/,
    );
  });
});
