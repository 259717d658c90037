// A sink that checks a (possibly gzip-compressed) snapshot without ever failing the stream that feeds it:
// a corrupt snapshot is a verdict to report, and the bytes must keep flowing so the object's own sha256 can
// still be computed upstream.
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import type { Compression } from './metadata.js';
import { SnapshotVerifier } from './snapshot-verifier.js';

export class SnapshotCheck extends Writable {
  readonly verifier = new SnapshotVerifier();
  /** The first problem found (bad gzip, bad trailer); undefined while the snapshot looks right. */
  problem: string | undefined;
  private readonly head: NodeJS.WritableStream & Writable;
  private readonly checked: Promise<void>;

  constructor(compression: Compression) {
    super();
    const stages = compression === 'gzip' ? [createGunzip(), this.verifier] : [this.verifier];
    this.head = stages[0] as NodeJS.WritableStream & Writable;
    const discard = new Writable({ write: (_chunk, _encoding, callback) => callback() });
    this.checked = pipeline([...stages, discard]).catch((error: Error) => {
      this.problem ??= error.message;
    });
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    if (this.problem !== undefined || this.head.destroyed) {
      callback();
      return;
    }
    if (this.head.write(chunk)) {
      callback();
      return;
    }
    const resume = () => {
      this.head.off('drain', resume);
      this.head.off('close', resume);
      callback();
    };
    this.head.once('drain', resume);
    this.head.once('close', resume);
  }

  override _final(callback: (error?: Error | null) => void): void {
    if (!this.head.destroyed) this.head.end();
    void this.checked.then(() => callback());
  }
}
