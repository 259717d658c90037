// Writes incompressible test data into etcd and compares two etcds key by key.
import { randomBytes } from 'node:crypto';
import type { Etcd3 } from 'etcd3';

export interface FillOptions {
  /** Key prefix. @default 'fill/' */
  prefix?: string;
  /** Bytes per value. @default 8192 */
  valueBytes?: number;
  /** Puts per transaction (etcd allows 128 by default; keep requests under 1.5 MiB). @default 64 */
  batch?: number;
  /** Transactions in flight. @default 4 */
  concurrency?: number;
}

/** Writes at least `bytes` of random values; resolves the number of keys and the revision afterwards. */
export async function fillEtcd(
  client: Etcd3,
  bytes: number,
  options: FillOptions = {},
): Promise<{ keys: number; revision: string }> {
  const prefix = options.prefix ?? 'fill/';
  const valueBytes = options.valueBytes ?? 8192;
  const batch = options.batch ?? 64;
  const keys = Math.ceil(bytes / valueBytes);
  let next = 0;
  const worker = async () => {
    while (next < keys) {
      const start = next;
      next = Math.min(keys, next + batch);
      const success = [];
      for (let i = start; i < next; i++) {
        const key = Buffer.from(`${prefix}${String(i).padStart(8, '0')}`);
        success.push({ request_put: { key, value: randomBytes(valueBytes) } });
      }
      await client.kv.txn({ compare: [], success, failure: [] });
    }
  };
  await Promise.all(Array.from({ length: options.concurrency ?? 4 }, worker));
  const status = await client.maintenance.status();
  return { keys, revision: status.header.revision };
}

/**
 * Writes until etcd's database file (`dbSize` of its status) holds at least `bytes`: a database of that size, where
 * `fillEtcd` writes that many bytes of values. An 8 KiB value takes more than 8 KiB of that file (bbolt's overflow
 * pages; about 10 KiB in the 2 GiB bench run of 2026-12-02), so each round writes 60 % of what is missing, then asks
 * again.
 */
export async function fillToDatabaseSize(client: Etcd3, bytes: number, prefix = 'fill/'): Promise<void> {
  for (let round = 0; ; round++) {
    const missing = bytes - Number((await client.maintenance.status()).dbSize);
    if (missing <= 0) return;
    await fillEtcd(client, Math.max(Math.floor(missing * 0.6), 16 * 1024 * 1024), {
      prefix: `${prefix}${round}/`,
    });
  }
}

/** Writes `count` small keys one by one (each its own revision). */
export async function putKeys(client: Etcd3, count: number, prefix = 'small/'): Promise<void> {
  for (let i = 0; i < count; i++) await client.put(`${prefix}${i}`).value(`value-${i}`);
}

/**
 * Compares every key of `a` and `b` (value, create/mod revision, version) page by page; resolves the number
 * of keys compared, or rejects naming the first difference.
 */
export async function compareEtcd(a: Etcd3, b: Etcd3, pageSize = 256): Promise<number> {
  let from = Buffer.from([0]);
  let compared = 0;
  for (;;) {
    const [left, right] = await Promise.all(
      [a, b].map((client) =>
        client.kv.range({
          key: from,
          range_end: Buffer.from([0]),
          limit: String(pageSize),
          sort_order: 'Ascend',
          sort_target: 'Key',
        }),
      ),
    );
    const lk = left?.kvs ?? [];
    const rk = right?.kvs ?? [];
    if (lk.length !== rk.length)
      throw new Error(`page from ${from.toString()} has ${lk.length} vs ${rk.length} keys`);
    for (let i = 0; i < lk.length; i++) {
      const [x, y] = [lk[i]!, rk[i]!];
      for (const field of ['key', 'value', 'create_revision', 'mod_revision', 'version'] as const) {
        const same = Buffer.isBuffer(x[field])
          ? (x[field] as Buffer).equals(y[field] as Buffer)
          : x[field] === y[field];
        if (!same) throw new Error(`key ${x.key.toString()} differs in ${field}`);
      }
    }
    compared += lk.length;
    if (lk.length < pageSize) return compared;
    from = Buffer.concat([lk.at(-1)!.key, Buffer.from([0])]);
  }
}
