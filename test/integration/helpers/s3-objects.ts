// Reading what is in a bucket, for assertions.
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import {
  GetObjectCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { listObjects } from '../../../controller/s3/list.js';

/** Every key in the bucket (optionally under a prefix), in key order. */
export async function keys(s3: S3Client, bucket: string, prefix = ''): Promise<string[]> {
  return (await listObjects(s3, bucket, prefix)).map((object) => object.key);
}

/** Multipart uploads still open in the bucket (incomplete uploads are invisible objects, but hold parts). */
export async function openUploads(s3: S3Client, bucket: string): Promise<string[]> {
  const listed = await s3.send(new ListMultipartUploadsCommand({ Bucket: bucket }));
  return (listed.Uploads ?? []).map((upload) => upload.Key ?? '');
}

export async function download(s3: S3Client, bucket: string, key: string, file: string): Promise<void> {
  const object = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  await pipeline(object.Body as NodeJS.ReadableStream, createWriteStream(file));
}

export async function metadataOf(s3: S3Client, bucket: string, key: string): Promise<Record<string, string>> {
  return (await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: key }))).Metadata ?? {};
}

/** The sha256 (hex) of an object's body, streamed. */
export async function storedSha256(s3: S3Client, bucket: string, key: string): Promise<string> {
  const object = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  const hash = createHash('sha256');
  for await (const chunk of object.Body as AsyncIterable<Buffer>) hash.update(chunk);
  return hash.digest('hex');
}

/** `length` pseudo-random bytes (xorshift32), the same for the same length: a misplaced range changes the hash. */
export function pseudoRandomBytes(length: number): Buffer {
  const bytes = Buffer.alloc(length);
  let x = 2463534242;
  for (let i = 0; i < length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    bytes[i] = x & 0xff;
  }
  return bytes;
}
