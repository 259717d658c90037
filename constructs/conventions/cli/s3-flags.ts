// The S3 flags every command that talks to object storage takes (credentials never: the AWS environment).
import { CHECKSUM_MODES } from '../s3.js';
import type { FlagTable } from './flag-table.js';

export const S3_FLAGS = {
  bucket: { name: 'bucket', kind: 'string', required: true },
  s3Endpoint: { name: 's3-endpoint', kind: 'string', format: 'url' },
  region: { name: 'region', kind: 'string' },
  forcePathStyle: { name: 'force-path-style', kind: 'boolean' },
  checksumMode: { name: 'checksum-mode', kind: 'string', allowed: CHECKSUM_MODES },
} as const satisfies FlagTable;
