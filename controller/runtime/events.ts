// Kubernetes Events (core/v1) for the objects the controller acts on, aggregated like client-go's recorder:
// the same (object, type, reason, message) again within `windowMs` bumps `count` and `lastTimestamp` of the
// first Event instead of creating another. Event names are `<object>.<16 hex>`. Recording never fails the
// caller: an Event that cannot be written is logged and dropped (Events are best effort in Kubernetes too).
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import {
  CoreV1Api,
  type CoreV1Event,
  type KubeConfig,
  PatchStrategy,
  V1MicroTime,
} from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { CONTROLLER_NAME } from '../../constructs/conventions/names.js';
import { isNotFound, patchOptions } from './kube.js';
import type { EventRecorder, EventSubject } from './types.js';

export const eventComponent = CONTROLLER_NAME;

export interface EventRecorderOptions {
  readonly kubeConfig: KubeConfig;
  readonly log: Logger;
  /** `reportingInstance` and `source.host`. @default - $POD_NAME or the hostname */
  readonly instance?: string;
  /** Repeats within this window are counted on one Event. @default 600_000 (10 min) */
  readonly windowMs?: number;
  /** Remembered Events for aggregation (oldest forgotten first). @default 1024 */
  readonly cacheSize?: number;
}

interface Seen {
  readonly name: string;
  readonly namespace: string;
  count: number;
  lastMs: number;
}

/** Kubernetes caps an Event message at 1 KiB. */
const maxMessageLength = 1024;

export class KubeEventRecorder implements EventRecorder {
  private readonly api: CoreV1Api;
  private readonly seen = new Map<string, Seen>();
  private readonly instance: string;

  constructor(private readonly options: EventRecorderOptions) {
    this.api = options.kubeConfig.makeApiClient(CoreV1Api);
    this.instance = options.instance ?? (process.env.POD_NAME || hostname());
  }

  async event(
    subject: EventSubject,
    type: 'Normal' | 'Warning',
    reason: string,
    message: string,
  ): Promise<void> {
    const text = message.length > maxMessageLength ? `${message.slice(0, maxMessageLength - 3)}...` : message;
    const id = aggregationKey(subject, type, reason, text);
    const now = Date.now();
    try {
      const previous = this.seen.get(id);
      if (
        previous &&
        now - previous.lastMs < (this.options.windowMs ?? 600_000) &&
        (await this.bump(previous, now))
      ) {
        return;
      }
      const created = await this.create(subject, type, reason, text, now);
      this.remember(id, { name: created, namespace: namespaceOf(subject), count: 1, lastMs: now });
    } catch (error) {
      this.options.log.warn({ err: error, reason, object: subject.metadata.name }, 'Could not record Event');
    }
  }

  /** Counts one more repeat on the existing Event; false when it is gone (expired), so a new one is made. */
  private async bump(seen: Seen, now: number): Promise<boolean> {
    const body = { count: seen.count + 1, lastTimestamp: new Date(now) };
    try {
      await this.api.patchNamespacedEvent(
        { name: seen.name, namespace: seen.namespace, body },
        patchOptions(PatchStrategy.MergePatch),
      );
    } catch (error) {
      if (isNotFound(error)) return false;
      throw error;
    }
    seen.count += 1;
    seen.lastMs = now;
    return true;
  }

  private async create(
    subject: EventSubject,
    type: string,
    reason: string,
    message: string,
    now: number,
  ): Promise<string> {
    const namespace = namespaceOf(subject);
    const name = `${subject.metadata.name ?? 'object'}.${randomBytes(8).toString('hex')}`;
    const body: CoreV1Event = {
      metadata: { name, namespace },
      involvedObject: {
        apiVersion: subject.apiVersion,
        kind: subject.kind,
        name: subject.metadata.name,
        namespace: subject.metadata.namespace,
        uid: subject.metadata.uid,
      },
      type,
      reason,
      message,
      count: 1,
      firstTimestamp: new Date(now),
      lastTimestamp: new Date(now),
      eventTime: new V1MicroTime(now),
      source: { component: eventComponent, host: this.instance },
      reportingComponent: eventComponent,
      reportingInstance: this.instance,
      action: reason,
    };
    await this.api.createNamespacedEvent({ namespace, body });
    return name;
  }

  private remember(id: string, seen: Seen): void {
    this.seen.delete(id);
    this.seen.set(id, seen);
    const limit = this.options.cacheSize ?? 1024;
    for (const oldest of this.seen.keys()) {
      if (this.seen.size <= limit) break;
      this.seen.delete(oldest);
    }
  }
}

function namespaceOf(subject: EventSubject): string {
  return subject.metadata.namespace || 'default';
}

/** Events about the same object with the same type, reason and message aggregate. */
export function aggregationKey(subject: EventSubject, type: string, reason: string, message: string): string {
  const object =
    subject.metadata.uid ?? `${subject.kind}/${subject.metadata.namespace}/${subject.metadata.name}`;
  return JSON.stringify([object, type, reason, message]);
}
