// Runs the compiled `etcd-gitops backup|restore|defrag ...` as a child process, the way the CronJob's container runs
// it, with S3 credentials in the standard AWS environment variables.
import { spawn } from 'node:child_process';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { shippedCli } from '../../../image/shipped-code.js';
import type { Minio } from '../../env/minio.js';
import { childEnv } from '../../env/process-group.js';

export interface CliResult {
  code: number | null;
  stdout: string;
  /** JSON log lines from stderr. */
  logs: Record<string, unknown>[];
  stderr: string;
}

export const cliPath = shippedCli;

/** AWS_* variables for MinIO (as the CronJob fills them from a Secret). */
export function awsEnv(minio: Pick<Minio, 'accessKey' | 'secretKey'>): Record<string, string> {
  return {
    AWS_ACCESS_KEY_ID: minio.accessKey,
    AWS_SECRET_ACCESS_KEY: minio.secretKey,
    AWS_REGION: 'us-east-1',
  };
}

/** The S3 flags for MinIO. */
export function s3Args(minio: Pick<Minio, 'endpoint'>, bucket: string): string[] {
  return [`--bucket=${bucket}`, `--s3-endpoint=${minio.endpoint}`, '--force-path-style'];
}

/**
 * Runs `etcd-gitops <command> <args>` from build/ as a child process and collects its exit code, stdout and the
 * JSON log lines of stderr. `onSpawn` gets the child's pid (to signal it mid-run).
 */
export function runCli(
  command: 'backup' | 'restore' | 'defrag' | 'drill',
  args: string[],
  env: Record<string, string> = {},
  onSpawn?: (pid: number) => void,
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cliPath, command, ...args], {
      env: childEnv({ ...env, LOG_LEVEL: 'debug' }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    if (child.pid) onSpawn?.(child.pid);
    child.once('error', reject);
    child.once('close', (code) => {
      const logs = stderr
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      resolve({ code, stdout, stderr, logs });
    });
  });
}

/** `etcd-gitops backup <args>` (see {@link runCli}). */
export function runBackupCli(
  args: string[],
  env: Record<string, string>,
  onSpawn?: (pid: number) => void,
): Promise<CliResult> {
  return runCli('backup', args, env, onSpawn);
}

/** An S3 client for MinIO with explicit credentials. */
export function minioClient(minio: Pick<Minio, 'endpoint' | 'accessKey' | 'secretKey'>): S3Client {
  return new S3Client({
    endpoint: minio.endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: minio.accessKey, secretAccessKey: minio.secretKey },
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}

let buckets = 0;
/** Creates a fresh bucket with a unique name and returns the name. */
export async function createBucket(s3: S3Client, stem = 'backups'): Promise<string> {
  const name = `${stem}-${process.pid}-${++buckets}`;
  await s3.send(new CreateBucketCommand({ Bucket: name }));
  return name;
}

/** The reason of the final error log line, for assertions on messages. */
export function failureReason(result: CliResult): string {
  const line = result.logs.findLast((log) => log.level === 50);
  return String(line?.reason ?? line?.msg ?? result.stderr);
}
