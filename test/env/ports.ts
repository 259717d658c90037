// Free TCP ports on 127.0.0.1 for servers the tests start.
//
// The ports come from below the kernel's ephemeral range (`net.ipv4.ip_local_port_range`), not from it: a port
// the kernel hands out for `listen(0)` is also one it hands out as the source port of any outgoing connection, so
// between "free a moment ago" and the server's own bind, or while a member is stopped and restarted on its ports,
// an etcd peer's or a client's connection could take it ("bind: address already in use", seen in CI). Outside
// the ephemeral range only another explicit bind can, and the ports this process handed out are never handed out
// again.
// Test files run two at a time (scripts/run-tests.mjs), each in its own process, and a port one of them handed
// out is free again whenever its server is stopped (an API server or etcd member restarted on its ports) or has
// not bound it yet: the other could hand it out too (a controller's probe port was taken so in CI). The runner
// therefore names a directory shared by its test processes (PORT_CLAIMS_ENV), and a port is handed out only by the
// process that created its file there (an exclusive create: at most one process succeeds). Without the variable
// (one file run by hand) the claims are this process's own.
import { closeSync, openSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';

/** The environment variable naming the directory where the test processes of one run claim their ports. */
export const PORT_CLAIMS_ENV = 'ETCD_GITOPS_TEST_PORT_CLAIMS';

const LOWEST = 15_000;
const handedOut = new Set<number>();
const claimsDir = process.env[PORT_CLAIMS_ENV];

/** True when no test process of this run (this one included) has claimed `port` before; claims it. */
function claim(port: number): boolean {
  if (handedOut.has(port)) return false;
  handedOut.add(port);
  if (!claimsDir) return true;
  try {
    closeSync(openSync(join(claimsDir, String(port)), 'wx'));
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

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

/** A TCP port on 127.0.0.1 below the ephemeral range that was free a moment ago and that no test process of this
 *  run has handed out before. */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = LOWEST + Math.floor(Math.random() * (highest - LOWEST + 1));
    if (claim(port) && (await canBind(port))) return port;
  }
  throw new Error(`no free port in ${LOWEST}-${highest} after 200 attempts`);
}

/** `count` distinct free ports on 127.0.0.1. */
export async function freePorts(count: number): Promise<number[]> {
  const ports: number[] = [];
  while (ports.length < count) ports.push(await freePort());
  return ports;
}
