import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import {
  healthRoutes,
  metricsRoutes,
  type RunningServer,
  serveHttp,
} from '../../../controller/runtime/http.js';
import { Metrics } from '../../../controller/runtime/metrics.js';

const log = pino({ level: 'silent' });

describe('probe and metrics HTTP server', () => {
  let server: RunningServer;
  let notReadyBecause: string | undefined = 'informers not synced';
  const url = (path: string) => `http://127.0.0.1:${server.port}${path}`;

  before(async () => {
    const metrics = new Metrics({ processMetrics: false });
    const routes = { ...healthRoutes(() => notReadyBecause), ...metricsRoutes(metrics) };
    server = await serveHttp({ host: '127.0.0.1', port: 0 }, routes, log);
  });
  after(() => server.close());

  it('answers /healthz while the process runs', async () => {
    const response = await fetch(url('/healthz'));
    assert.equal(response.status, 200);
  });

  it('fails /readyz with the reason until the check passes', async () => {
    // GIVEN informers that have not synced, THEN /readyz is 503 with the reason
    const before = await fetch(url('/readyz'));
    assert.equal(before.status, 503);
    assert.match(await before.text(), /informers not synced/);
    // WHEN they have, THEN it is 200
    notReadyBecause = undefined;
    assert.equal((await fetch(url('/readyz'))).status, 200);
  });

  it('serves /metrics in the Prometheus text format', async () => {
    const response = await fetch(url('/metrics'));
    assert.equal(response.status, 200);
    assert.match(await response.text(), /# TYPE etcd_gitops_leader gauge/);
  });

  it('fails when the path is unknown or the method is not GET', async () => {
    assert.equal((await fetch(url('/nope'))).status, 404);
    assert.equal((await fetch(url('/metrics'), { method: 'POST' })).status, 405);
  });
});
