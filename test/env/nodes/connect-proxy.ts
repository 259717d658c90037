// An HTTP CONNECT proxy that runs inside the environment namespace and listens on a Unix socket, so a process on
// this machine (a test driving the reconciler in-process, its etcd writer) reaches what a Pod would: Pod IPs, Service
// cluster IPs, and cluster DNS names (answered by the environment's CoreDNS). The environment points gRPC at it
// (`grpc_proxy`, honoured by @grpc/grpc-js, hence by etcd3) through a loopback port.
// It also listens on 127.0.0.1:<port> inside the namespace, for processes a test starts there.
// Usage: node connect-proxy.js <socket> <port> <dns server> <cluster domain>
import { Resolver } from 'node:dns/promises';
import { createServer, type IncomingMessage } from 'node:http';
import { connect, isIP } from 'node:net';
import type { Duplex } from 'node:stream';

/** The name to look up: `<...>.svc` names get the cluster domain, as a Pod's search list would add it. */
export function clusterName(host: string, domain: string): string {
  return host.endsWith('.svc') ? `${host}.${domain}` : host;
}

function main(): void {
  const [socketPath, port, dnsServer, domain] = process.argv.slice(2);
  if (!socketPath || !port || !dnsServer || !domain) {
    console.error('usage: connect-proxy.js <socket> <port> <dns server> <cluster domain>');
    process.exit(2);
  }
  const resolver = new Resolver({ timeout: 2_000, tries: 2 });
  resolver.setServers([dnsServer]);
  const onConnect = (request: IncomingMessage, client: Duplex, head: Buffer) => {
    const target = request.url ?? '';
    const colon = target.lastIndexOf(':');
    const host = target.slice(0, colon).replace(/^\[|\]$/g, '');
    const port = Number(target.slice(colon + 1));
    const fail = (status: string, why: string) => {
      console.error(JSON.stringify({ target, status, why }));
      client.end(`HTTP/1.1 ${status}\r\n\r\n`);
    };
    client.on('error', () => undefined);
    const address = isIP(host)
      ? Promise.resolve(host)
      : resolver.resolve4(clusterName(host, domain)).then((addresses) => addresses[0] ?? '');
    address.then(
      (ip) => {
        const upstream = connect(port, ip, () => {
          client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
          if (head.length > 0) upstream.write(head);
          upstream.pipe(client);
          client.pipe(upstream);
        });
        upstream.on('error', (error) =>
          client.writable ? fail('502 Bad Gateway', error.message) : undefined,
        );
        client.on('close', () => upstream.destroy());
        upstream.on('close', () => client.destroy());
      },
      (error: Error) => fail('502 Bad Gateway', `cannot resolve ${host}: ${error.message}`),
    );
  };
  for (const address of [{ path: socketPath }, { host: '127.0.0.1', port: Number(port) }]) {
    const server = createServer((_, response) => {
      response.writeHead(405).end('CONNECT only\n');
    });
    server.on('connect', onConnect);
    server.listen(address);
  }
  process.on('SIGTERM', () => process.exit(0));
}

if (process.argv[1]?.endsWith('connect-proxy.js')) main();
