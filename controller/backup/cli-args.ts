// Flags of `backup save` and `backup status` (docs/design/conventions.md, "backup save flags") → options.
import { parseArgs } from 'node:util';
import { type ChecksumMode, checksumModes, type S3Options, type ServerSideEncryption } from '../s3/client.js';
import { parseDuration } from './duration.js';
import { BackupError } from './exit-codes.js';
import { defaultKeyTemplate } from './key-template.js';
import type { SaveOptions } from './save.js';
import type { StatusOptions } from './status.js';

const s3Flags = {
  bucket: { type: 'string' },
  's3-endpoint': { type: 'string' },
  region: { type: 'string' },
  'force-path-style': { type: 'boolean' },
  'checksum-mode': { type: 'string' },
} as const;

const saveFlags = {
  ...s3Flags,
  endpoints: { type: 'string' },
  namespace: { type: 'string' },
  cluster: { type: 'string' },
  'key-template': { type: 'string' },
  sse: { type: 'string' },
  'sse-kms-key-id': { type: 'string' },
  compression: { type: 'string' },
  'keep-last': { type: 'string' },
  'max-age': { type: 'string' },
  cacert: { type: 'string' },
  cert: { type: 'string' },
  key: { type: 'string' },
  'part-size-mib': { type: 'string' },
  'queue-size': { type: 'string' },
} as const;

const statusFlags = {
  ...s3Flags,
  prefix: { type: 'string' },
  verify: { type: 'boolean' },
  output: { type: 'string' },
} as const;

export type OutputFormat = 'table' | 'json';

function usage(message: string): BackupError {
  return new BackupError('USAGE', message);
}

function parse<T extends typeof saveFlags | typeof statusFlags>(flags: T, args: string[]) {
  try {
    return parseArgs({ args, options: flags, strict: true, allowPositionals: false }).values;
  } catch (error) {
    throw usage((error as Error).message);
  }
}

function oneOf<T extends string>(
  flag: string,
  value: string | undefined,
  allowed: readonly T[],
  fallback: T,
): T {
  if (value === undefined) return fallback;
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw usage(`--${flag} must be one of ${allowed.join(', ')}, got '${value}'`);
}

function integer(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw usage(`--${flag} must be a whole number, got '${value}'`);
  return Number(value);
}

function required(flag: string, value: string | undefined): string {
  if (!value) throw usage(`--${flag} is required`);
  return value;
}

function s3Options(values: {
  's3-endpoint'?: string;
  region?: string;
  'force-path-style'?: boolean;
  'checksum-mode'?: string;
}): S3Options {
  const endpoint = values['s3-endpoint'];
  if (endpoint !== undefined && !/^https?:\/\/[^/]+/.test(endpoint)) {
    throw usage(`--s3-endpoint must be an http(s) URL, got '${endpoint}'`);
  }
  return {
    endpoint,
    region: values.region ?? 'us-east-1',
    forcePathStyle: values['force-path-style'] ?? false,
    checksumMode: oneOf<ChecksumMode>(
      'checksum-mode',
      values['checksum-mode'],
      checksumModes,
      'when-required',
    ),
  };
}

function encryption(sse: string | undefined, kmsKeyId: string | undefined): ServerSideEncryption | undefined {
  if (sse === undefined) {
    if (kmsKeyId) throw usage('--sse-kms-key-id needs --sse aws:kms');
    return undefined;
  }
  const algorithm = oneOf('sse', sse, ['AES256', 'aws:kms'] as const, 'AES256');
  if (kmsKeyId && algorithm !== 'aws:kms') throw usage('--sse-kms-key-id needs --sse aws:kms');
  return kmsKeyId ? { algorithm, kmsKeyId } : { algorithm };
}

export function parseSaveArgs(args: string[]): SaveOptions {
  const values = parse(saveFlags, args);
  const endpoints = required('endpoints', values.endpoints)
    .split(',')
    .map((endpoint) => endpoint.trim())
    .filter(Boolean);
  for (const endpoint of endpoints) {
    if (!/^https?:\/\/[^/]+/.test(endpoint))
      throw usage(`--endpoints must be http(s) URLs, got '${endpoint}'`);
  }
  if ((values.cert === undefined) !== (values.key === undefined)) throw usage('--cert and --key go together');
  let maxAgeMs: number | undefined;
  try {
    maxAgeMs = values['max-age'] === undefined ? undefined : parseDuration(values['max-age']);
  } catch (error) {
    throw usage(`--max-age: ${(error as Error).message}`);
  }
  const partSizeMiB = integer('part-size-mib', values['part-size-mib']);
  return {
    endpoints,
    etcdTls: { caFile: values.cacert, certFile: values.cert, keyFile: values.key },
    namespace: required('namespace', values.namespace),
    cluster: required('cluster', values.cluster),
    bucket: required('bucket', values.bucket),
    keyTemplate: values['key-template'] ?? defaultKeyTemplate,
    s3: s3Options(values),
    encryption: encryption(values.sse, values['sse-kms-key-id']),
    compression: oneOf('compression', values.compression, ['none', 'gzip'] as const, 'none'),
    retention: { keepLast: integer('keep-last', values['keep-last']), maxAgeMs },
    partSizeBytes: partSizeMiB === undefined ? undefined : partSizeMiB * 1024 * 1024,
    queueSize: integer('queue-size', values['queue-size']),
  };
}

export function parseStatusArgs(args: string[]): StatusOptions & { output: OutputFormat } {
  const values = parse(statusFlags, args);
  return {
    bucket: required('bucket', values.bucket),
    prefix: values.prefix ?? '',
    s3: s3Options(values),
    verify: values.verify ?? false,
    output: oneOf<OutputFormat>('output', values.output, ['table', 'json'], 'table'),
  };
}
