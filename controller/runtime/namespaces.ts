// One resource watched in a fixed list of namespaces (the operator's `watchNamespaces`): an informer per namespace,
// read and subscribed to as one. The controller's RBAC then needs LIST and WATCH in those namespaces only, as
// controller-runtime's cache does with `DefaultNamespaces`.
import type { KubernetesObject } from '@kubernetes/client-node';
import { Informer, type InformerHandler, type InformerOptions } from './informer.js';
import type { Watched } from './watched.js';

export class MultiNamespaceInformer<T extends KubernetesObject> implements Watched<T> {
  private readonly informers: ReadonlyMap<string, Informer<T>>;

  constructor(options: Omit<InformerOptions, 'namespace'>, namespaces: readonly string[]) {
    if (namespaces.length === 0) throw new Error('MultiNamespaceInformer needs at least one namespace');
    this.informers = new Map(
      [...new Set(namespaces)].map((namespace) => [namespace, new Informer<T>({ ...options, namespace })]),
    );
  }

  on(handler: InformerHandler<T>): void {
    for (const informer of this.informers.values()) informer.on(handler);
  }

  get synced(): boolean {
    return [...this.informers.values()].every((informer) => informer.synced);
  }

  async whenSynced(): Promise<void> {
    await Promise.all([...this.informers.values()].map((informer) => informer.whenSynced()));
  }

  get resourcePlural(): string {
    return [...this.informers.values()][0]?.resourcePlural as string;
  }

  get(namespace: string, name: string): T | undefined {
    return this.informers.get(namespace)?.get(namespace, name);
  }

  /** Every cached object of the watched namespaces, or those of one (none outside them). */
  list(namespace?: string): T[] {
    if (namespace !== undefined) return this.informers.get(namespace)?.list(namespace) ?? [];
    return [...this.informers.values()].flatMap((informer) => informer.list());
  }

  start(): void {
    for (const informer of this.informers.values()) informer.start();
  }

  async stop(): Promise<void> {
    await Promise.all([...this.informers.values()].map((informer) => informer.stop()));
  }
}
