// MultipartWriter against a recording S3 client: which requests it sends, in which order, how many parts at once,
// and that a part buffer is never refilled while its upload is in flight. (Against real MinIO:
// test/integration/multipart-writer.test.ts.)
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { describe, it } from 'node:test';
import type { S3Client } from '@aws-sdk/client-s3';
import { MultipartWriter } from '../../../controller/s3/multipart-writer.js';

interface Sent {
  readonly command: string;
  readonly input: Record<string, unknown>;
}

/** A fake S3Client: records each command; UploadPart answers when `release` is called (or at once). */
class RecordingS3 {
  readonly sent: Sent[] = [];
  readonly parts = new Map<number, { sha256: string; body: Buffer }>();
  inFlight = 0;
  maxInFlight = 0;
  private readonly held: (() => void)[] = [];

  constructor(
    private readonly options: {
      checksum?: 'WHEN_SUPPORTED' | 'WHEN_REQUIRED';
      holdParts?: boolean;
      failPart?: number;
      failAbort?: boolean;
    } = {},
  ) {}

  readonly config = {
    requestChecksumCalculation: async () => this.options.checksum ?? 'WHEN_REQUIRED',
  };

  async send(command: { constructor: { name: string }; input: Record<string, unknown> }): Promise<unknown> {
    const name = command.constructor.name;
    this.sent.push({ command: name, input: command.input });
    switch (name) {
      case 'CreateMultipartUploadCommand':
        return { UploadId: 'upload-1' };
      case 'UploadPartCommand': {
        const body = command.input.Body as Buffer;
        const number = command.input.PartNumber as number;
        const sha256 = createHash('sha256').update(body).digest('hex');
        this.inFlight++;
        this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
        if (this.options.holdParts) await new Promise<void>((resolve) => this.held.push(resolve));
        else await new Promise((resolve) => setImmediate(resolve));
        this.inFlight--;
        // The bytes must be what they were when the part was sent: its buffer was not refilled meanwhile.
        assert.equal(
          createHash('sha256').update(body).digest('hex'),
          sha256,
          `part ${number} changed in flight`,
        );
        this.parts.set(number, { sha256, body: Buffer.from(body) });
        if (number === this.options.failPart) throw new Error(`InternalError: part ${number} refused`);
        return { ETag: `"etag-${number}"`, ChecksumCRC32: `crc-${number}` };
      }
      case 'AbortMultipartUploadCommand':
        if (this.options.failAbort) throw new Error('abort refused');
        return {};
      default:
        return {};
    }
  }

  /** Answers the held parts, newest first (S3 may finish parts in any order). */
  releaseAll(): void {
    for (const release of this.held.splice(0).reverse()) release();
  }

  /** The bodies of the parts S3 took, in part order. */
  partBodies(): Buffer[] {
    return [...this.parts.keys()].sort((a, b) => a - b).map((n) => this.parts.get(n)!.body);
  }

  commands(): string[] {
    return this.sent.map((s) => s.command.replace(/Command$/, ''));
  }
}

const params = { Bucket: 'b', Key: 'k.part', ContentType: 'application/octet-stream', Metadata: { a: '1' } };

function bytes(length: number, seed: number): Buffer {
  const buffer = Buffer.alloc(length);
  for (let i = 0; i < length; i++) buffer[i] = (i * 31 + seed) & 0xff;
  return buffer;
}

/** `body` as a stream of chunks of `chunk` bytes (the last shorter). */
function chunked(body: Buffer, chunk: number): Readable {
  const chunks: Buffer[] = [];
  for (let offset = 0; offset < body.length; offset += chunk)
    chunks.push(body.subarray(offset, offset + chunk));
  return Readable.from(chunks);
}

/** `body` in one chunk, then (after `delayMs`) the error `message`: a stage before the writer that fails. */
function failsAfter(body: Buffer, message: string, delayMs = 0): Readable {
  return Readable.from(
    (async function* () {
      yield body;
      if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
      throw new Error(message);
    })(),
  );
}

function writer(s3: RecordingS3, partSizeBytes = 100, queueSize = 2): MultipartWriter {
  return new MultipartWriter({ client: s3 as unknown as S3Client, params, partSizeBytes, queueSize });
}

describe('MultipartWriter', () => {
  it('GIVEN a body smaller than one part WHEN it ends THEN one PutObject with the bytes and the params, no multipart upload', async () => {
    const s3 = new RecordingS3();
    const w = writer(s3);
    await pipeline(chunked(bytes(70, 1), 30), w);
    assert.deepEqual(s3.commands(), ['PutObject']);
    const put = s3.sent[0]!.input;
    assert.deepEqual(put.Body, bytes(70, 1));
    assert.equal(put.ContentLength, 70);
    assert.equal(put.ContentType, 'application/octet-stream');
    assert.deepEqual(put.Metadata, { a: '1' });
    assert.deepEqual(await w.outcome, { stored: true, parts: 1 });
  });

  it('GIVEN an empty body WHEN it ends THEN one empty PutObject', async () => {
    const s3 = new RecordingS3();
    await pipeline(Readable.from([]), writer(s3));
    assert.deepEqual(s3.commands(), ['PutObject']);
    assert.equal(s3.sent[0]!.input.ContentLength, 0);
  });

  it('GIVEN 1050 bytes in 37-byte chunks and 100-byte parts WHEN it ends THEN 11 parts of the exact bytes, completed in part order', async () => {
    const s3 = new RecordingS3();
    const body = bytes(1050, 7);
    const w = writer(s3);
    await pipeline(chunked(body, 37), w);
    const commands = s3.commands();
    assert.equal(commands[0], 'CreateMultipartUpload');
    assert.equal(commands.at(-1), 'CompleteMultipartUpload');
    assert.equal(commands.filter((c) => c === 'UploadPart').length, 11);
    assert.equal(s3.sent[0]!.input.ChecksumAlgorithm, undefined);
    assert.deepEqual(s3.sent[0]!.input.Metadata, { a: '1' });
    assert.deepEqual(Buffer.concat(s3.partBodies()), body);
    assert.deepEqual(
      s3.partBodies().map((part) => part.length),
      [100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 50],
    );
    const complete = s3.sent.at(-1)!.input as { UploadId: string; MultipartUpload: { Parts: unknown[] } };
    assert.equal(complete.UploadId, 'upload-1');
    assert.deepEqual(
      complete.MultipartUpload.Parts.map((p) => (p as { PartNumber: number }).PartNumber),
      [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11],
    );
    assert.deepEqual(await w.outcome, { stored: true, parts: 11 });
  });

  it('GIVEN S3 holds every part WHEN the body goes on THEN at most queueSize parts are in flight and writing waits', async () => {
    const s3 = new RecordingS3({ holdParts: true });
    const w = writer(s3, 100, 2);
    const body = bytes(1000, 3);
    const done = pipeline(chunked(body, 50), w);
    // Two parts in flight and a third buffer full: the writer has taken 300 bytes and asks for no more.
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(s3.inFlight, 2);
    assert.equal(s3.commands().filter((c) => c === 'UploadPart').length, 2);
    while (!s3.commands().includes('CompleteMultipartUpload')) {
      s3.releaseAll();
      await new Promise((resolve) => setImmediate(resolve));
    }
    await done;
    assert.equal(s3.maxInFlight, 2);
    assert.deepEqual(Buffer.concat(s3.partBodies()), body);
  });

  it('GIVEN the checksum mode when-supported WHEN it completes THEN the upload asks for CRC32 and Complete lists each part CRC32', async () => {
    const s3 = new RecordingS3({ checksum: 'WHEN_SUPPORTED' });
    await pipeline(chunked(bytes(250, 9), 60), writer(s3));
    assert.equal(s3.sent[0]!.input.ChecksumAlgorithm, 'CRC32');
    const complete = s3.sent.at(-1)!.input as { MultipartUpload: { Parts: unknown[] } };
    assert.deepEqual(complete.MultipartUpload.Parts, [
      { PartNumber: 1, ETag: '"etag-1"', ChecksumCRC32: 'crc-1' },
      { PartNumber: 2, ETag: '"etag-2"', ChecksumCRC32: 'crc-2' },
      { PartNumber: 3, ETag: '"etag-3"', ChecksumCRC32: 'crc-3' },
    ]);
  });

  it('GIVEN a stage before it fails mid-body WHEN the pipeline is torn down THEN no Complete, the upload aborted after its parts settled', async () => {
    const s3 = new RecordingS3();
    const w = writer(s3);
    const failing = failsAfter(bytes(250, 1), 'etcd stream broke', 10);
    await assert.rejects(pipeline(failing, w), /etcd stream broke/);
    assert.deepEqual(await w.outcome, { stored: false, leftoverUpload: false });
    const commands = s3.commands();
    assert.ok(!commands.includes('CompleteMultipartUpload'));
    assert.equal(commands.at(-1), 'AbortMultipartUpload');
    assert.equal(s3.sent.at(-1)!.input.UploadId, 'upload-1');
  });

  it('GIVEN S3 refuses a part WHEN the body goes on THEN the write fails with S3 error, the outcome names it as the writer own, and the upload is aborted', async () => {
    const s3 = new RecordingS3({ failPart: 2 });
    const w = writer(s3);
    await assert.rejects(pipeline(chunked(bytes(1000, 2), 40), w), /part 2 refused/);
    const outcome = await w.outcome;
    assert.ok(!outcome.stored);
    assert.equal(outcome.leftoverUpload, false);
    // The failure is the writer's own (an S3 error), which the save reports as S3's, not etcd's.
    assert.match(outcome.error?.message ?? '', /part 2 refused/);
    assert.ok(!s3.commands().includes('CompleteMultipartUpload'));
    assert.equal(s3.commands().at(-1), 'AbortMultipartUpload');
  });

  it('GIVEN the abort itself fails WHEN the body fails THEN the outcome says an upload may be left', async () => {
    const s3 = new RecordingS3({ failAbort: true });
    const w = writer(s3);
    const failing = failsAfter(bytes(150, 1), 'broke');
    await assert.rejects(pipeline(failing, w), /broke/);
    assert.deepEqual(await w.outcome, { stored: false, leftoverUpload: true });
  });

  it('GIVEN a failure before any part was full WHEN torn down THEN nothing was sent at all', async () => {
    const s3 = new RecordingS3();
    const w = writer(s3);
    const failing = failsAfter(bytes(50, 1), 'broke early');
    await assert.rejects(pipeline(failing, w), /broke early/);
    assert.deepEqual(await w.outcome, { stored: false, leftoverUpload: false });
    assert.deepEqual(s3.commands(), []);
  });
});
