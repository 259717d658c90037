// A Writable that stores everything written to it as one S3 object, for a body of unknown length: the bytes are
// copied into `queueSize + 1` part buffers allocated once and reused, `queueSize` parts upload while the next fills,
// and writes wait while every buffer is busy (backpressure). Ending it completes the upload (or, under one part,
// sends one PutObject); destroying it, with or without an error, aborts the multipart upload after the parts in
// flight settled. Why ours and not lib-storage's `Upload`: docs/adr/0008-own-multipart-writer.md.
import { Writable } from 'node:stream';
import {
  AbortMultipartUploadCommand,
  ChecksumAlgorithm,
  type CompletedPart,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  PutObjectCommand,
  type PutObjectCommandInput,
  type S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';

/** S3 allows at most this many parts in one upload. */
export const MAX_PARTS = 10_000;

/** The object's own parameters, as PutObject takes them (no body). */
export type ObjectParams = Pick<
  PutObjectCommandInput,
  'Bucket' | 'Key' | 'ContentType' | 'Metadata' | 'ServerSideEncryption' | 'SSEKMSKeyId'
> & { readonly Bucket: string; readonly Key: string };

export interface MultipartWriterOptions {
  readonly client: S3Client;
  readonly params: ObjectParams;
  /** Bytes per part (S3: 5 MiB to 5 GiB; every part but the last has exactly this size). */
  readonly partSizeBytes: number;
  /** Parts uploaded at once. */
  readonly queueSize: number;
}

/** How the writer ended: the object stored, or the upload aborted (or not, when the abort itself failed). */
export type WriterOutcome =
  | { readonly stored: true; readonly parts: number }
  | {
      readonly stored: false;
      readonly leftoverUpload: boolean;
      /** The S3 request (or S3 limit) that failed the writer itself; none when another stage failed first. */
      readonly error?: Error;
    };

export class MultipartWriter extends Writable {
  private readonly client: S3Client;
  private readonly params: ObjectParams;
  private readonly partSize: number;
  private readonly queueSize: number;
  private readonly free: Buffer[];
  private current: Buffer;
  private filled = 0;
  private uploadId: string | undefined;
  private creating: Promise<string> | undefined;
  private readonly completed: CompletedPart[] = [];
  private readonly inFlight = new Set<Promise<void>>();
  private partNumber = 0;
  private failure: Error | undefined;
  private failedBy: Error | undefined;
  private wake: (() => void) | undefined;
  private resolveOutcome!: (outcome: WriterOutcome) => void;
  /** Settles once the object is stored or the upload was aborted; never rejects. */
  readonly outcome: Promise<WriterOutcome>;

  constructor(options: MultipartWriterOptions) {
    super({ decodeStrings: true });
    this.client = options.client;
    this.params = options.params;
    this.partSize = options.partSizeBytes;
    this.queueSize = options.queueSize;
    this.free = Array.from({ length: options.queueSize }, () => Buffer.allocUnsafe(options.partSizeBytes));
    this.current = Buffer.allocUnsafe(options.partSizeBytes);
    this.outcome = new Promise((resolve) => {
      this.resolveOutcome = resolve;
    });
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.copyIn(chunk).then(
      () => callback(),
      (error: Error) => callback(this.ownFailure(error)),
    );
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.finish().then(
      (parts) => {
        this.resolveOutcome({ stored: true, parts });
        callback();
      },
      (error: Error) => callback(this.ownFailure(error)),
    );
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.wake?.();
    this.abort().then((leftoverUpload) => {
      this.resolveOutcome({
        stored: false,
        leftoverUpload,
        ...(this.failedBy ? { error: this.failedBy } : {}),
      });
      callback(error);
    });
  }

  /** Remembers an error of the writer's own requests (not the one it throws after being torn down). */
  private ownFailure(error: Error): Error {
    if (!this.destroyed) this.failedBy ??= error;
    return error;
  }

  private async copyIn(chunk: Buffer): Promise<void> {
    if (this.failure) throw this.failure;
    let offset = 0;
    while (offset < chunk.length) {
      if (this.destroyed) throw new Error('the multipart writer was destroyed');
      const taken = chunk.copy(this.current, this.filled, offset);
      this.filled += taken;
      offset += taken;
      if (this.filled === this.partSize) await this.sendCurrent();
    }
  }

  /**
   * Waits until fewer than `queueSize` parts are in flight, starts uploading the current buffer and takes a free
   * one to fill next (there is one: `queueSize + 1` buffers, at most `queueSize` of them in flight).
   */
  private async sendCurrent(): Promise<void> {
    if (this.partNumber >= MAX_PARTS)
      throw new Error(
        `the body is larger than ${MAX_PARTS} parts of ${this.partSize} bytes (S3's limit); use a larger part size`,
      );
    const uploadId = await this.ensureUpload();
    while (this.inFlight.size >= this.queueSize && !this.failure && !this.destroyed) {
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
    }
    if (this.failure) throw this.failure;
    if (this.destroyed) throw new Error('the multipart writer was destroyed');
    const buffer = this.current;
    const number = ++this.partNumber;
    const sent: Promise<void> = this.client
      .send(
        new UploadPartCommand({
          Bucket: this.params.Bucket,
          Key: this.params.Key,
          UploadId: uploadId,
          PartNumber: number,
          Body: buffer.subarray(0, this.filled),
          ContentLength: this.filled,
        }),
      )
      .then((result) => {
        if (!result.ETag) throw new Error(`S3 answered part ${number} without an ETag`);
        this.completed.push({
          PartNumber: number,
          ETag: result.ETag,
          ...(result.ChecksumCRC32 ? { ChecksumCRC32: result.ChecksumCRC32 } : {}),
        });
      })
      .catch((error: unknown) => {
        this.failure ??= error as Error;
      })
      .finally(() => {
        this.inFlight.delete(sent);
        this.free.push(buffer);
        this.wake?.();
      });
    this.inFlight.add(sent);
    this.filled = 0;
    this.current = this.free.pop() as Buffer;
  }

  private ensureUpload(): Promise<string> {
    this.creating ??= (async () => {
      const crc32 = (await this.client.config.requestChecksumCalculation()) === 'WHEN_SUPPORTED';
      const created = await this.client.send(
        new CreateMultipartUploadCommand({
          ...this.params,
          ...(crc32 ? { ChecksumAlgorithm: ChecksumAlgorithm.CRC32 } : {}),
        }),
      );
      if (!created.UploadId) throw new Error('S3 created a multipart upload without an UploadId');
      this.uploadId = created.UploadId;
      return created.UploadId;
    })();
    return this.creating;
  }

  private async finish(): Promise<number> {
    if (this.partNumber === 0) {
      await this.client.send(
        new PutObjectCommand({
          ...this.params,
          Body: this.current.subarray(0, this.filled),
          ContentLength: this.filled,
        }),
      );
      return 1;
    }
    if (this.filled > 0) await this.sendCurrent();
    await Promise.all(this.inFlight);
    if (this.failure) throw this.failure;
    await this.client.send(
      new CompleteMultipartUploadCommand({
        Bucket: this.params.Bucket,
        Key: this.params.Key,
        UploadId: this.uploadId,
        MultipartUpload: {
          Parts: [...this.completed].sort((a, b) => (a.PartNumber ?? 0) - (b.PartNumber ?? 0)),
        },
      }),
    );
    this.uploadId = undefined;
    return this.partNumber;
  }

  /** Waits for the parts in flight, then aborts an upload that was created and not completed. */
  private async abort(): Promise<boolean> {
    await this.creating?.catch(() => undefined);
    await Promise.all(this.inFlight);
    if (!this.uploadId) return false;
    try {
      await this.client.send(
        new AbortMultipartUploadCommand({
          Bucket: this.params.Bucket,
          Key: this.params.Key,
          UploadId: this.uploadId,
        }),
      );
      return false;
    } catch {
      return true;
    }
  }
}
