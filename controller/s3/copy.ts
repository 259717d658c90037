// Server-side copy with new metadata: the "rename" of an S3 `.part` object to its final key.
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateMultipartUploadCommand,
  type S3Client,
  UploadPartCopyCommand,
} from '@aws-sdk/client-s3';
import { encryptionParams, type ServerSideEncryption } from './client.js';

/** S3's limit for a single CopyObject. */
export const maxSingleCopyBytes = 5 * 1024 ** 3;

export interface CopyRequest {
  readonly bucket: string;
  readonly sourceKey: string;
  readonly destinationKey: string;
  /** Size of the source in bytes (decides single vs multipart copy). */
  readonly size: number;
  /** User metadata that replaces the source's. */
  readonly metadata: Record<string, string>;
  readonly contentType: string;
  readonly encryption?: ServerSideEncryption;
  /** Objects larger than this are copied in parts. @default maxSingleCopyBytes */
  readonly singleCopyLimitBytes?: number;
  /** Part size of a multipart copy. @default 512 MiB */
  readonly copyPartBytes?: number;
}

/**
 * Copies `sourceKey` to `destinationKey` inside one bucket with `metadata`. The destination appears only when
 * the copy is complete (a failed multipart copy is aborted), so it never holds a partial body.
 */
export async function copyWithMetadata(client: S3Client, request: CopyRequest): Promise<void> {
  const copySource = `${request.bucket}/${encodeURIComponent(request.sourceKey).replaceAll('%2F', '/')}`;
  const common = {
    Bucket: request.bucket,
    Key: request.destinationKey,
    Metadata: request.metadata,
    ContentType: request.contentType,
    ...encryptionParams(request.encryption),
  };
  if (request.size <= (request.singleCopyLimitBytes ?? maxSingleCopyBytes)) {
    await client.send(
      new CopyObjectCommand({ ...common, CopySource: copySource, MetadataDirective: 'REPLACE' }),
    );
    return;
  }
  const { UploadId } = await client.send(new CreateMultipartUploadCommand(common));
  const abort = { Bucket: request.bucket, Key: request.destinationKey, UploadId };
  try {
    const partBytes = request.copyPartBytes ?? 512 * 1024 ** 2;
    const parts: { ETag: string; PartNumber: number }[] = [];
    for (let start = 0, number = 1; start < request.size; start += partBytes, number++) {
      const end = Math.min(start + partBytes, request.size) - 1;
      const part = await client.send(
        new UploadPartCopyCommand({
          ...abort,
          PartNumber: number,
          CopySource: copySource,
          CopySourceRange: `bytes=${start}-${end}`,
        }),
      );
      parts.push({ ETag: part.CopyPartResult?.ETag ?? '', PartNumber: number });
    }
    await client.send(new CompleteMultipartUploadCommand({ ...abort, MultipartUpload: { Parts: parts } }));
  } catch (error) {
    await client.send(new AbortMultipartUploadCommand(abort)).catch(() => undefined);
    throw error;
  }
}
