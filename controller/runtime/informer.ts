// A list+watch cache of one resource type that never gives up (the client's own informer stops on any error
// other than 410 Gone). The loop:
//   1. LIST (paged, label-selector filtered) and replace the cache, emitting add/update/delete for the difference;
//   2. WATCH from the list's resourceVersion (bookmarks on, a server-side timeout of 5-10 min);
//   3. a watch that ends normally is re-opened from the last resourceVersion seen; 410 Gone re-lists;
//   4. any other error (connection refused/reset, 5xx, 403) re-lists after an exponential backoff
//      (0.5 s doubling to 30 s, reset once a watch delivered something).
// Objects are deserialized to the client's models (`V1Pod`, ...), the same shape the typed API clients return.
import { setTimeout as sleep } from 'node:timers/promises';
import { type KubeConfig, type KubernetesObject, Watch } from '@kubernetes/client-node';
// The client's serializer (not re-exported by its index): the same deserialization its typed APIs use.
import { ObjectSerializer } from '@kubernetes/client-node/dist/serializer.js';
import type { Logger } from 'pino';
import { type BackoffOptions, PerKeyBackoff } from './backoff.js';
import { keyString } from './keys.js';
import { listPage } from './list-request.js';
import { apiVersionOf, collectionPath, type ResourceType } from './resources.js';
import type { InformerEvent, InformerHandler, Watched } from './watched.js';

export type { InformerEvent, InformerHandler } from './watched.js';

export interface InformerOptions {
  readonly kubeConfig: KubeConfig;
  readonly resource: ResourceType;
  readonly log: Logger;
  /** Only this namespace. @default - every namespace */
  readonly namespace?: string;
  readonly labelSelector?: string;
  /** Delay before re-listing after an error. @default - 500 ms doubling to 30 s */
  readonly backoff?: BackoffOptions;
  /** Server-side watch timeout. @default - random between 300 and 600 s, like client-go */
  readonly watchTimeoutSeconds?: number;
  /** @default 500 */
  readonly pageSize?: number;
}

interface WatchEnd {
  readonly resourceVersion: string;
  readonly gone: boolean;
  readonly events: number;
}

/** A watch event of type ERROR other than 410. */
class WatchStatusError extends Error {
  constructor(
    readonly statusCode: number | undefined,
    message: string,
  ) {
    super(message);
    this.name = 'WatchStatusError';
  }
}

export class Informer<T extends KubernetesObject> implements Watched<T> {
  private readonly cache = new Map<string, T>();
  private readonly handlers: Array<InformerHandler<T>> = [];
  private readonly backoff: PerKeyBackoff;
  private readonly stopSignal = new AbortController();
  private readonly path: string;
  private readonly log: Logger;
  private running: Promise<void> | undefined;
  private currentWatch: AbortController | undefined;
  private hasSynced = false;
  private errorCount = 0;
  private markSynced: () => void = () => undefined;
  private readonly syncedPromise = new Promise<void>((resolve) => {
    this.markSynced = resolve;
  });

  constructor(private readonly options: InformerOptions) {
    this.backoff = new PerKeyBackoff(options.backoff ?? { initialMs: 500, maxMs: 30_000 });
    this.path = collectionPath(options.resource, options.namespace);
    this.log = options.log.child({ informer: options.resource.plural, labelSelector: options.labelSelector });
  }

  /** Called for every change, after the cache was updated; a throwing handler is logged, not fatal. */
  on(handler: InformerHandler<T>): void {
    this.handlers.push(handler);
  }

  /** True once the first LIST filled the cache (stays true across restarts). */
  get synced(): boolean {
    return this.hasSynced;
  }

  /** Resolves once the first LIST filled the cache. */
  whenSynced(): Promise<void> {
    return this.syncedPromise;
  }

  /** The plural of the watched resource, for logs and readiness reasons. */
  get resourcePlural(): string {
    return this.options.resource.plural;
  }

  /** Errors the informer recovered from (each led to a re-list). */
  get errors(): number {
    return this.errorCount;
  }

  get(namespace: string, name: string): T | undefined {
    return this.cache.get(keyString({ namespace, name }));
  }

  list(namespace?: string): T[] {
    const all = [...this.cache.values()];
    return namespace === undefined ? all : all.filter((object) => object.metadata?.namespace === namespace);
  }

  start(): void {
    this.running ??= this.loop();
  }

  async stop(): Promise<void> {
    this.stopSignal.abort();
    this.currentWatch?.abort();
    await this.running;
  }

  private get stopped(): boolean {
    return this.stopSignal.signal.aborted;
  }

  private async loop(): Promise<void> {
    let resourceVersion: string | undefined;
    while (!this.stopped) {
      try {
        resourceVersion ??= await this.relist();
        const started = Date.now();
        const end = await this.watchOnce(resourceVersion);
        resourceVersion = end.gone ? undefined : end.resourceVersion;
        if (end.events > 0) this.backoff.reset('watch');
        // A watch the server ends at once, without events, must not turn into a busy loop.
        if (end.events === 0 && Date.now() - started < 1_000) await this.pause(this.backoff.next('watch'));
      } catch (error) {
        if (this.stopped) break;
        resourceVersion = undefined;
        this.errorCount += 1;
        const retryInMs = this.backoff.next('watch');
        this.log.warn(
          { err: error, retryInMs, errors: this.errorCount },
          'List/watch failed; re-listing after backoff',
        );
        await this.pause(retryInMs);
      }
    }
    this.log.debug('Informer stopped');
  }

  private pause(ms: number): Promise<void> {
    return sleep(ms, undefined, { signal: this.stopSignal.signal }).catch(() => undefined);
  }

  /** LISTs every page and makes the cache equal to it; returns the list's resourceVersion. */
  private async relist(): Promise<string> {
    const items: T[] = [];
    let continueToken: string | undefined;
    let resourceVersion = '';
    do {
      const page = await listPage(
        this.options.kubeConfig,
        this.path,
        {
          labelSelector: this.options.labelSelector,
          limit: String(this.options.pageSize ?? 500),
          continue: continueToken,
        },
        this.stopSignal.signal,
      );
      for (const raw of page.items ?? []) items.push(this.deserialize(raw));
      continueToken = page.metadata?.continue || undefined;
      resourceVersion = page.metadata?.resourceVersion ?? '';
    } while (continueToken);
    this.replace(items);
    this.hasSynced = true;
    this.markSynced();
    this.log.debug({ objects: items.length, resourceVersion }, 'Listed');
    return resourceVersion;
  }

  private replace(items: T[]): void {
    const fresh = new Map(items.map((object) => [this.keyOf(object), object]));
    for (const [key, old] of this.cache) {
      if (!fresh.has(key)) {
        this.cache.delete(key);
        this.emit('delete', old);
      }
    }
    for (const object of fresh.values()) this.upsert(object);
  }

  private upsert(object: T): void {
    const key = this.keyOf(object);
    const old = this.cache.get(key);
    this.cache.set(key, object);
    if (!old) this.emit('add', object);
    else if (old.metadata?.resourceVersion !== object.metadata?.resourceVersion) this.emit('update', object);
  }

  private remove(object: T): void {
    const key = this.keyOf(object);
    const old = this.cache.get(key);
    this.cache.delete(key);
    this.emit('delete', old ?? object);
  }

  private watchOnce(resourceVersion: string): Promise<WatchEnd> {
    return new Promise((resolve, reject) => {
      let last = resourceVersion;
      let gone = false;
      let events = 0;
      let failure: Error | undefined;
      const onEvent = (phase: string, raw: Record<string, unknown>) => {
        events += 1;
        const outcome = this.apply(phase, raw);
        if (outcome === 'gone') gone = true;
        else if (outcome instanceof Error) failure = outcome;
        else if (outcome) last = outcome;
      };
      const onDone = (error: unknown) => {
        this.currentWatch = undefined;
        if (error || failure) reject(error ?? failure);
        else resolve({ resourceVersion: last, gone, events });
      };
      const query = {
        resourceVersion,
        allowWatchBookmarks: true,
        labelSelector: this.options.labelSelector,
        timeoutSeconds: this.options.watchTimeoutSeconds ?? 300 + Math.floor(Math.random() * 300),
      };
      new Watch(this.options.kubeConfig).watch(this.path, query, onEvent, onDone).then((controller) => {
        this.currentWatch = controller;
        if (this.stopped) controller.abort();
      }, reject);
    });
  }

  /** Applies one watch event; returns its resourceVersion, 'gone' for 410, or the error of an ERROR event. */
  private apply(phase: string, raw: Record<string, unknown>): string | 'gone' | Error | undefined {
    if (phase === 'ERROR') {
      const status = raw as { code?: number; message?: string };
      if (status.code === 410) return 'gone';
      return new WatchStatusError(status.code, `watch error ${status.code}: ${status.message}`);
    }
    const object = this.deserialize(raw);
    if (phase === 'ADDED' || phase === 'MODIFIED') this.upsert(object);
    else if (phase === 'DELETED') this.remove(object);
    return object.metadata?.resourceVersion;
  }

  private deserialize(raw: Record<string, unknown>): T {
    const { resource } = this.options;
    // List items of built-in types come without apiVersion/kind.
    const withType = { apiVersion: apiVersionOf(resource), kind: resource.kind, ...raw };
    return ObjectSerializer.deserialize(withType, resource.model ?? 'KubernetesObject') as T;
  }

  private keyOf(object: T): string {
    return keyString({ namespace: object.metadata?.namespace ?? '', name: object.metadata?.name ?? '' });
  }

  private emit(event: InformerEvent, object: T): void {
    for (const handler of this.handlers) {
      try {
        handler(event, object);
      } catch (error) {
        this.log.error({ err: error, event }, 'Informer handler failed');
      }
    }
  }
}
