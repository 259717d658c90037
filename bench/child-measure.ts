// What the benches measure of a child process (its wall time, its peak resident set polled from /proc, its output),
// and the cleanup between their runs. Shared by bench/backup.ts and bench/large.ts.
import { spawn } from 'node:child_process';
import { DeleteObjectsCommand, ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import { childEnv } from '../test/env/process-group.js';
import { processMiB } from './proc-status.js';

export interface Measured {
  seconds: number;
  peakRssMiB: number;
  stdout: string;
  stderr: string;
}

/** Runs a command, polling its VmHWM (peak resident set) until it exits; rejects on a non-zero exit. */
export function measure(command: string, args: string[], env: Record<string, string>): Promise<Measured> {
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const child = spawn(command, args, { env: childEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    let peakMiB = 0;
    const poll = setInterval(() => {
      try {
        peakMiB = Math.max(peakMiB, processMiB(child.pid as number, 'VmHWM'));
      } catch {
        // exited between polls
      }
    }, 20);
    child.once('error', reject);
    child.once('close', (code) => {
      clearInterval(poll);
      const seconds = Number(process.hrtime.bigint() - start) / 1e9;
      if (code !== 0) reject(new Error(`${command} exited ${code}: ${stderr.slice(-2000)}`));
      else resolve({ seconds, peakRssMiB: peakMiB, stdout, stderr });
    });
  });
}

/** Deletes every object under `prefix`, so the next run and the next size have the disk to themselves. */
export async function emptyPrefix(s3: S3Client, bucket: string, prefix: string): Promise<void> {
  const listed = await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix }));
  const keys = (listed.Contents ?? []).flatMap((object) => (object.Key ? [{ Key: object.Key }] : []));
  if (keys.length > 0) await s3.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: keys } }));
}
