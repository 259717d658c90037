// Checks an etcd snapshot while it streams: the bbolt file is followed by a 32-byte sha256 of everything
// before it (what `etcdutl snapshot restore` verifies). All bytes pass through unchanged, but the last 32
// are held back until the end, so a mismatch fails the stream before its end is ever released downstream.
import { createHash, type Hash } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';

const trailerBytes = 32;

/** The snapshot's trailing sha256 does not match its content. */
export class SnapshotChecksumError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SnapshotChecksumError';
  }
}

export class SnapshotVerifier extends Transform {
  private readonly content: Hash = createHash('sha256');
  private held: Buffer = Buffer.alloc(0);
  private bytes = 0;
  private fileDigest: string | undefined;

  /** Bytes of the whole snapshot file (content + trailer) seen so far. */
  get size(): number {
    return this.bytes + this.held.length;
  }

  /** sha256 (hex) of the whole snapshot file; set once the stream ended and verified. */
  get sha256(): string | undefined {
    return this.fileDigest;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    if (this.held.length + chunk.length <= trailerBytes) {
      this.held = Buffer.concat([this.held, chunk]);
      callback();
      return;
    }
    if (chunk.length < trailerBytes) {
      // A short chunk: the few held bytes it pushes out are released, the rest is held (≤ 64 bytes copied).
      const data = Buffer.concat([this.held, chunk]);
      this.held = data.subarray(data.length - trailerBytes);
      this.release(data.subarray(0, data.length - trailerBytes));
      callback();
      return;
    }
    // Every held byte is released and the chunk's last 32 are held: no copy of the chunk itself (a copy of each
    // 32 KiB message cost a full extra pass over the snapshot, and the garbage to go with it).
    if (this.held.length > 0) this.release(this.held);
    // Copy the tail so the (large) chunk it came from is not kept alive.
    this.held = Buffer.from(chunk.subarray(chunk.length - trailerBytes));
    this.release(chunk.subarray(0, chunk.length - trailerBytes));
    callback();
  }

  private release(bytes: Buffer): void {
    this.content.update(bytes);
    this.bytes += bytes.length;
    this.push(bytes);
  }

  override _flush(callback: TransformCallback): void {
    if (this.held.length < trailerBytes) {
      callback(
        new SnapshotChecksumError(`snapshot ended after ${this.size} bytes, before its sha256 trailer`),
      );
      return;
    }
    const expected = this.held.toString('hex');
    // The whole file's digest continues the content's: one sha256 pass over the data, not two.
    const file = this.content.copy();
    const actual = this.content.digest('hex');
    if (expected !== actual) {
      callback(
        new SnapshotChecksumError(
          `snapshot sha256 trailer ${expected} does not match its ${this.bytes} bytes of content (sha256 ${actual})`,
        ),
      );
      return;
    }
    file.update(this.held);
    this.bytes += this.held.length;
    this.fileDigest = file.digest('hex');
    const trailer = this.held;
    this.held = Buffer.alloc(0);
    callback(null, trailer);
  }
}
