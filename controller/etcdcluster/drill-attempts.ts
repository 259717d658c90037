// A restore drill as its ended Pod tells it (docs/design/restore-drill.md, "What the controller makes of it"): the
// failed `fetch` container's report when the restore failed, else the `check` container's.
import type { V1Pod } from '@kubernetes/client-node';
import { DRILL_CHECK_CONTAINER, DRILL_FETCH_CONTAINER } from '../../constructs/conventions/drill.js';
import { drillExitCodeName } from '../drill/exit-codes.js';
import { decodeDrillReport } from '../drill/report.js';
import { type AttemptBase, attemptBaseOf, unreportedFailure } from './backup-attempts.js';

export type DrillAttempt =
  | (AttemptBase & {
      readonly outcome: 'Succeeded';
      /** Absent when the Pod left no report. */
      readonly key?: string;
      readonly revision?: string;
      readonly servedRevision?: string;
      readonly keys?: number;
    })
  | (AttemptBase & { readonly outcome: 'Failed'; readonly code: string; readonly reason: string });

/** The attempt of a drill Pod that has ended (`fetch` failed, or `check` ended); `undefined` for any other Pod. */
export function drillAttemptOf(pod: V1Pod): DrillAttempt | undefined {
  const fetch = pod.status?.initContainerStatuses?.find((status) => status.name === DRILL_FETCH_CONTAINER);
  const fetchEnded = fetch?.state?.terminated ?? fetch?.lastState?.terminated;
  const check = pod.status?.containerStatuses?.find((status) => status.name === DRILL_CHECK_CONTAINER);
  const ended = fetchEnded && fetchEnded.exitCode !== 0 ? fetchEnded : check?.state?.terminated;
  const base = attemptBaseOf(pod, ended);
  if (!base || !ended) return undefined;
  const report = decodeDrillReport(ended.message);
  if (ended.exitCode === 0) {
    if (report?.outcome !== 'Succeeded') return { ...base, outcome: 'Succeeded' };
    const { key, revision, servedRevision, keys } = report;
    return { ...base, outcome: 'Succeeded', key, revision, servedRevision, keys };
  }
  if (report?.outcome === 'Failed')
    return { ...base, outcome: 'Failed', code: report.code, reason: report.reason };
  return { ...base, ...unreportedFailure(ended, drillExitCodeName) };
}
