// What a restore drill's Pod tells the controller when it ends (docs/design/restore-drill.md, "The report"): the
// backup report's format (controller/backup/termination-report.ts) with a drill's success fields.
import {
  type FailedReport,
  failedReportOf,
  parseReport,
  REPORT_VERSION,
} from '../backup/termination-report.js';

export type DrillReport =
  | {
      readonly v: typeof REPORT_VERSION;
      readonly outcome: 'Succeeded';
      /** The drilled backup. */
      readonly key: string;
      /** The revision the backup recorded (decimal). */
      readonly revision: string;
      /** The revision the restored etcd served: at least `revision` plus the restore's bump (decimal). */
      readonly servedRevision: string;
      /** Keys the restored etcd counted, all of its keyspace. */
      readonly keys: number;
      /** Size of the restored snapshot. */
      readonly sizeBytes: number;
      /** From the start of `drill fetch` to the count. */
      readonly durationMs: number;
    }
  | FailedReport;

/** The drill report in a termination message; `undefined` for anything else. */
export function decodeDrillReport(message: string | undefined): DrillReport | undefined {
  const value = parseReport(message);
  if (!value) return undefined;
  const { key, revision, servedRevision, keys, sizeBytes, durationMs } = value;
  if (
    value.outcome === 'Succeeded' &&
    typeof key === 'string' &&
    typeof revision === 'string' &&
    typeof servedRevision === 'string' &&
    typeof keys === 'number' &&
    typeof sizeBytes === 'number' &&
    typeof durationMs === 'number'
  ) {
    return {
      v: REPORT_VERSION,
      outcome: 'Succeeded',
      key,
      revision,
      servedRevision,
      keys,
      sizeBytes,
      durationMs,
    };
  }
  return failedReportOf(value);
}
