// `drill check` (docs/design/restore-drill.md, "The drill Pod", 3): the restored etcd must answer a linearizable,
// count-only range over its whole keyspace at a revision no lower than the backup's recorded one plus the bump.
import { readFile } from 'node:fs/promises';
import type { Logger } from 'pino';
import { withClient } from '../etcd/client.js';
import { untilAnswered } from '../etcd/until-answered.js';
import { DrillError } from './exit-codes.js';
import type { Restored } from './fetch.js';
import type { DrillReport } from './report.js';

export interface DrillCheckOptions {
  readonly restoredFile: string;
  /** The restored etcd's client URL. */
  readonly endpoint: string;
  /** How long to wait for it to answer. */
  readonly waitMs: number;
}

/** What the restored etcd answered. */
export interface Served {
  readonly revision: string;
  readonly keys: number;
}

/** Deadline of the count: it reads every key of a database of any size. */
const COUNT_TIMEOUT_MS = 120_000;

type DrillSuccess = Extract<DrillReport, { outcome: 'Succeeded' }>;

/**
 * The revision a backup's snapshot holds at least: the recorded one, but for an etcd never written to, which answers
 * revision 1 (its first) while its snapshot holds no revision at all (`etcdutl snapshot status` says 0), so that its
 * restore serves the bump alone (measured with etcd 3.6.16).
 */
function snapshotRevisionAtLeast(recorded: string): bigint {
  const revision = BigInt(recorded);
  return revision === 1n ? 0n : revision;
}

/** The drill's verdict on what etcd served: the success report, or the failure (pure). */
export function judgeDrill(restored: Restored, served: Served, nowMs: number): DrillSuccess | DrillError {
  const least = snapshotRevisionAtLeast(restored.revision) + BigInt(restored.revisionBump);
  if (BigInt(served.revision) < least) {
    return new DrillError(
      'REVISION_MISMATCH',
      `the restored etcd serves revision ${served.revision}, below ${least} (backup ${restored.key} recorded revision ${restored.revision}, restored with a bump of ${restored.revisionBump})`,
    );
  }
  return {
    v: 1,
    outcome: 'Succeeded',
    key: restored.key,
    revision: restored.revision,
    servedRevision: served.revision,
    keys: served.keys,
    sizeBytes: restored.snapshotBytes,
    durationMs: nowMs - restored.startedAtMs,
  };
}

async function readRestored(path: string): Promise<Restored> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new DrillError(
      'USAGE',
      `cannot read ${path}, which drill fetch writes: ${(error as Error).message}`,
    );
  }
  return JSON.parse(text) as Restored;
}

/** One count-only range over the whole keyspace: its header's revision and the count. */
function countKeys(endpoint: string): Promise<Served> {
  return withClient(
    endpoint,
    async (client) => {
      const all = Buffer.from([0]);
      const response = await client.kv.range({ key: all, range_end: all, count_only: true });
      return { revision: String(response.header.revision), keys: Number(response.count) };
    },
    COUNT_TIMEOUT_MS,
  );
}

/** Waits for the restored etcd, counts its keys and judges; rejects with a DrillError. */
export async function drillCheck(
  options: DrillCheckOptions,
  log: Logger,
  now = Date.now,
): Promise<DrillSuccess> {
  const restored = await readRestored(options.restoredFile);
  let lastError = 'no answer';
  const served = await untilAnswered(
    options.waitMs,
    log,
    async () => {
      try {
        return await countKeys(options.endpoint);
      } catch (error) {
        lastError = (error as Error).message;
        return undefined;
      }
    },
    'The restored etcd does not answer yet; asking again',
  );
  if (!served) {
    throw new DrillError(
      'ETCD_UNAVAILABLE',
      `the etcd restored from ${restored.key} did not answer at ${options.endpoint} within ${options.waitMs / 1000} s: ${lastError}`,
    );
  }
  const verdict = judgeDrill(restored, served, now());
  if (verdict instanceof DrillError) throw verdict;
  log.info({ ...verdict }, 'The backup restores: the restored etcd answered');
  return verdict;
}
