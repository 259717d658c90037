// The bytes of `Maintenance.Snapshot` as a Node stream. grpc-js reads the next message only when the consumer
// asks, so backpressure from S3 reaches etcd through HTTP/2 flow control.
import { Transform, type TransformCallback } from 'node:stream';
import type { Etcd3, ISnapshotResponse } from 'etcd3';

/** A gRPC server stream (grpc-js `ClientReadableStream`) of snapshot responses. */
export type SnapshotCall = NodeJS.ReadableStream & { cancel(): void };

export async function openSnapshot(client: Etcd3): Promise<SnapshotCall> {
  return (await client.maintenance.snapshot()) as unknown as SnapshotCall;
}

/** Unwraps `blob` from each response; fails when the stream ends while etcd still announced bytes. */
export class SnapshotBlobs extends Transform {
  private remaining = '';

  constructor() {
    super({ writableObjectMode: true });
  }

  override _transform(
    response: ISnapshotResponse,
    _encoding: BufferEncoding,
    callback: TransformCallback,
  ): void {
    this.remaining = String(response.remaining_bytes ?? '');
    callback(null, response.blob.length > 0 ? response.blob : undefined);
  }

  override _flush(callback: TransformCallback): void {
    if (this.remaining !== '0') {
      callback(
        new Error(`etcd's snapshot stream ended with ${this.remaining || 'unknown'} bytes still announced`),
      );
      return;
    }
    callback();
  }
}
