// Counting one user's requests in a window from the API server's audit log (test/env/audit-log.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { countRequests } from '../../env/audit-log.js';

describe('countRequests', () => {
  it('GIVEN an audit log THEN only the user’s requests completed inside the window count, by verb', () => {
    const line = (user: string, verb: string, at: string) =>
      JSON.stringify({
        verb,
        stageTimestamp: at,
        user: { username: user },
        objectRef: { resource: 'pods', ...(verb === 'get' ? { subresource: 'status' } : {}) },
      });
    const log = [
      line('me', 'get', '2026-01-01T00:00:00.500Z'),
      line('me', 'watch', '2026-01-01T00:00:01.000Z'),
      line('me', 'get', '2026-01-01T00:00:02.000Z'),
      line('other', 'get', '2026-01-01T00:00:01.000Z'),
      line('me', 'get', '2025-12-31T23:59:59.999Z'),
      '',
    ].join('\n');
    const from = Date.parse('2026-01-01T00:00:00Z');
    const to = Date.parse('2026-01-01T00:00:02Z');
    assert.deepEqual(countRequests(log, 'me', from, to), {
      total: 2,
      byVerb: { get: 1, watch: 1 },
      byRequest: { 'get pods/status': 1, 'watch pods': 1 },
    });
  });
});
