// The soak's writer (docs/design/soak.md, "The executor"): puts `<prefix><n>` = `v<n>` one after another, each key
// once, and records each in the WriteRecord: acknowledged with the revision etcd answered, or of unknown outcome
// (an error or no answer within the deadline: the put may still have been applied).
import { setTimeout as sleep } from 'node:timers/promises';
import type { Etcd3 } from 'etcd3';
import type { WriteRecord } from './writes.js';

export interface WriterOptions {
  /** Pause between puts. @default 20 */
  readonly intervalMs?: number;
  /** A put without an answer within this is of unknown outcome. @default 5000 */
  readonly deadlineMs?: number;
}

export interface SoakWriter {
  /** Puts attempted, acknowledged and of unknown outcome so far. */
  counts(): { attempted: number; acknowledged: number; unknown: number };
  /** Stops after the put in flight. */
  stop(): Promise<void>;
}

export function startWriter(
  client: Etcd3,
  prefix: string,
  record: WriteRecord,
  options: WriterOptions = {},
): SoakWriter {
  const counts = { attempted: 0, acknowledged: 0, unknown: 0 };
  let stopping = false;
  const loop = (async () => {
    while (!stopping) {
      counts.attempted += 1;
      const key = `${prefix}${counts.attempted}`;
      const value = `v${counts.attempted}`;
      try {
        const response = await client
          .put(key)
          .value(value)
          .options({ deadline: Date.now() + (options.deadlineMs ?? 5_000) })
          .exec();
        record.acknowledged(key, value, BigInt(response.header.revision));
        counts.acknowledged += 1;
      } catch {
        record.indeterminate(key, value);
        counts.unknown += 1;
      }
      await sleep(options.intervalMs ?? 20);
    }
  })();
  return {
    counts: () => ({ ...counts }),
    async stop() {
      stopping = true;
      await loop;
    },
  };
}
