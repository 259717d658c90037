// Runs byte chunks through one stream stage and collects what comes out (the backup stages' unit tests).
import { Readable, type Transform, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/** Pipes `chunks` through `stage`; resolves every byte it released, in order. */
export async function passThrough(chunks: readonly Buffer[], stage: Transform): Promise<Buffer> {
  const out: Buffer[] = [];
  await pipeline(
    Readable.from(chunks),
    stage,
    new Writable({
      write(chunk: Buffer, _encoding, callback) {
        out.push(chunk);
        callback();
      },
    }),
  );
  return Buffer.concat(out);
}
