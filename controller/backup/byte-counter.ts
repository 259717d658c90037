// A pass-through that counts bytes and, unless told not to, computes their sha256: the stored object's size and
// digest.
import { createHash, type Hash } from 'node:crypto';
import { Transform, type TransformCallback, type TransformOptions } from 'node:stream';

export interface ByteCounterOptions extends TransformOptions {
  /**
   * Whether to compute the sha256. Off where another stage already hashes the very same bytes (an uncompressed
   * backup is the snapshot the verifier hashes): a second sha256 pass was the largest CPU cost of a save.
   * @default true
   */
  readonly sha256?: boolean;
}

export class ByteCounter extends Transform {
  private readonly hash: Hash | undefined;
  private digest: string | undefined;
  /** Bytes that passed. */
  bytes = 0;

  constructor({ sha256 = true, ...options }: ByteCounterOptions = {}) {
    super(options);
    this.hash = sha256 ? createHash('sha256') : undefined;
  }

  /** sha256 (hex) of every byte that passed; set once the stream ended, never when built with `sha256: false`. */
  get sha256(): string | undefined {
    return this.digest;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.hash?.update(chunk);
    this.bytes += chunk.length;
    callback(null, chunk);
  }

  override _flush(callback: TransformCallback): void {
    this.digest = this.hash?.digest('hex');
    callback();
  }
}
