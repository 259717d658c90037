// A TCP proxy on 127.0.0.1 in front of the API server, so a test can break the controller's connections
// for real (reset every socket, refuse new ones) without stopping the API server.
import { createConnection, createServer, type Server, type Socket } from 'node:net';

export interface TcpProxy {
  readonly port: number;
  /** Resets every open connection and resets new ones until `restore()`. */
  cut(): void;
  restore(): void;
  /** Connections reset by `cut()` so far. */
  readonly resets: number;
  close(): Promise<void>;
}

/**
 * Resets `socket` (RST) where Node can: a socket already ending (a FIN queued by `pipe`) is only destroyed, since
 * resetting a TCP handle with a shutdown in progress fails and leaves the handle open, and Node 20 then spins at
 * 100% CPU at process exit waiting for it to close (seen in CI: the test file finished, its process never ended).
 */
function reset(socket: Socket): void {
  if (socket.destroyed) return;
  if (socket.writableEnded || socket.connecting) socket.destroy();
  else socket.resetAndDestroy();
}

export async function startTcpProxy(targetPort: number): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let cut = false;
  let resets = 0;
  const server: Server = createServer((client) => {
    if (cut) {
      reset(client);
      return;
    }
    const upstream = createConnection({ host: '127.0.0.1', port: targetPort });
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => socket.destroy());
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen({ host: '127.0.0.1', port: 0 }, resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    port,
    get resets() {
      return resets;
    },
    cut() {
      cut = true;
      for (const socket of sockets) {
        resets += 1;
        reset(socket);
      }
    },
    restore() {
      cut = false;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
