// Flags of `restore fetch` → FetchOptions (docs/design/restore.md, "restore fetch flags"). The S3 flags are
// those of `backup save`; credentials come only from the standard AWS environment.
import { parseArgs } from 'node:util';
import { type ChecksumMode, checksumModes } from '../s3/client.js';
import { restoreToolPath } from './etcd-version.js';
import { RestoreError } from './exit-codes.js';
import type { FetchOptions } from './fetch.js';

/** Where our image keeps the restore tools: `<dir>/v<major.minor>/etcdutl` (3.4: `etcdctl`). */
export const defaultToolsDir = '/app/etcd';
export const toolsDirEnv = 'ETCD_GITOPS_ETCD_TOOLS';
export const defaultDataDir = '/var/lib/etcd/data';

const fetchFlags = {
  bucket: { type: 'string' },
  key: { type: 'string' },
  'latest-under-prefix': { type: 'string' },
  's3-endpoint': { type: 'string' },
  region: { type: 'string' },
  'force-path-style': { type: 'boolean' },
  'checksum-mode': { type: 'string' },
  'data-dir': { type: 'string' },
  'etcd-version': { type: 'string' },
  name: { type: 'string' },
  'initial-advertise-peer-urls': { type: 'string' },
  'initial-cluster': { type: 'string' },
  'initial-cluster-token': { type: 'string' },
  etcdutl: { type: 'string' },
} as const;

function usage(message: string): RestoreError {
  return new RestoreError('InvalidArguments', message);
}

function required(flag: string, value: string | undefined): string {
  if (!value) throw usage(`--${flag} is required`);
  return value;
}

function checksumMode(value: string | undefined): ChecksumMode {
  if (value === undefined) return 'when-required';
  if ((checksumModes as readonly string[]).includes(value)) return value as ChecksumMode;
  throw usage(`--checksum-mode must be one of ${checksumModes.join(', ')}, got '${value}'`);
}

function source(values: { bucket?: string; key?: string; 'latest-under-prefix'?: string }) {
  const bucket = required('bucket', values.bucket);
  const { key } = values;
  const prefix = values['latest-under-prefix'];
  if ((key === undefined) === (prefix === undefined)) {
    throw usage('exactly one of --key and --latest-under-prefix is required');
  }
  return key !== undefined ? { bucket, key } : { bucket, latestUnderPrefix: prefix as string };
}

function tool(flag: string | undefined, version: string, env: NodeJS.ProcessEnv): string {
  if (flag) return flag;
  try {
    return restoreToolPath(env[toolsDirEnv] || defaultToolsDir, version);
  } catch (error) {
    throw usage(`--etcd-version: ${(error as Error).message}`);
  }
}

export function parseFetchArgs(args: string[], env: NodeJS.ProcessEnv = process.env): FetchOptions {
  let values: ReturnType<typeof parseArgs<{ args: string[]; options: typeof fetchFlags }>>['values'];
  try {
    values = parseArgs({ args, options: fetchFlags, strict: true, allowPositionals: false }).values;
  } catch (error) {
    throw usage((error as Error).message);
  }
  const endpoint = values['s3-endpoint'];
  if (endpoint !== undefined && !/^https?:\/\/[^/]+/.test(endpoint)) {
    throw usage(`--s3-endpoint must be an http(s) URL, got '${endpoint}'`);
  }
  const peerURL = required('initial-advertise-peer-urls', values['initial-advertise-peer-urls']);
  if (!/^https?:\/\/[^/]+/.test(peerURL)) {
    throw usage(`--initial-advertise-peer-urls must be an http(s) URL, got '${peerURL}'`);
  }
  const clusterVersion = required('etcd-version', values['etcd-version']);
  return {
    source: source(values),
    s3: {
      endpoint,
      region: values.region ?? 'us-east-1',
      forcePathStyle: values['force-path-style'] ?? false,
      checksumMode: checksumMode(values['checksum-mode']),
    },
    dataDir: values['data-dir'] ?? defaultDataDir,
    clusterVersion,
    seed: {
      name: required('name', values.name),
      peerURL,
      token: required('initial-cluster-token', values['initial-cluster-token']),
      ...(values['initial-cluster'] ? { initialCluster: values['initial-cluster'] } : {}),
    },
    restoreTool: tool(values.etcdutl, clusterVersion, env),
  };
}
