// The API requests one user made, from the API server's audit log (test/env/control-plane.ts `auditUsers`): what the
// scale bench reports at rest and what the e2e tests assert a cluster at rest costs.

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
