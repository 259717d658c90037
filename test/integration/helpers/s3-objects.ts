// Reading what is in a bucket, for assertions.
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
