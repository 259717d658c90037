// The performance goals and where the committed bench results put each one, rendered under the README's table by
// readme-table.ts: a goal is called reached only when the results say so, and one that is not names what holds it
// (the profiles behind each reason are in the README's "How the costs grow").
import type { BenchResults } from './readme-table.js';

export interface GoalStatus {
  /** The figure the goal reads, e.g. `1.02×`. */
  readonly latest: string;
  readonly reached: boolean;
}

export interface Goal {
  readonly goal: string;
  readonly status: (results: BenchResults) => GoalStatus;
  /** Shown while the goal is not reached: what holds it. */
  readonly unreached: string;
}

const times = (value: number) => `${value.toFixed(2)}×`;
const mib = (value: number) => `${value.toFixed(0)} MiB`;

type BackupRow = BenchResults['backup']['rows'][number];

/** The range of `figure` over the backup rows that measured the least streaming save; undefined before it was. */
function leastStream(
  results: BenchResults,
  figure: (row: BackupRow) => number,
  format: (value: number) => string,
): string | undefined {
  const values = results.backup.rows.filter((r) => r.streamFloorSeconds !== undefined).map(figure);
  if (values.length === 0) return undefined;
  return `${format(Math.min(...values))}–${format(Math.max(...values))}`;
}

/** A membership row's ratio to its fair floor (our Pods by script), by its case name. */
function membershipRatio(results: BenchResults, name: string): number {
  const row = results.membership.rows.find((r) => r.case === name);
  if (!row?.podFloorMs) throw new Error(`membership.json has no "${name}" row beside our Pods by script`);
  return row.oursMs / row.podFloorMs;
}

function ratioGoal(name: string, limit: number, unreached: string): Goal {
  return {
    goal: `${name} ≤ ${limit}× our Pods by script`,
    status: (results) => {
      const value = membershipRatio(results, name);
      return { latest: times(value), reached: value <= limit };
    },
    unreached,
  };
}

export const GOALS: readonly Goal[] = [
  ratioGoal(
    'size 3 → Ready',
    1.3,
    'beyond the members starting, ours adds the first pass after the create and the pass that writes `Ready`, and ' +
      'a pass that reads a member which accepts connections but has not joined waits out its 3 s `Status` deadline; ' +
      'the runs vary by more than that: in 2 of 35 traced starts one member came 13–15 s late, the kubelet retrying ' +
      'after the Node authorizer refused it the new Pod\'s PVC (docs/design/bootstrap.md; "Creation and membership")',
  ),
  ratioGoal('size 5 → Ready', 1.3, 'as size 3'),
  ratioGoal('one member added', 1.3, 'as size 3'),
  {
    goal: 'a dead member replaced in < 5 s and ≤ 1.5× our Pods by script',
    status: (results) => {
      const row = results.membership.rows.find((r) => r.case === 'dead member replaced');
      if (!row?.podFloorMs)
        throw new Error('membership.json has no "dead member replaced" row beside its floor');
      const value = row.oursMs / row.podFloorMs;
      return {
        // Two decimals: a median of 4.96 s is under the bound, and "5.0 s" would read as if it were not.
        latest: `${(row.oursMs / 1000).toFixed(2)} s, ${times(value)}`,
        reached: row.oursMs < 5000 && value <= 1.5,
      };
    },
    unreached:
      'the kubelet starting the learner, and etcd answering it only once joined ("Creation and membership")',
  },
  {
    goal: 'creation faster than a static-bootstrap StatefulSet (sizes 3 and 5)',
    status: (results) => {
      const rows = results.membership.rows.filter((r) => r.peerMs !== undefined);
      const latest = rows.map(
        (r) => `${(r.oursMs / 1000).toFixed(1)} s vs ${((r.peerMs ?? 0) / 1000).toFixed(1)} s`,
      );
      return {
        latest: latest.join('; '),
        reached: rows.length > 0 && rows.every((r) => r.oursMs < (r.peerMs ?? 0)),
      };
    },
    unreached:
      "our Pods started by script are within the StatefulSet's spread; the rest is the controller's own steps, kept on " +
      'purpose: it reads the cluster fresh before it acts, writes the member record on every PVC before any Pod ' +
      "starts, and writes `Ready` after etcd answers, where the StatefulSet's clock stops " +
      '(docs/design/bootstrap.md, "Why ours does not beat the StatefulSet")',
  },
  {
    goal: 'a node lost: back at size within the bound + 10 s',
    status: (results) => {
      const over = results.nodeLoss.replacedMedianSeconds - results.nodeLoss.boundSeconds;
      return { latest: `bound + ${over.toFixed(1)} s`, reached: over <= 10 };
    },
    unreached: 'the replacement Pod starting on the spare node',
  },
  {
    goal: 'rolling upgrade ≤ 1.3× our Pods by script',
    status: (results) => {
      const values = results.rolling.rows.map((r) => r.oursMs / (r.podFloorMs ?? Number.NaN));
      return { latest: values.map(times).join(', '), reached: values.every((v) => v <= 1.3) };
    },
    unreached: 'each member Pod stopped and started by Kubernetes',
  },
  {
    goal: 'backup ≥ 1.0× etcdctl snapshot save + upload (throughput)',
    status: (results) => {
      const values = results.backup.rows.map((r) => r.oursSeconds / r.baselineSeconds);
      const least = leastStream(
        results,
        (r) => (r.streamFloorSeconds ?? Number.NaN) / r.baselineSeconds,
        times,
      );
      return {
        latest: `${times(Math.min(...values))}–${times(Math.max(...values))} the time${least ? `; the least streaming save with the same clients ${least}` : ''}`,
        reached: values.every((v) => v <= 1),
      };
    },
    unreached:
      'a save streams through the clients ours must use (grpc-js with our decoder, the AWS SDK with our writer) on the two cores it shares ' +
      'with etcd and MinIO, where the least such stream lands on either side of etcdctl (Go) writing a file and then ' +
      'one upload; ours adds the snapshot check and the `.part` → key copy (kept: a backup key never exists ' +
      'unverified or without its checksums, docs/design/backup.md) ("Backups, 64 MiB → 2 GiB")',
  },
  {
    goal: 'backup peak RSS < 96 MiB',
    status: (results) => {
      const peaks = results.backup.rows.map((r) => r.oursPeakRssMiB);
      const least = leastStream(results, (r) => r.streamFloorPeakRssMiB ?? Number.NaN, mib);
      return {
        latest: `${mib(Math.min(...peaks))}–${mib(Math.max(...peaks))}${least ? `; the least streaming save with the same clients ${least}` : ''}`,
        reached: peaks.every((p) => p < 96),
      };
    },
    unreached:
      "on the image's Node.js the command holds 72 MiB before a byte moves (grpc-js and the AWS SDK; etcd3 no " +
      'longer, docs/adr/0009-own-maintenance-client.md) and adds its three 8 MiB part buffers, and a save through ' +
      "the same clients with nothing else peaks about as high as ours; only turning V8's optimizing compiler off brought " +
      'a 256 MiB save under 96 MiB (Node.js 20), at a third more time ' +
      '(docs/adr/0008-own-multipart-writer.md, "Backups, 64 MiB → 2 GiB")',
  },
  {
    goal: 'restore request → Completed ≤ 3× our Pods by script',
    status: (results) => {
      const values = results.restore.kubernetes.map(
        (r) => r.requestToCompletedSeconds / (r.byHand?.completedSeconds ?? Number.NaN),
      );
      return { latest: values.map(times).join(', '), reached: values.every((v) => v <= 3) };
    },
    unreached: 'the seed and learner Pods starting',
  },
  {
    goal: 'controller RSS idle < 80 MiB',
    status: (results) => {
      const row = results.scale.rows.find((r) => r.clusters === 1);
      const after = results.scale.afterBootstrap;
      const rss = row?.restPeakRssMiB ?? Number.NaN;
      return {
        latest:
          `${rss.toFixed(0)} MiB with one cluster` +
          (after
            ? `; ${after.restPeakRssMiB.toFixed(0)} MiB with none after ${after.clustersCreatedAndDeleted} created and deleted${after.restEndRssMiB === undefined ? '' : ` (${after.restEndRssMiB.toFixed(0)} MiB at the end of its rest)`}`
            : ''),
        // Both: a controller idles after churn too.
        reached: rss < 80 && (after === undefined || after.restPeakRssMiB < 80),
      };
    },
    unreached:
      "on the image's Node.js the floor, a process that only imports the two clients bundled as ours, idles at " +
      'about the goal itself, over half of it the node binary mapped from files; once it has worked (one cluster ' +
      'made, or many made and deleted) ours keeps about 8 MiB more for good (more of the binary mapped, malloc, code ' +
      'compiled for the work; a heap snapshot finds nothing of deleted clusters but 30 entries of the bounded Event ' +
      'cache) and, until V8 next collects, the heap the work grew, which a collection forced once quiet would give ' +
      'back but not below the goal ("The controller with 1, 10 and 50 clusters")',
  },
  {
    goal: '50 clusters Ready: RSS < 120 MiB, reconcile p99 < 1 s at rest',
    status: (results) => {
      const row = results.scale.rows.find((r) => r.clusters === 50);
      const rss = row?.restPeakRssMiB ?? Number.NaN;
      const p99 = row?.restReconcileP99Seconds ?? Number.NaN;
      const requests = row?.restApiRequestsPerSecond ?? Number.NaN;
      return {
        latest: `${rss.toFixed(0)} MiB, p99 ≤ ${p99} s, ${requests.toFixed(2)} API requests/s (fresh reads, bounded)`,
        reached: rss < 120 && p99 < 1,
      };
    },
    unreached: 'the import floor and the watch caches of 50 clusters',
  },
  {
    goal: 'synth ≤ 1.5× the same manifests as plain ApiObjects',
    status: (results) => {
      const values = results.synth.rows.map((r) => r.medianMs / r.baselineMs);
      return {
        latest: `${times(Math.min(...values))}–${times(Math.max(...values))}`,
        reached: values.every((v) => v <= 1.5),
      };
    },
    unreached: 'construct logic per object',
  },
];

/** The goals table: each goal, its latest figure and, when not reached, what holds it. */
export function renderGoals(results: BenchResults): string {
  const line = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
  const rows = GOALS.map((goal) => {
    const { latest, reached } = goal.status(results);
    return line([goal.goal, latest, reached ? 'reached' : `not reached: ${goal.unreached}`]);
  });
  return [line(['goal', 'latest', 'where it stands']), line(['---', '---', '---']), ...rows].join('\n');
}
