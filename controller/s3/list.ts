// Listing keys and reading user metadata, with pagination hidden.
import { HeadObjectCommand, ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';

export interface ListedObject {
  readonly key: string;
  readonly size: number;
  readonly lastModified?: Date;
}

/** Every object under `prefix`, in the store's (key) order. */
export async function listObjects(client: S3Client, bucket: string, prefix: string): Promise<ListedObject[]> {
  const objects: ListedObject[] = [];
  let token: string | undefined;
  do {
    const page = await client.send(
      new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }),
    );
    for (const item of page.Contents ?? []) {
      if (item.Key) objects.push({ key: item.Key, size: item.Size ?? 0, lastModified: item.LastModified });
    }
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  return objects;
}

/** The user metadata of one object (keys lower-case, without `x-amz-meta-`) and its size. */
export async function headObject(
  client: S3Client,
  bucket: string,
  key: string,
): Promise<{ metadata: Record<string, string>; size: number }> {
  const head = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
  const metadata: Record<string, string> = {};
  for (const [name, value] of Object.entries(head.Metadata ?? {})) metadata[name.toLowerCase()] = value;
  return { metadata, size: head.ContentLength ?? 0 };
}
