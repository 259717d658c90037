// A writer that keeps putting keys into an etcd cluster while it changes, records every acknowledged write,
// and at the end checks that none of them is lost.
import { noop } from 'cockatiel';
import { Etcd3 } from 'etcd3';
import type { ClientTls } from '../../../controller/etcd/client.js';

export interface Writer {
  /** Stops writing; resolves once the loop ended. */
  stop(): Promise<void>;
  /** Acknowledged writes so far. */
  acknowledged(): number;
  /** Keys acknowledged but not readable now (linearizable reads). */
  lost(): Promise<string[]>;
}

/** `tls`: the client certificate an `https` endpoint needs. */
export function startWriter(endpoint: string, prefix = 'writer/', tls?: ClientTls): Writer {
  const client = new Etcd3({
    hosts: [endpoint],
    ...(tls ? { credentials: { ...tls } } : {}),
    dialTimeout: 2_000,
    faultHandling: { host: () => noop, global: noop },
    defaultCallOptions: (context) => (context.isStream ? {} : { deadline: Date.now() + 2_000 }),
  });
  const acked = new Map<string, string>();
  let running = true;
  let attempt = 0;
  const loop = (async () => {
    while (running) {
      attempt += 1;
      const key = `${prefix}${String(attempt).padStart(8, '0')}`;
      try {
        await client.put(key).value(String(attempt));
        acked.set(key, String(attempt));
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
    },
    acknowledged: () => acked.size,
    async lost() {
      const stored = await client.getAll().prefix(prefix).strings();
      const missing = [...acked].filter(([key, value]) => stored[key] !== value).map(([key]) => key);
      client.close();
      return missing;
    },
  };
}
