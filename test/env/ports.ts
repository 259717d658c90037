// Free TCP ports on 127.0.0.1, chosen by the kernel.
import { createServer } from 'node:net';

/** A TCP port on 127.0.0.1 that was free a moment ago (the kernel picks it; a later bind can still race). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port: 0, exclusive: true }, () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => (port > 0 ? resolve(port) : reject(new Error('kernel gave no port'))));
    });
  });
}

/** `count` distinct free ports on 127.0.0.1. */
export async function freePorts(count: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < count) ports.add(await freePort());
  return [...ports];
}
