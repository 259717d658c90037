// Writes a Pod's status through the status subresource, coalescing: at most one request in flight and
// the latest state always written last; failed writes are retried, a vanished Pod ends the writer.
import type { CoreV1Api } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { errorMessage, isNotFound, mergePatch } from './kube.js';
import type { PodStatusPatch } from './pod-status.js';

const retryMs = 1_000;

export class StatusWriter {
  private writing = false;
  private dirty = false;
  private closed = false;

  constructor(
    private readonly core: CoreV1Api,
    private readonly namespace: string,
    private readonly name: string,
    /** Computes the status at write time, so each write carries the newest state. */
    private readonly compute: () => PodStatusPatch,
    private readonly log: Logger,
  ) {}

  /** Asks for a write of the current state. */
  request(): void {
    if (this.closed) return;
    this.dirty = true;
    if (this.writing) return;
    this.writing = true;
    void this.flush().finally(() => {
      this.writing = false;
    });
  }

  /** No more writes (the Pod is going away). */
  close(): void {
    this.closed = true;
  }

  private async flush(): Promise<void> {
    while (this.dirty && !this.closed) {
      this.dirty = false;
      try {
        const body = { status: this.compute() };
        await this.core.patchNamespacedPodStatus(
          { namespace: this.namespace, name: this.name, body },
          mergePatch,
        );
      } catch (error) {
        if (isNotFound(error)) {
          this.closed = true;
          return;
        }
        this.log.warn({ err: errorMessage(error) }, 'Failed to write pod status');
        this.dirty = true;
        await new Promise((resolve) => setTimeout(resolve, retryMs).unref());
      }
    }
  }
}
