// The API requests one user made, from the API server's audit log (test/env/control-plane.ts `auditUsers`): what the
// scale bench reports at rest and what the e2e tests assert a cluster at rest costs.
import { readFile } from 'node:fs/promises';
import { waitFor } from './wait.js';

/** One line of the API server's JSON audit log (the fields counted here). */
interface AuditEvent {
  readonly verb?: string;
  readonly objectRef?: { readonly resource?: string; readonly subresource?: string };
  readonly stageTimestamp?: string;
  readonly user?: { readonly username?: string };
}

export interface RequestCount {
  readonly total: number;
  readonly byVerb: Record<string, number>;
  /** By `<verb> <resource>[/<subresource>]`, to tell which reads and writes a pass makes. */
  readonly byRequest: Record<string, number>;
}

/** Requests of `username` that completed in [fromMs, toMs), from audit log text (one JSON event per line). */
export function countRequests(log: string, username: string, fromMs: number, toMs: number): RequestCount {
  const byVerb: Record<string, number> = {};
  const byRequest: Record<string, number> = {};
  let total = 0;
  for (const line of log.split('\n')) {
    if (!line.startsWith('{')) continue;
    const event = JSON.parse(line) as AuditEvent;
    const at = Date.parse(event.stageTimestamp ?? '');
    if (event.user?.username !== username || !(at >= fromMs && at < toMs)) continue;
    const verb = event.verb ?? 'unknown';
    byVerb[verb] = (byVerb[verb] ?? 0) + 1;
    const ref = event.objectRef;
    const what = `${verb} ${ref?.resource ?? '?'}${ref?.subresource ? `/${ref.subresource}` : ''}`;
    byRequest[what] = (byRequest[what] ?? 0) + 1;
    total += 1;
  }
  return { total, byVerb, byRequest };
}

/** The API server writes an audit event once a request completed: the last 2 s may not be in the log yet. */
export const AUDIT_LAG_MS = 2_000;

/** `byRequest` of {@link countRequests} without watches (a watch is open all the time; it is no request at rest). */
export async function requestsButWatches(
  auditLogPath: string,
  username: string,
  fromMs: number,
  toMs: number,
): Promise<Record<string, number>> {
  const { byRequest } = countRequests(await readFile(auditLogPath, 'utf8'), username, fromMs, toMs);
  return Object.fromEntries(Object.entries(byRequest).filter(([what]) => !what.startsWith('watch ')));
}

/**
 * Waits until the audit log shows `quietMs` without a request of `username` but watches (up to `timeoutMs`), so
 * that a rest window starts after the controller's last reaction rather than at a fixed time after a change.
 * Returns the milliseconds waited.
 */
export async function untilNoRequestsButWatches(
  auditLogPath: string,
  username: string,
  options: { readonly quietMs: number; readonly timeoutMs: number; readonly what: string },
): Promise<number> {
  const started = Date.now();
  await waitFor(
    async () => {
      const until = Date.now() - AUDIT_LAG_MS;
      if (until - started < options.quietMs) return false;
      const requests = await requestsButWatches(auditLogPath, username, until - options.quietMs, until);
      return Object.keys(requests).length === 0;
    },
    {
      what: `${options.what}: ${options.quietMs / 1000} s without a request of ${username} but watches`,
      timeoutMs: options.timeoutMs,
      intervalMs: 2_000,
    },
  );
  return Date.now() - started;
}
