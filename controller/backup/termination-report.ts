// What a backup Pod tells the controller when it ends: one JSON object in its container's termination message
// (docs/design/backup-status.md, "Who reports"). `backup save` writes it; the controller reads it from the Pod.
// A restore drill's report (controller/drill/report.ts) shares the format and its failure shape.
import { writeFileSync } from 'node:fs';
import type { Logger } from 'pino';

/** The kubelet keeps at most this many bytes of a container's termination message. */
export const TERMINATION_MESSAGE_LIMIT_BYTES = 4096;

/** The report format's version; a reader ignores reports of another. */
export const REPORT_VERSION = 1;

/** How any of our Jobs' reports tells a failure: the exit code's name and the reason it logs. */
export interface FailedReport {
  readonly v: typeof REPORT_VERSION;
  readonly outcome: 'Failed';
  /** The exit code's name (`S3_ERROR`, `ETCD_UNAVAILABLE`, ...). */
  readonly code: string;
  readonly reason: string;
}

export type BackupReport =
  | {
      readonly v: typeof REPORT_VERSION;
      readonly outcome: 'Succeeded';
      readonly key: string;
      readonly revision: string;
      /** Size of the stored object. */
      readonly sizeBytes: number;
      readonly durationMs: number;
    }
  | FailedReport;

const ELLIPSIS = '…';
const byteLength = (text: string) => Buffer.byteLength(text, 'utf8');

/**
 * A report as one JSON line of at most `TERMINATION_MESSAGE_LIMIT_BYTES` bytes: a failure's reason is cut (and ends
 * with `…`) when the whole would not fit. A success's fields are bounded (a key is at most 1024 bytes in S3).
 */
export function encodeReport<T extends { readonly outcome: string }>(report: T): string {
  const whole = JSON.stringify(report);
  if (byteLength(whole) <= TERMINATION_MESSAGE_LIMIT_BYTES || !isFailed(report)) return whole;
  const characters = [...report.reason];
  // The longest prefix of the reason that fits, found by bisection over whole characters (never half a UTF-8
  // sequence).
  let fits = 0;
  let tooLong = characters.length;
  while (tooLong - fits > 1) {
    const middle = Math.floor((fits + tooLong) / 2);
    const candidate = JSON.stringify({ ...report, reason: characters.slice(0, middle).join('') + ELLIPSIS });
    if (byteLength(candidate) <= TERMINATION_MESSAGE_LIMIT_BYTES) fits = middle;
    else tooLong = middle;
  }
  return JSON.stringify({ ...report, reason: characters.slice(0, fits).join('') + ELLIPSIS });
}

export const encodeBackupReport: (report: BackupReport) => string = encodeReport;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function isFailed(report: { readonly outcome: string }): report is FailedReport {
  return report.outcome === 'Failed';
}

/** The JSON object of a report of this version in a termination message; `undefined` for anything else. */
export function parseReport(message: string | undefined): Record<string, unknown> | undefined {
  if (!message) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(message);
  } catch {
    return undefined;
  }
  return isObject(value) && value.v === REPORT_VERSION ? value : undefined;
}

/** A parsed report's failure, or `undefined` when it is not one. */
export function failedReportOf(value: Record<string, unknown>): FailedReport | undefined {
  return value.outcome === 'Failed' && typeof value.code === 'string' && typeof value.reason === 'string'
    ? { v: REPORT_VERSION, outcome: 'Failed', code: value.code, reason: value.reason }
    : undefined;
}

/** Writes an encoded report; a file that cannot be written is logged, never a failure of the command itself. */
export function writeReport(path: string, encoded: string, log: Logger): void {
  try {
    writeFileSync(path, encoded);
  } catch (error) {
    log.warn({ path, err: (error as Error).message }, 'Could not write the termination report');
  }
}

/** The report in a termination message; `undefined` for an empty message, another format or another version. */
export function decodeBackupReport(message: string | undefined): BackupReport | undefined {
  const value = parseReport(message);
  if (!value) return undefined;
  if (
    value.outcome === 'Succeeded' &&
    typeof value.key === 'string' &&
    typeof value.revision === 'string' &&
    typeof value.sizeBytes === 'number' &&
    typeof value.durationMs === 'number'
  ) {
    const { key, revision, sizeBytes, durationMs } = value;
    return { v: REPORT_VERSION, outcome: 'Succeeded', key, revision, sizeBytes, durationMs };
  }
  return failedReportOf(value);
}
