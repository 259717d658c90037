// Loopback ports of this machine forwarded into an environment's network namespace, so tests and people
// reach the API server, MinIO and Pods without any address outside loopback in the host's namespace.
// Two socat processes per port, joined by a Unix socket (a socket file is reachable from every namespace):
//   host:  127.0.0.1:<port>  ->  <dir>/<name>.sock
//   netns: <dir>/<name>.sock ->  <target host>:<target port>
import { join } from 'node:path';
import type { ManagedProcess } from '../process-group.js';
import { startProcess } from '../process-group.js';

export interface ForwardSpec {
  /** Short name: socket and log file names. */
  name: string;
  /** The loopback port on this machine. */
  localPort: number;
  /** Where connections go inside the namespace. @default '127.0.0.1' */
  targetHost?: string;
  /** @default localPort */
  targetPort?: number;
}

/** The Unix socket that joins the two halves of the forward `name` in `dir`; it exists once the inner half listens. */
export function forwardSocketPath(dir: string, name: string): string {
  return join(dir, `${name}.sock`);
}

/** Starts the two halves of a forward; `track` records each process for teardown. */
export function forwardPort(
  netnsPath: string,
  dir: string,
  spec: ForwardSpec,
  track: (p: ManagedProcess) => ManagedProcess,
): ManagedProcess[] {
  const socket = forwardSocketPath(dir, spec.name);
  const target = `${spec.targetHost ?? '127.0.0.1'}:${spec.targetPort ?? spec.localPort}`;
  return [
    track(
      startProcess({
        name: `forward-${spec.name}-netns`,
        command: 'socat',
        args: [`UNIX-LISTEN:${socket},fork,unlink-early`, `TCP:${target}`],
        logPath: join(dir, `${spec.name}.log`),
        netns: netnsPath,
      }),
    ),
    track(
      startProcess({
        name: `forward-${spec.name}-host`,
        command: 'socat',
        args: [`TCP-LISTEN:${spec.localPort},bind=127.0.0.1,fork,reuseaddr`, `UNIX-CONNECT:${socket}`],
        logPath: join(dir, `${spec.name}.log`),
      }),
    ),
  ];
}
