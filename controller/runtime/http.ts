// The probe and metrics HTTP servers: `/healthz`, `/readyz` on the health address, `/metrics` on the metrics one.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { BindAddress } from './bind-address.js';
import type { Metrics } from './metrics.js';

/** A readiness check: undefined when ready, else the reason it is not. */
export type ReadinessCheck = () => string | undefined;

/** A route's answer. */
export interface HttpAnswer {
  readonly status: number;
  readonly contentType: string;
  readonly body: string;
}

export type Route = () => Promise<HttpAnswer> | HttpAnswer;

export interface RunningServer {
  /** The port actually bound (useful with port 0). */
  readonly port: number;
  close(): Promise<void>;
}

const text = (status: number, body: string): HttpAnswer => ({
  status,
  contentType: 'text/plain; charset=utf-8',
  body,
});

/** `/healthz` (the process answers) and `/readyz` (the readiness check passes). */
export function healthRoutes(ready: ReadinessCheck): Record<string, Route> {
  return {
    '/healthz': () => text(200, 'ok\n'),
    '/readyz': () => {
      const reason = ready();
      return reason === undefined ? text(200, 'ok\n') : text(503, `not ready: ${reason}\n`);
    },
  };
}

/** `/metrics` in the Prometheus text format. */
export function metricsRoutes(metrics: Metrics): Record<string, Route> {
  return {
    '/metrics': async () => {
      const { contentType, body } = await metrics.expose();
      return { status: 200, contentType, body };
    },
  };
}

/** Serves GET on the given routes; anything else is 404 (unknown path) or 405 (other method). */
export async function serveHttp(
  address: BindAddress,
  routes: Record<string, Route>,
  log: Logger,
): Promise<RunningServer> {
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://localhost').pathname;
    const route = routes[path];
    const answer =
      route === undefined ? text(404, 'not found\n') : request.method === 'GET' ? route() : text(405, '');
    Promise.resolve(answer)
      .catch((error: unknown) => {
        log.error({ err: error, path }, 'HTTP handler failed');
        return text(500, 'internal error\n');
      })
      .then(({ status, contentType, body }) => {
        response.writeHead(status, { 'content-type': contentType }).end(body);
      });
  });
  await listen(server, address);
  const port = (server.address() as AddressInfo).port;
  log.info({ host: address.host ?? '*', port, paths: Object.keys(routes) }, 'Serving HTTP');
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function listen(server: Server, address: BindAddress): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: address.host, port: address.port }, () => {
      server.off('error', reject);
      resolve();
    });
  });
}
