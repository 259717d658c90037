// What docs/design/tls.md relies on, against real etcd 3.4, 3.5 and 3.6: three members on loopback with client and
// peer TLS and exactly the TLS flags of a member Pod (`memberTlsFlags`, files mapped from the Pod's mounts to this
// test's directories), each certificate directory written the way the kubelet writes a Secret volume.
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { mkdir, mkdtemp, readFile, readlink, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { connect as netConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { after, before, describe, test } from 'node:test';
import { connect as tlsConnect } from 'node:tls';
import { noop } from 'cockatiel';
import { Etcd3 } from 'etcd3';
import {
  MEMBER_CLIENT_TLS_DIR,
  MEMBER_PEER_TLS_DIR,
  memberTlsFlags,
  peerAllowedHostname,
  peerDnsNames,
  servingDnsNames,
  TLS_CA_KEY,
  TLS_CERT_KEY,
  TLS_KEY_KEY,
} from '../../constructs/conventions/tls.js';
import { SnapshotBlobs } from '../../controller/backup/snapshot-source.js';
import { SnapshotVerifier } from '../../controller/backup/snapshot-verifier.js';
import { MaintenanceClient } from '../../controller/etcd/maintenance-client.js';
import { etcdBinary, etcdVersions } from '../env/binaries.js';
import { fixtureTeardown, startReaper } from '../env/cleanup.js';
import { createCa, issueLeaf, type TestCa, type TestLeaf } from '../env/etcd-certs.js';
import { freePorts } from '../env/ports.js';
import { type ManagedProcess, startProcess } from '../env/process-group.js';
import { waitFor } from '../env/wait.js';

const CLUSTER = 'main';
const NAMESPACE = 'db';
const NAMES = ['m0', 'm1', 'm2'] as const;
type MemberName = (typeof NAMES)[number];

// ---------------------------------------------------------------------------------------------------------------
// A Secret volume, written as the kubelet's AtomicWriter does (pkg/volume/util/atomic_writer.go): the data in a new
// `..<timestamp>` directory, a `..data_tmp` symlink to it renamed over `..data` (one atomic rename swaps every file
// at once), each key a symlink `<key> -> ..data/<key>`, then the previous timestamped directory removed.

let projections = 0;

async function projectSecretVolume(dir: string, data: Record<string, string>): Promise<void> {
  await mkdir(dir, { recursive: true });
  const previous = await readlink(join(dir, '..data')).catch(() => undefined);
  const stamp = `..${new Date().toISOString().replace(/[-:T]/g, '_').replace('Z', '')}${String(++projections).padStart(6, '0')}`;
  await mkdir(join(dir, stamp));
  for (const [key, value] of Object.entries(data))
    await writeFile(join(dir, stamp, key), value, { mode: 0o440 });
  await symlink(stamp, join(dir, '..data_tmp'));
  await rename(join(dir, '..data_tmp'), join(dir, '..data'));
  for (const key of Object.keys(data))
    await symlink(join('..data', key), join(dir, key)).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'EEXIST') throw error;
    });
  if (previous) await rm(join(dir, previous), { recursive: true, force: true });
}

const secretData = (ca: TestCa | string, leaf: TestLeaf) => ({
  [TLS_CERT_KEY]: leaf.cert,
  [TLS_KEY_KEY]: leaf.key,
  [TLS_CA_KEY]: typeof ca === 'string' ? ca : ca.cert,
});

const serialOf = (pem: string) => new X509Certificate(pem).serialNumber.toUpperCase();

// ---------------------------------------------------------------------------------------------------------------
// Certificates, as the constructs' cert-manager objects issue them (docs/design/tls.md table), plus IP:127.0.0.1:
// on loopback the members dial each other and clients dial them at 127.0.0.1, which Go and Node verify against IP
// SANs; and etcd checks a peer's client certificate against the connection's remote address (`checkCertSAN`,
// below), which an IP SAN satisfies without any DNS lookup.

interface Pki {
  clientCa: TestCa;
  peerCa: TestCa;
  /** `<cluster>-client-tls`: what the controller presents. */
  client: TestLeaf;
}

const issueServing = (ca: TestCa) =>
  issueLeaf(ca, {
    commonName: 'etcd-server',
    dnsNames: servingDnsNames(CLUSTER, NAMESPACE),
    ipAddresses: ['127.0.0.1'],
  });
const issuePeer = (ca: TestCa) =>
  issueLeaf(ca, {
    commonName: 'etcd-peer',
    dnsNames: peerDnsNames(CLUSTER, NAMESPACE),
    ipAddresses: ['127.0.0.1'],
  });
const issueClient = (ca: TestCa) => issueLeaf(ca, { commonName: 'etcd-gitops', usages: ['client'] });

// ---------------------------------------------------------------------------------------------------------------
// The cluster: three members, https on the client and peer ports, http metrics (where the probes go).

interface TlsMember {
  readonly name: MemberName;
  readonly clientPort: number;
  readonly peerPort: number;
  readonly metricsPort: number;
  readonly clientDir: string;
  readonly peerDir: string;
  /** `alsoServePlaintext`: `http://` next to `https://` in `--listen-client-urls`, same address. */
  alsoServePlaintext?: boolean;
  process?: ManagedProcess;
}

interface TlsCluster {
  readonly version: string;
  readonly pki: Pki;
  /** The serving and peer certificates the members' volumes hold now (one Secret per side, every member mounts it). */
  readonly current: { serving: TestLeaf; peer: TestLeaf };
  readonly members: Record<MemberName, TlsMember>;
  start(name: MemberName): Promise<void>;
  /** SIGTERM, then SIGKILL after 10 s (a Pod deletion). */
  stopMember(name: MemberName): Promise<void>;
  restart(name: MemberName): Promise<void>;
  /** Everything the member has logged so far. */
  log(name: MemberName): Promise<string>;
  stop(): Promise<void>;
}

/** The product's member TLS flags with the Pod's mount directories replaced by this member's directories. */
function testTlsFlags(member: TlsMember): string[] {
  const flags = memberTlsFlags(
    {
      client: { secretName: 'server-tls', clientSecretName: 'client-tls' },
      peer: { secretName: 'peer-tls' },
    },
    CLUSTER,
    NAMESPACE,
  );
  return flags.map((flag) => {
    const [name, value] = flag.split('=', 2) as [string, string | undefined];
    if (value?.startsWith(`${MEMBER_CLIENT_TLS_DIR}/`))
      return `${name}=${member.clientDir}${value.slice(MEMBER_CLIENT_TLS_DIR.length)}`;
    if (value?.startsWith(`${MEMBER_PEER_TLS_DIR}/`))
      return `${name}=${member.peerDir}${value.slice(MEMBER_PEER_TLS_DIR.length)}`;
    if (value?.startsWith('/')) throw new Error(`unmapped file flag ${flag}`);
    return flag;
  });
}

async function createTlsCluster(minor: '3.4' | '3.5' | '3.6'): Promise<TlsCluster> {
  const version = etcdVersions[minor];
  const dir = await mkdtemp(join(tmpdir(), 'etcd-gitops-tls-'));
  const reaper = startReaper(dir);
  const [clientCa, peerCa] = await Promise.all([createCa('client-ca'), createCa('peer-ca')]);
  const pki: Pki = { clientCa, peerCa, client: await issueClient(clientCa) };
  const members = {} as Record<MemberName, TlsMember>;
  for (const name of NAMES) {
    const [clientPort, peerPort, metricsPort] = (await freePorts(3)) as [number, number, number];
    const member: TlsMember = {
      name,
      clientPort,
      peerPort,
      metricsPort,
      clientDir: join(dir, name, 'tls', 'client'),
      peerDir: join(dir, name, 'tls', 'peer'),
    };
    // One certificate per side for all members, as one Secret mounted by every member Pod.
    members[name] = member;
  }
  const [serving, peer] = await Promise.all([issueServing(clientCa), issuePeer(peerCa)]);
  for (const member of Object.values(members)) {
    await projectSecretVolume(member.clientDir, secretData(clientCa, serving));
    await projectSecretVolume(member.peerDir, secretData(peerCa, peer));
  }
  const initialCluster = NAMES.map((name) => `${name}=https://127.0.0.1:${members[name].peerPort}`).join(',');
  const processes = () =>
    Object.values(members).flatMap((member) => (member.process ? [member.process] : []));
  const stop = fixtureTeardown({ dir, reaper, processes, graceMs: 2_000 });
  const launch = (member: TlsMember) => {
    member.process = startProcess({
      name: `etcd-${version}-${member.name}`,
      command: etcdBinary(version, 'etcd'),
      args: [
        `--name=${member.name}`,
        `--data-dir=${join(dir, member.name, 'data')}`,
        `--listen-peer-urls=https://127.0.0.1:${member.peerPort}`,
        `--initial-advertise-peer-urls=https://127.0.0.1:${member.peerPort}`,
        `--listen-client-urls=https://127.0.0.1:${member.clientPort}${member.alsoServePlaintext ? `,http://127.0.0.1:${member.clientPort}` : ''}`,
        `--advertise-client-urls=https://127.0.0.1:${member.clientPort}`,
        `--listen-metrics-urls=http://127.0.0.1:${member.metricsPort}`,
        `--initial-cluster-token=tls-${version}`,
        // info: 3.4.23 logs refused handshakes (`rejected connection`) at info through capnslog, its default logger.
        '--log-level=info',
        ...testTlsFlags(member),
      ],
      env: { ETCD_INITIAL_CLUSTER: initialCluster, ETCD_INITIAL_CLUSTER_STATE: 'new' },
      logPath: join(dir, `${member.name}.log`),
    });
    reaper.record(member.process.pid);
  };
  const healthy = (member: TlsMember) =>
    waitFor(
      async () => {
        const response = await fetch(`http://127.0.0.1:${member.metricsPort}/health`);
        return response.ok && ((await response.json()) as { health?: string }).health === 'true';
      },
      {
        what: `${member.name} (etcd ${version}) healthy on its metrics port`,
        timeoutMs: 30_000,
        abortIf: () => {
          const status = member.process?.exitStatus();
          return status && `${status}:\n${member.process?.logTail(10)}`;
        },
      },
    );
  return {
    version,
    pki,
    current: { serving, peer },
    members,
    async start(name) {
      launch(members[name]);
      await healthy(members[name]);
    },
    async stopMember(name) {
      await members[name].process?.stop(10_000);
    },
    log: (name) => readFile(join(dir, `${name}.log`), 'utf8'),
    async restart(name) {
      await members[name].process?.stop(10_000);
      launch(members[name]);
      await healthy(members[name]);
    },
    stop,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Clients.

interface Credentials {
  ca: string;
  cert?: string;
  key?: string;
}

/** An etcd3 client as controller/defrag/etcd-client.ts makes one: no retries, short deadlines. */
function etcdClient(port: number, credentials: Credentials | 'plaintext'): Etcd3 {
  const tls =
    credentials === 'plaintext'
      ? {}
      : {
          credentials: {
            rootCertificate: Buffer.from(credentials.ca),
            ...(credentials.cert ? { certChain: Buffer.from(credentials.cert) } : {}),
            ...(credentials.key ? { privateKey: Buffer.from(credentials.key) } : {}),
          },
        };
  return new Etcd3({
    hosts: [`${credentials === 'plaintext' ? 'http' : 'https'}://127.0.0.1:${port}`],
    dialTimeout: 3_000,
    faultHandling: { host: () => noop, global: noop },
    defaultCallOptions: (context) => (context.isStream ? {} : { deadline: Date.now() + 3_000 }),
    ...tls,
  });
}

async function withClient<T>(
  port: number,
  credentials: Credentials | 'plaintext',
  use: (client: Etcd3) => PromiseLike<T>,
): Promise<T> {
  const client = etcdClient(port, credentials);
  try {
    return await use(client);
  } finally {
    client.close();
  }
}

/** The error message of a call expected to fail. */
async function failure(call: () => Promise<unknown>): Promise<string> {
  try {
    await call();
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
  assert.fail('the call succeeded');
}

interface Exchange {
  /** Serial number (upper-case hex) of the certificate the server presented, when the handshake got that far. */
  serverSerial?: string;
  /** Status line of the HTTP response, if any. */
  status?: string;
  /** Error code of the socket (e.g. a TLS alert from the server), if any. */
  error?: string;
}

/** One new TLS connection: handshake, one HTTP/1.1 request, read until the server closes. */
function httpsExchange(port: number, credentials: Credentials, path: string): Promise<Exchange> {
  return new Promise((resolve) => {
    const result: Exchange = {};
    let response = '';
    const socket = tlsConnect({
      host: '127.0.0.1',
      port,
      ca: credentials.ca,
      cert: credentials.cert,
      key: credentials.key,
      ALPNProtocols: ['http/1.1'],
    });
    const timer = setTimeout(() => socket.destroy(new Error('timeout')), 10_000);
    socket.once('secureConnect', () => {
      result.serverSerial = socket.getPeerCertificate().serialNumber?.toUpperCase();
      socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
    });
    socket.on('data', (chunk: Buffer) => {
      response += chunk.toString();
      // The status line is all we need; 3.4 and 3.5 keep a peer port connection open for seconds after answering.
      if (response.includes('\r\n')) socket.destroy();
    });
    socket.once('error', (error: NodeJS.ErrnoException) => {
      result.error = error.code ?? error.message;
    });
    socket.once('close', () => {
      clearTimeout(timer);
      if (response) result.status = response.split('\r\n', 1)[0];
      resolve(result);
    });
  });
}

/** A plain-text HTTP/1.1 request on a TLS port: what comes back before the server closes. */
function plaintextExchange(port: number, path: string): Promise<{ response: string; error?: string }> {
  return new Promise((resolve) => {
    let response = '';
    let error: string | undefined;
    const socket = netConnect({ host: '127.0.0.1', port }, () =>
      socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`),
    );
    const timer = setTimeout(() => socket.destroy(new Error('timeout')), 10_000);
    socket.on('data', (chunk: Buffer) => {
      response += chunk.toString();
    });
    socket.once('error', (e: NodeJS.ErrnoException) => {
      error = e.code ?? e.message;
    });
    socket.once('close', () => {
      clearTimeout(timer);
      resolve({ response, ...(error ? { error } : {}) });
    });
  });
}

// ---------------------------------------------------------------------------------------------------------------

for (const minor of ['3.4', '3.5', '3.6'] as const) {
  describe(`etcd ${minor} with client and peer TLS`, () => {
    let cluster: TlsCluster;
    const controllerCredentials = (): Credentials => ({
      ca: cluster.pki.clientCa.cert,
      cert: cluster.pki.client.cert,
      key: cluster.pki.client.key,
    });
    const m = (name: MemberName) => cluster.members[name];
    const peerCredentials = (leaf: TestLeaf): Credentials => ({
      ca: cluster.pki.peerCa.cert,
      cert: leaf.cert,
      key: leaf.key,
    });

    before(async () => {
      cluster = await createTlsCluster(minor);
      await Promise.all(NAMES.map((name) => cluster.start(name)));
    });
    after(async () => {
      await cluster?.stop();
    });

    test('GIVEN three members with client TLS WHEN a client presents a certificate of the client CA THEN it writes and reads through every member', async () => {
      await withClient(m('m0').clientPort, controllerCredentials(), (client) =>
        client.put('tls/a').value('1'),
      );
      for (const name of NAMES) {
        const value = await withClient(m(name).clientPort, controllerCredentials(), (client) =>
          client.get('tls/a').string(),
        );
        assert.equal(value, '1', name);
      }
      const version = await httpsExchange(m('m1').clientPort, controllerCredentials(), '/version');
      assert.equal(version.status, 'HTTP/1.1 200 OK');
    });

    test('GIVEN client TLS WHEN a TLS client presents no certificate THEN the member refuses it', async () => {
      const message = await failure(() =>
        withClient(m('m0').clientPort, { ca: cluster.pki.clientCa.cert }, (client) =>
          client.get('tls/a').string(),
        ),
      );
      // The server ends the handshake with a TLS alert: 3.4.23 (TLS 1.2) `bad_certificate` (42), 3.5 and 3.6
      // (TLS 1.3) `certificate_required` (116).
      assert.match(message, /alert (bad certificate|certificate required)/);
      const exchange = await httpsExchange(m('m0').clientPort, { ca: cluster.pki.clientCa.cert }, '/version');
      assert.equal(exchange.status, undefined, 'no HTTP response without a client certificate');
      assert.match(exchange.error ?? '', /ALERT_(BAD_CERTIFICATE|CERTIFICATE_REQUIRED)/);
    });

    test('GIVEN client TLS WHEN a client speaks plain HTTP THEN the member refuses it', async () => {
      const message = await failure(() =>
        withClient(m('m0').clientPort, 'plaintext', (client) => client.get('tls/a').string()),
      );
      assert.match(message, /UNAVAILABLE/);
      // The TLS listener fails the handshake on the first plaintext bytes and closes without answering a byte.
      const exchange = await plaintextExchange(m('m0').clientPort, '/version');
      assert.equal(exchange.response, '');
    });

    test('GIVEN client TLS WHEN our Maintenance client (backup, restore) presents the controller certificate THEN Status answers as the member and Snapshot streams; without a certificate it is refused', async () => {
      const dir = await mkdtemp(join(tmpdir(), 'etcd-gitops-tls-files-'));
      try {
        const credentials = controllerCredentials();
        const files = {
          caFile: join(dir, 'ca.crt'),
          certFile: join(dir, 'tls.crt'),
          keyFile: join(dir, 'tls.key'),
        };
        await Promise.all([
          writeFile(files.caFile, credentials.ca),
          writeFile(files.certFile, credentials.cert ?? ''),
          writeFile(files.keyFile, credentials.key ?? ''),
        ]);
        const endpoint = `https://127.0.0.1:${m('m2').clientPort}`;
        const client = await MaintenanceClient.connect(endpoint, files);
        try {
          const status = await client.status();
          const memberId = await withClient(m('m2').clientPort, credentials, async (c) =>
            String((await c.maintenance.status()).header.member_id),
          );
          assert.equal(status.header.memberId, memberId);
          assert.equal(status.version, cluster.version);
          const verifier = new SnapshotVerifier();
          await pipeline(
            client.snapshot(),
            new SnapshotBlobs(),
            verifier,
            new Writable({ write: (_c, _e, cb) => cb() }),
          );
          assert.ok(verifier.size > 0, 'a verified snapshot of some bytes');
        } finally {
          client.close();
        }
        const withoutCert = await MaintenanceClient.connect(endpoint, { caFile: files.caFile });
        try {
          const message = await failure(() => withoutCert.status());
          assert.match(message, /alert (bad certificate|certificate required)/);
        } finally {
          withoutCert.close();
        }
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });

    test('GIVEN the metrics port is http WHEN probed without a certificate THEN /health answers (where the probes go)', async () => {
      const response = await fetch(`http://127.0.0.1:${m('m2').metricsPort}/health`);
      assert.equal(response.status, 200);
    });

    test('GIVEN peer TLS WHEN a certificate of the peer CA naming the peer Service is presented on the peer port THEN the member answers', async () => {
      assert.ok(peerDnsNames(CLUSTER, NAMESPACE).includes(peerAllowedHostname(CLUSTER, NAMESPACE)));
      const exchange = await httpsExchange(
        m('m0').peerPort,
        peerCredentials(cluster.current.peer),
        '/members',
      );
      assert.equal(exchange.status, 'HTTP/1.1 200 OK');
      assert.equal(exchange.serverSerial, serialOf(cluster.current.peer.cert));
    });

    test('GIVEN peer TLS WHEN a certificate of the client CA is presented on the peer port THEN the handshake is refused', async () => {
      // The controller's certificate, and the serving certificate (client auth usage, the members' DNS names):
      // neither chains to --peer-trusted-ca-file.
      for (const leaf of [cluster.pki.client, cluster.current.serving]) {
        const exchange = await httpsExchange(
          m('m0').peerPort,
          { ca: cluster.pki.peerCa.cert, cert: leaf.cert, key: leaf.key },
          '/members',
        );
        assert.equal(exchange.status, undefined);
        // 3.4.23 (TLS 1.2): bad_certificate; 3.5, 3.6 (TLS 1.3): unknown_ca.
        assert.match(exchange.error ?? '', /ALERT_(BAD_CERTIFICATE|UNKNOWN_CA)/);
      }
    });

    test('GIVEN --peer-cert-allowed-hostname WHEN a certificate of the peer CA without that name is presented THEN the handshake is refused', async () => {
      const other = await issueLeaf(cluster.pki.peerCa, {
        commonName: 'etcd-peer',
        dnsNames: peerDnsNames('other', NAMESPACE),
        ipAddresses: ['127.0.0.1'],
      });
      assert.ok(!peerDnsNames('other', NAMESPACE).includes(peerAllowedHostname(CLUSTER, NAMESPACE)));
      const exchange = await httpsExchange(m('m0').peerPort, peerCredentials(other), '/members');
      assert.equal(exchange.status, undefined);
      // VerifyPeerCertificate (chains[0].VerifyHostname(allowed)) fails inside the handshake: bad_certificate.
      assert.match(exchange.error ?? '', /ALERT_BAD_CERTIFICATE/);
    });

    test('GIVEN peer TLS WHEN a peer certificate names the peer Service but not the remote address THEN the member drops the connection after the handshake', async () => {
      // checkCertSAN (listener_tls.go): a certificate with SANs must match the remote address: an IP SAN directly,
      // else a DNS SAN by the address's PTR name (wildcards by suffix) or a forward lookup of a non-wildcard name.
      // main-peer.db.svc does not resolve here and 127.0.0.1's PTR is not under main-peer.db.svc.
      const noIp = await issueLeaf(cluster.pki.peerCa, {
        commonName: 'etcd-peer',
        dnsNames: peerDnsNames(CLUSTER, NAMESPACE),
      });
      const exchange = await httpsExchange(m('m1').peerPort, peerCredentials(noIp), '/members');
      assert.equal(exchange.status, undefined, 'no HTTP response');
      await waitFor(async () => (await cluster.log('m1')).includes('does not match any of DNSNames'), {
        what: 'm1 to log the SAN mismatch',
        timeoutMs: 15_000,
      });
    });

    test('GIVEN an open watch WHEN the serving certificate and key are swapped the kubelet way THEN the next connection gets the new certificate, etcd is not restarted and the watch keeps receiving events', async () => {
      const pids = NAMES.map((name) => m(name).process?.pid);
      const before = await httpsExchange(m('m0').clientPort, controllerCredentials(), '/version');
      assert.equal(before.serverSerial, serialOf(cluster.current.serving.cert));
      const watchClient = etcdClient(m('m0').clientPort, controllerCredentials());
      try {
        const watcher = await watchClient.watch().prefix('rotate/').create();
        const seen: string[] = [];
        let disconnects = 0;
        watcher.on('put', (kv) => seen.push(kv.value.toString()));
        watcher.on('disconnected', () => disconnects++);
        await withClient(m('m1').clientPort, controllerCredentials(), (client) =>
          client.put('rotate/k').value('before'),
        );
        await waitFor(() => seen.includes('before'), {
          what: 'the watch to see the first put',
          timeoutMs: 10_000,
        });

        const renewed = await issueServing(cluster.pki.clientCa);
        assert.notEqual(serialOf(renewed.cert), serialOf(cluster.current.serving.cert));
        for (const name of NAMES)
          await projectSecretVolume(m(name).clientDir, secretData(cluster.pki.clientCa, renewed));
        cluster.current.serving = renewed;

        for (const name of NAMES) {
          const next = await httpsExchange(m(name).clientPort, controllerCredentials(), '/version');
          assert.equal(next.serverSerial, serialOf(renewed.cert), name);
          assert.equal(next.status, 'HTTP/1.1 200 OK', name);
        }
        // A new gRPC connection verifies the new certificate and writes; the watch opened before the swap sees it.
        await withClient(m('m0').clientPort, controllerCredentials(), (client) =>
          client.put('rotate/k').value('after'),
        );
        await waitFor(() => seen.includes('after'), {
          what: 'the watch to see the put after the swap',
          timeoutMs: 10_000,
        });
        assert.equal(disconnects, 0, 'the watch stream was never re-established');
        // Cancelled before closing: grpc-js keeps a closed channel's active streams, and etcd's shutdown waits for
        // an open stream (http.Server.Shutdown bounded by the request timeout, 7 s: `stopServers`, embed/etcd.go).
        await watcher.cancel();
      } finally {
        watchClient.close();
      }
      assert.deepEqual(
        NAMES.map((name) => m(name).process?.pid),
        pids,
      );
      assert.deepEqual(
        NAMES.map((name) => m(name).process?.exitStatus()),
        [undefined, undefined, undefined],
      );
    });

    test('GIVEN peer certificates swapped the kubelet way on every member WHEN a member restarts THEN the cluster keeps a leader and writes, and the restarted member rejoins over the new certificates', async () => {
      const pids = NAMES.map((name) => m(name).process?.pid);
      const renewed = await issuePeer(cluster.pki.peerCa);
      assert.notEqual(serialOf(renewed.cert), serialOf(cluster.current.peer.cert));
      for (const name of NAMES)
        await projectSecretVolume(m(name).peerDir, secretData(cluster.pki.peerCa, renewed));
      cluster.current.peer = renewed;
      for (const name of NAMES) {
        const next = await httpsExchange(m(name).peerPort, peerCredentials(renewed), '/members');
        assert.equal(next.serverSerial, serialOf(renewed.cert), name);
        assert.equal(next.status, 'HTTP/1.1 200 OK', name);
      }
      await withClient(m('m1').clientPort, controllerCredentials(), (client) =>
        client.put('peer/k').value('swapped'),
      );
      assert.deepEqual(
        NAMES.map((name) => m(name).process?.pid),
        pids,
      );

      // The old files are gone (the previous ..<timestamp> directory is removed), so every peer connection to or
      // from the restarted member (m0 and m1 dial it again too) is made with the new certificates.
      await cluster.stopMember('m2');
      await withClient(m('m0').clientPort, controllerCredentials(), (client) =>
        client.put('peer/k').value('while-m2-was-down'),
      );
      await cluster.start('m2');
      // A linearizable read through m2 needs its leader's read index over a peer connection.
      const value = await waitFor(
        () =>
          withClient(m('m2').clientPort, controllerCredentials(), (client) =>
            client.get('peer/k').string(),
          ).then((got) => got === 'while-m2-was-down' && got),
        { what: 'm2 to serve the write made while it was down', timeoutMs: 20_000 },
      );
      assert.equal(value, 'while-m2-was-down');
      const status = await withClient(m('m2').clientPort, controllerCredentials(), (client) =>
        client.maintenance.status(),
      );
      assert.notEqual(status.leader, '0');
    });

    test('GIVEN a member running WHEN its trusted CA file changes THEN a certificate of the new CA is refused until the member restarts, then accepted', async () => {
      const newCa = await createCa('client-ca-2');
      const newClient = await issueClient(newCa);
      // A bundle of old and new CA (as during a CA rotation): the old CA's certificates stay valid throughout.
      const bundle = `${cluster.pki.clientCa.cert}${newCa.cert}`;
      await projectSecretVolume(m('m0').clientDir, secretData(bundle, cluster.current.serving));
      const newCredentials: Credentials = {
        ca: cluster.pki.clientCa.cert,
        cert: newClient.cert,
        key: newClient.key,
      };
      const pid = m('m0').process?.pid;

      const refused = await httpsExchange(m('m0').clientPort, newCredentials, '/version');
      assert.equal(refused.status, undefined);
      assert.match(refused.error ?? '', /ALERT_(BAD_CERTIFICATE|UNKNOWN_CA)/);
      await failure(() =>
        withClient(m('m0').clientPort, newCredentials, (client) => client.get('tls/a').string()),
      );
      assert.equal(m('m0').process?.pid, pid);

      await cluster.restart('m0');
      assert.notEqual(m('m0').process?.pid, pid);
      const value = await withClient(m('m0').clientPort, newCredentials, (client) =>
        client.get('tls/a').string(),
      );
      assert.equal(value, '1');
      assert.equal(
        await withClient(m('m0').clientPort, controllerCredentials(), (client) =>
          client.get('tls/a').string(),
        ),
        '1',
        'the old CA still trusted',
      );
      // m1's file did not change: it still refuses the new CA.
      const elsewhere = await httpsExchange(m('m1').clientPort, newCredentials, '/version');
      assert.equal(elsewhere.status, undefined);
    });

    test('GIVEN alsoServePlaintext (http and https listen URLs of one address) WHEN clients of both schemes connect to the one port THEN plaintext HTTP is served without a certificate and TLS still requires one', async () => {
      m('m1').alsoServePlaintext = true;
      await cluster.restart('m1');
      const port = m('m1').clientPort;
      const plain = await plaintextExchange(port, '/version');
      assert.match(plain.response, /^HTTP\/1\.1 200 OK/);
      assert.equal(
        await withClient(port, controllerCredentials(), (client) => client.get('tls/a').string()),
        '1',
      );
      const withoutCertificate = await httpsExchange(port, { ca: cluster.pki.clientCa.cert }, '/version');
      assert.equal(withoutCertificate.status, undefined);
      assert.match(withoutCertificate.error ?? '', /ALERT_(BAD_CERTIFICATE|CERTIFICATE_REQUIRED)/);
      // 3.5, 3.6: "... ignoring client cert auth for this URL"; 3.4.23 (capnslog): "... Ignored client cert auth for
      // this url."
      assert.match(await cluster.log('m1'), /ignor\w* client cert auth for this url/i);
    });

    // Not on 3.4.23: in 10 of 16 starts a helper observed every plaintext gRPC connection to the shared port reset
    // for the life of the process (docs/design/tls.md); a test of that would pass or fail by chance.
    if (minor !== '3.4')
      test('GIVEN alsoServePlaintext WHEN a plaintext gRPC client writes on the shared port THEN it is served', async () => {
        const port = m('m1').clientPort;
        for (let attempt = 0; attempt < 3; attempt++) {
          await withClient(port, 'plaintext', (client) => client.put('plain/k').value(`http-${attempt}`));
          assert.equal(
            await withClient(port, controllerCredentials(), (client) => client.get('plain/k').string()),
            `http-${attempt}`,
          );
        }
      });
  });
}
