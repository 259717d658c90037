// A list+watch cache that keeps going: client-node's informer stops on any error other than 410, so
// this one restarts it after a short pause until stop().
import {
  type KubeConfig,
  type KubernetesListObject,
  type KubernetesObject,
  ListWatch,
  Watch,
} from '@kubernetes/client-node';
import type { Logger } from 'pino';

export interface ResilientInformer<T extends KubernetesObject> {
  list(): readonly T[];
  /** Resolves after the first list has been delivered to the handlers. */
  start(): Promise<void>;
  stop(): Promise<void>;
}

export interface InformerHandlers<T> {
  onUpsert(object: T): void;
  onDelete(object: T): void;
}

const restartDelayMs = 1_000;

export function resilientInformer<T extends KubernetesObject>(
  kubeConfig: KubeConfig,
  path: string,
  list: () => Promise<KubernetesListObject<T>>,
  handlers: InformerHandlers<T>,
  log: Logger,
  fieldSelector?: string,
): ResilientInformer<T> {
  const informer = new ListWatch<T>(path, new Watch(kubeConfig), list, false, undefined, fieldSelector);
  let stopped = false;
  informer.on('add', handlers.onUpsert);
  informer.on('update', handlers.onUpsert);
  informer.on('delete', handlers.onDelete);
  informer.on('error', (error) => {
    if (stopped) return;
    log.warn({ path, err: (error as Error | undefined)?.message }, 'Watch failed, restarting');
    setTimeout(() => {
      if (!stopped) informer.start().catch(() => undefined);
    }, restartDelayMs).unref();
  });
  return {
    list: () => informer.list(),
    async start() {
      await informer.start();
    },
    async stop() {
      stopped = true;
      await informer.stop();
    },
  };
}
