// What a controller needs of a watched resource, whether one informer watches it (every namespace, or one) or
// several do (one per watched namespace, namespaces.ts): change events, a cache to read, and a synced signal.
import type { CacheLister } from './types.js';

export type InformerEvent = 'add' | 'update' | 'delete';
export type InformerHandler<T> = (event: InformerEvent, object: T) => void;

export interface Watched<T> extends CacheLister<T> {
  /** Called for every change, after the cache was updated. */
  on(handler: InformerHandler<T>): void;
  /** True once the first LIST filled the cache. */
  readonly synced: boolean;
  /** Resolves once the first LIST filled the cache. */
  whenSynced(): Promise<void>;
  /** The plural of the watched resource, for logs and readiness reasons. */
  readonly resourcePlural: string;
  start(): void;
  stop(): Promise<void>;
}
