// Loaded with `node --import <this module>?podIP=<ip>` in front of every Node container of our image
// (see images.ts): Pods share the host's network namespace, so a server listening on every interface
// (`:8081`, as the operator Deployment asks, correctly for a real cluster) would take the port for all
// Pods and the second replica would fail with EADDRINUSE. A real Pod has its own network namespace, where
// "every interface" means its own address: this preload gives the process exactly that, by binding
// listens without a host, or on `0.0.0.0` / `::`, to the Pod IP. Everything else is left alone.
import { Server } from 'node:net';

const podIP = new URL(import.meta.url).searchParams.get('podIP');
const wildcard = new Set([undefined, null, '', '0.0.0.0', '::']);

type Listen = (this: Server, ...args: unknown[]) => Server;

/** The listen arguments with a wildcard host replaced by `ip`; paths, handles and fds stay as given. */
export function podListenArgs(args: unknown[], ip: string): unknown[] {
  const [first, ...rest] = args;
  if (typeof first === 'function') return [0, ip, ...args]; // listen(callback): any port
  if (typeof first === 'object' && first !== null) {
    const options = first as { host?: string; port?: unknown; path?: unknown; fd?: unknown };
    if (options.path !== undefined || options.fd !== undefined || !('port' in options)) return args;
    return wildcard.has(options.host) ? [{ ...options, host: ip }, ...rest] : args;
  }
  const isPort = typeof first === 'number' || (typeof first === 'string' && /^\d+$/.test(first));
  if (!isPort && first !== undefined) return args; // a Unix socket path
  const [second, ...tail] = rest;
  if (typeof second === 'string') return wildcard.has(second) ? [first ?? 0, ip, ...tail] : args;
  return [first ?? 0, ip, ...rest];
}

if (podIP) {
  const listen = Server.prototype.listen as unknown as Listen;
  Server.prototype.listen = function podListen(this: Server, ...args: unknown[]) {
    return listen.apply(this, podListenArgs(args, podIP));
  } as unknown as typeof Server.prototype.listen;
}
