// The bytes of `Maintenance.Snapshot` as a Node stream. grpc-js reads the next message only when the consumer
// asks, so backpressure from S3 reaches etcd through HTTP/2 flow control.
import { Transform, type TransformCallback } from 'node:stream';
import type { SnapshotResponse } from '../etcd/maintenance-messages.js';

/** Unwraps `blob` from each response; fails when the stream ends while etcd still announced bytes. */
export class SnapshotBlobs extends Transform {
  /** `remaining_bytes` of the last response; `undefined` before the first. */
  private remaining: bigint | undefined;

  constructor() {
    super({ writableObjectMode: true });
  }

  override _transform(
    response: SnapshotResponse,
    _encoding: BufferEncoding,
    callback: TransformCallback,
  ): void {
    this.remaining = response.remainingBytes;
    callback(null, response.blob.length > 0 ? response.blob : undefined);
  }

  override _flush(callback: TransformCallback): void {
    if (this.remaining !== 0n) {
      callback(
        new Error(`etcd's snapshot stream ended with ${this.remaining ?? 'unknown'} bytes still announced`),
      );
      return;
    }
    callback();
  }
}
