// Free TCP ports on 127.0.0.1 for servers the tests start.
//
// The ports come from below the kernel's ephemeral range (`net.ipv4.ip_local_port_range`), not from it: a port
// the kernel hands out for `listen(0)` is also one it hands out as the source port of any outgoing connection, so
// between "free a moment ago" and the server's own bind, or while a member is stopped and restarted on its ports,
// an etcd peer's or a client's connection could take it ("bind: address already in use", seen in CI). Outside
// the ephemeral range only another explicit bind can, and the ports this process handed out are never handed out
// again.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

const LOWEST = 15_000;
const handedOut = new Set<number>();

/** The first port of the kernel's ephemeral range (32768 when it cannot be read). */
function ephemeralLow(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > LOWEST + 1_000 ? low : 32_768;
  } catch {
    return 32_768;
  }
}
const highest = ephemeralLow() - 1;

function canBind(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen({ host: '127.0.0.1', port, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/** A TCP port on 127.0.0.1 below the ephemeral range that was free a moment ago and that this process has not
 *  handed out before. */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = LOWEST + Math.floor(Math.random() * (highest - LOWEST + 1));
    if (handedOut.has(port)) continue;
    handedOut.add(port);
    if (await canBind(port)) return port;
  }
  throw new Error(`no free port in ${LOWEST}-${highest} after 200 attempts`);
}

/** `count` distinct free ports on 127.0.0.1. */
export async function freePorts(count: number): Promise<number[]> {
  const ports: number[] = [];
  while (ports.length < count) ports.push(await freePort());
  return ports;
}
