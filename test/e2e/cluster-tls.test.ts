// TLS on the local Kubernetes (docs/design/tls.md) with a real cert-manager (test/env/cert-manager.ts): a 3-member
// etcd 3.6 cluster with client and peer TLS in the constructs' cert-manager form (`certManager: true`: a self-signed
// Issuer, a CA Certificate and CA Issuer per side, the serving, peer and controller-client Certificates),
// synthesized with its backup CronJob and applied as a user would; cert-manager issues every Certificate and the
// controller process (under the shipped RBAC) runs the cluster. Proven: members serve only https with client
// certificates (plain http and a TLS client without a certificate are refused); a cert-manager renewal of the serving
// and peer certificates (as `cmctl renew` asks for it) is picked up by the running members (a new handshake gets the
// new serial) without a restart or a moment without quorum while a writer runs; a backup Job from the CronJob saves
// over TLS and a new cert-manager TLS cluster bootstraps from it; a missing Secret or a certificate whose DNS names
// miss the members (Secrets a user brings, the `secretName` form, made here with openssl) is refused (InvalidSpec,
// Warning Event, nothing created); adding or removing a TLS side is refused at admission.
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { connect as tlsConnect } from 'node:tls';
import { CoreV1Api, type V1Pod } from '@kubernetes/client-node';
import { Etcd3 } from 'etcd3';
import {
  CLIENT_PORT,
  clientServiceURL,
  clientURL,
  MEMBER_CLIENT_TLS_DIR,
  memberHost,
  memberSelectorString,
  PEER_PORT,
  peerDnsNames,
  servingDnsNames,
} from '../../constructs/conventions/index.js';
import type { ClientTls } from '../../controller/etcd/client.js';
import { memberStatus } from '../../controller/etcd/members.js';
import { etcdVersions } from '../env/binaries.js';
import { type CertManager, startCertManager } from '../env/cert-manager.js';
import type { Environment } from '../env/environment.js';
import { createCa, issueLeaf, type TestCa, type TestLeaf, tlsSecretData } from '../env/etcd-certs.js';
import { judgeLeaders, LeaderGap } from '../env/leader-gap.js';
import { nsExec } from '../env/nodes/netns.js';
import type { ManagedProcess } from '../env/process-group.js';
import { waitFor } from '../env/wait.js';
import { startWriter, type Writer } from '../integration/helpers/membership-writer.js';
import {
  backupNow,
  type ClusterAppOptions,
  clusterManifests,
  type RestoreTestbed,
  restoreObjects,
  startControllerProcess,
  startRestoreTestbed,
  untilAnswering,
  whileRunning,
} from '../integration/helpers/restore-kube.js';
import { keys } from '../integration/helpers/s3-objects.js';

const ns = 'cluster-tls';
const name = 'sec';
const restored = 'sec2';
const version = etcdVersions['3.6'];
const SAMPLE_MS = 500;

interface ClusterCerts {
  readonly serving: TestLeaf;
  readonly peer: TestLeaf;
}

/** A `kubernetes.io/tls` Secret as cert-manager writes it: the leaf, its key and the issuing CA. */
function tlsSecret(secretName: string, ca: TestCa, leaf: TestLeaf) {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'kubernetes.io/tls',
    metadata: { name: secretName, namespace: ns },
    data: Object.fromEntries(
      Object.entries(tlsSecretData(ca, leaf)).map(([k, v]) => [k, Buffer.from(v).toString('base64')]),
    ),
  };
}

/** The three Secrets of a cluster, as `kubectl apply` input. */
function secretsYaml(
  cluster: string,
  ca: { client: TestCa; peer: TestCa },
  certs: ClusterCerts,
  client: TestLeaf,
) {
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'List',
    items: [
      tlsSecret(`${cluster}-server-tls`, ca.client, certs.serving),
      tlsSecret(`${cluster}-client-tls`, ca.client, client),
      tlsSecret(`${cluster}-peer-tls`, ca.peer, certs.peer),
    ],
  });
}

const tlsProps = (cluster: string) => ({
  client: { secretName: `${cluster}-server-tls`, clientSecretName: `${cluster}-client-tls` },
  peer: { secretName: `${cluster}-peer-tls` },
});

/** The serial of the certificate a new TLS handshake with host:port gets, through the environment's CONNECT proxy
 *  (how this process reaches Pods). */
function servedSerial(
  proxy: string,
  host: string,
  port: number,
  credentials: { ca: string; cert: string; key: string },
): Promise<string> {
  const { hostname, port: proxyPort } = new URL(proxy);
  return new Promise((resolve, reject) => {
    const tunnel = request({
      host: hostname,
      port: Number(proxyPort),
      method: 'CONNECT',
      path: `${host}:${port}`,
    });
    tunnel.setTimeout(5_000, () => tunnel.destroy(new Error(`CONNECT ${host}:${port} timed out`)));
    tunnel.once('error', reject);
    tunnel.once('connect', (response, socket) => {
      if (response.statusCode !== 200) {
        socket.destroy();
        reject(new Error(`CONNECT ${host}:${port}: ${response.statusCode}`));
        return;
      }
      const secure = tlsConnect({ socket, servername: host, ...credentials, ALPNProtocols: ['h2'] }, () => {
        const serial = secure.getPeerCertificate().serialNumber;
        secure.destroy();
        resolve(serial);
      });
      secure.once('error', (error) => {
        socket.destroy();
        reject(error);
      });
    });
    tunnel.end();
  });
}

/**
 * The serial of the certificate a member serves on `port`, read by `openssl s_client` from the member's own node, as
 * someone logged on to that node would: the peer port admits only members, and node-local traffic (the kubelet's
 * probes) passes every NetworkPolicy enforcer. `files` holds the credentials as PEM files.
 */
async function servedSerialFromNode(
  env: Environment,
  pod: { ip: string; node: string },
  port: number,
  files: { ca: string; cert: string; key: string },
): Promise<string> {
  const script =
    `openssl s_client -connect ${pod.ip}:${port} -CAfile ${files.ca} -cert ${files.cert} -key ${files.key} ` +
    '-verify_return_error </dev/null 2>/dev/null | openssl x509 -noout -serial';
  const out = await nsExec(env.nodes!.node(pod.node).layout.netnsPath, 'timeout', ['10', 'sh', '-c', script]);
  return /^serial=([0-9A-F]+)$/m.exec(out)?.[1] ?? '';
}

const serialOf = (pem: string) => new X509Certificate(pem).serialNumber;

/** The PEM files of a `kubernetes.io/tls` Secret cert-manager wrote. */
interface IssuedTls {
  readonly ca: string;
  readonly cert: string;
  readonly key: string;
}

const asClientTls = (issued: IssuedTls): ClientTls => ({
  rootCertificate: Buffer.from(issued.ca),
  certChain: Buffer.from(issued.cert),
  privateKey: Buffer.from(issued.key),
});

/** The names of the Certificates among `manifests` (what cert-manager must issue). */
const certificateNames = (manifests: Record<string, unknown>[]) =>
  manifests
    .filter((object) => object.kind === 'Certificate')
    .map((object) => (object.metadata as { name: string }).name);

describe('EtcdCluster with client and peer TLS (local Kubernetes, MinIO)', () => {
  let testbed: RestoreTestbed;
  let controller: ManagedProcess | undefined;
  let writer: Writer | undefined;
  let certManager: CertManager;
  /** The controller's client certificate for `sec`, as cert-manager issued it. */
  let clientIssued: IssuedTls;
  let clientTls: ClientTls;
  const core = () => testbed.env.kubeConfig.makeApiClient(CoreV1Api);
  const objects = () => restoreObjects(testbed.env, ns);
  const abortIf = () => (controller ? whileRunning(controller)() : undefined);
  const https = (cluster: string) => clientServiceURL(cluster, ns, 'https');
  const etcdClient = (url: string, tls?: Partial<ClientTls>) =>
    new Etcd3({ hosts: [url], ...(tls ? { credentials: tls as ClientTls } : {}) });
  const memberPods = async (cluster = name) =>
    (await core().listNamespacedPod({ namespace: ns, labelSelector: memberSelectorString(cluster) })).items;
  /** The PEM files of a TLS Secret in the test namespace. */
  const issuedTls = async (secretName: string): Promise<IssuedTls> => {
    const data = (await core().readNamespacedSecret({ name: secretName, namespace: ns })).data ?? {};
    const pem = (key: string) => Buffer.from(data[key] ?? '', 'base64').toString();
    return { ca: pem('ca.crt'), cert: pem('tls.crt'), key: pem('tls.key') };
  };
  /** The user's app for `cluster` with TLS in the constructs' cert-manager form. */
  const certManagerApp = (cluster: string, extra: Partial<ClusterAppOptions> = {}) =>
    clusterManifests({
      namespace: ns,
      name: cluster,
      version,
      size: 3,
      bucket: testbed.bucket,
      minio: testbed.env.minio as NonNullable<typeof testbed.env.minio>,
      credentialsSecretName: 's3',
      tls: { client: { certManager: true }, peer: { certManager: true } },
      ...extra,
    });
  /** Applies an app as a user would (every object, cert-manager's included) and waits until cert-manager has
   *  issued each of its Certificates. */
  const applyIssued = async (manifests: Record<string, unknown>[]) => {
    await testbed.env.kubectl(['apply', '--server-side', '-f', '-'], {
      input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items: manifests }),
    });
    await certManager.ready(ns, certificateNames(manifests));
  };

  before(async () => {
    testbed = await startRestoreTestbed('cluster-tls', ns);
    certManager = await startCertManager(testbed.env, testbed.dir);
    controller = startControllerProcess(testbed.env, { name: 'controller', dir: testbed.dir, namespace: ns });
    await applyIssued(certManagerApp(name));
    clientIssued = await issuedTls(`${name}-client-tls`);
    clientTls = asClientTls(clientIssued);
    await objects().readyAt(name, 3, abortIf);
  });
  after(async () => {
    await writer?.stop().catch(() => undefined);
    await controller?.stop();
    await certManager?.stop();
    await testbed?.stop();
  });

  test('GIVEN spec.tls client and peer THEN every member serves https only and demands a client certificate', async () => {
    const status = (await objects().readCluster(name)).status;
    for (const member of status?.members ?? []) {
      assert.match(member.clientURL ?? '', /^https:\/\//, member.name);
      assert.match(member.peerURL ?? '', /^https:\/\//, member.name);
    }
    // With the client certificate: reads and writes.
    const good = etcdClient(https(name), clientTls);
    try {
      // The client Service routes a moment after the members are Ready (its EndpointSlice, then each node's service
      // proxy): a CI run's first put here went out before it did. Waiting still needs the client certificate.
      await untilAnswering(good, https(name));
      await good.put('tls/hello').value('world');
      assert.equal(await good.get('tls/hello').string(), 'world');
    } finally {
      good.close();
    }
    // TLS without a client certificate: the handshake is refused.
    const anonymous = etcdClient(https(name), { rootCertificate: Buffer.from(clientIssued.ca) });
    await assert.rejects(
      anonymous.get('tls/hello').string(),
      /certificate|handshake|UNAVAILABLE|No connection/i,
    );
    anonymous.close();
    // Plain http: refused.
    const plain = etcdClient(clientServiceURL(name, ns, 'http'));
    await assert.rejects(plain.get('tls/hello').string());
    plain.close();
    // The member Pods run etcd with the certificate flags and probes on the plain-http metrics port.
    const pod = (await memberPods())[0] as V1Pod;
    const args = pod.spec?.containers?.[0]?.args ?? [];
    for (const flag of ['--client-cert-auth', '--peer-client-cert-auth'])
      assert.ok(args.includes(flag), `${flag} in ${args}`);
    // etcdctl in a member, as the README types it: its default endpoint (the loopback) with the member's own
    // serving certificate, which is a client certificate too.
    const tlsFlags = [
      `--cacert=${MEMBER_CLIENT_TLS_DIR}/ca.crt`,
      `--cert=${MEMBER_CLIENT_TLS_DIR}/tls.crt`,
      `--key=${MEMBER_CLIENT_TLS_DIR}/tls.key`,
    ];
    const exec = (args: string[]) =>
      testbed.env.kubectl([
        'exec',
        '-n',
        ns,
        pod.metadata?.name as string,
        '-c',
        'etcd',
        '--',
        'etcdctl',
        ...args,
      ]);
    const list = await exec([...tlsFlags, 'member', 'list']);
    assert.equal(list.stdout.trim().split('\n').length, 3, list.stdout);
    for (const member of status?.members ?? []) assert.match(list.stdout, new RegExp(`, ${member.name}, `));
    const endpoint = await exec([...tlsFlags, 'endpoint', 'status']);
    assert.match(endpoint.stdout, /^127\.0\.0\.1:2379, [0-9a-f]+, 3\.6\./, endpoint.stdout);
  });

  test('WHEN cert-manager renews the serving and peer certificates THEN every member serves the new ones without a restart, while writes go on and a majority keeps one leader', async (t) => {
    writer = startWriter(https(name), 'tls-writer/', clientTls);
    const before = new Map(
      (await memberPods()).map((pod) => [pod.metadata?.name as string, pod.metadata?.uid]),
    );
    const members = [...before.keys()].sort();
    const restarts = async () =>
      (await memberPods()).reduce(
        (sum, pod) => sum + (pod.status?.containerStatuses?.[0]?.restartCount ?? 0),
        0,
      );
    const restartsBefore = await restarts();
    // A monitor: every member's Status (over TLS) each 500 ms; the longest time no majority named one leader (a
    // member that did not answer in time counts for neither side: test/env/leader-gap.ts), and the raft terms seen.
    let running = true;
    const gap = new LeaderGap();
    const terms = new Set<string>();
    const monitor = (async () => {
      while (running) {
        const started = Date.now();
        const statuses = await Promise.all(
          members.map((member) =>
            memberStatus({ url: clientURL(name, ns, member, 'https'), tls: clientTls }).catch(
              () => undefined,
            ),
          ),
        );
        for (const status of statuses) if (status) terms.add(status.raftTerm);
        gap.record(
          judgeLeaders(
            statuses.map((status) => status?.leaderId),
            2,
          ),
          started,
          Date.now(),
        );
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, SAMPLE_MS - (Date.now() - started))));
      }
    })();

    // As `cmctl renew` asks for it; cert-manager issues each again (a new key: rotationPolicy Always).
    const servingName = `${name}-server-tls`;
    const peerName = `${name}-peer-tls`;
    const servingBefore = serialOf((await issuedTls(servingName)).cert);
    const peerBefore = serialOf((await issuedTls(peerName)).cert);
    const revisions = {
      [servingName]: (await certManager.renew(ns, servingName)) + 1,
      [peerName]: (await certManager.renew(ns, peerName)) + 1,
    };
    await certManager.ready(ns, [servingName, peerName], { minRevision: revisions });
    const renewedServing = await issuedTls(servingName);
    const renewedPeer = await issuedTls(peerName);
    const servingSerial = serialOf(renewedServing.cert);
    const peerSerial = serialOf(renewedPeer.cert);
    assert.notEqual(servingSerial, servingBefore, 'cert-manager wrote a new serving certificate');
    assert.notEqual(peerSerial, peerBefore, 'cert-manager wrote a new peer certificate');
    const proxy = testbed.env.nodes?.connectProxy as string;
    const peerFiles = {
      ca: join(testbed.dir, 'peer-ca.crt'),
      cert: join(testbed.dir, 'peer.crt'),
      key: join(testbed.dir, 'peer.key'),
    };
    await writeFile(peerFiles.ca, renewedPeer.ca);
    await writeFile(peerFiles.cert, renewedPeer.cert);
    await writeFile(peerFiles.key, renewedPeer.key, { mode: 0o600 });
    const podsOnNodes = (
      await testbed.env.kubeConfig.makeApiClient(CoreV1Api).listNamespacedPod({
        namespace: ns,
        labelSelector: memberSelectorString(name),
      })
    ).items.map((pod) => ({ ip: pod.status?.podIP as string, node: pod.spec?.nodeName as string }));
    assert.equal(podsOnNodes.length, members.length);
    const started = Date.now();
    // The kubelet projects a changed Secret on its periodic sync (up to a minute plus its cache).
    await waitFor(
      async () => {
        const serving = await Promise.all(
          members.map((member) =>
            servedSerial(proxy, memberHost(name, ns, member), CLIENT_PORT, clientIssued).catch(() => ''),
          ),
        );
        const peer = await Promise.all(
          podsOnNodes.map((pod) =>
            servedSerialFromNode(testbed.env, pod, PEER_PORT, peerFiles).catch(() => ''),
          ),
        );
        // Not yet: which member serves what, for the timeout's message (a CI run of 2026-12-04 timed out here).
        const stale = [
          ...members.flatMap((member, i) =>
            serving[i] === servingSerial ? [] : [`${member} client port: ${serving[i] || 'no answer'}`],
          ),
          ...podsOnNodes.flatMap((pod, i) =>
            peer[i] === peerSerial ? [] : [`${pod.ip} on ${pod.node} peer port: ${peer[i] || 'no answer'}`],
          ),
        ];
        if (stale.length > 0)
          throw new Error(`renewed ${servingSerial} (serving) and ${peerSerial} (peer); ${stale.join('; ')}`);
        return true;
      },
      {
        what: 'every member serving the renewed certificates',
        timeoutMs: 240_000,
        intervalMs: 2_000,
        abortIf,
      },
    );
    const tookMs = Date.now() - started;
    // Writes keep being acknowledged with the new certificates in place.
    const acknowledged = writer.acknowledged();
    await waitFor(async () => (writer as Writer).acknowledged() > acknowledged + 20, {
      what: 'writes acknowledged after the renewal',
      timeoutMs: 30_000,
    });
    running = false;
    await monitor;
    const after = new Map(
      (await memberPods()).map((pod) => [pod.metadata?.name as string, pod.metadata?.uid]),
    );
    assert.deepEqual(after, before, 'the same member Pods: none recreated');
    assert.equal(await restarts(), restartsBefore, 'no etcd container restarted');
    t.diagnostic(`leaders during the renewal: ${gap.summary()}; raft terms seen: ${[...terms].join(', ')}`);
    assert.ok(
      gap.longestNoMajorityMs <= 3_000,
      `a majority named one leader throughout; longest gap ${gap.longestNoMajorityMs} ms`,
    );
    await writer.stop();
    assert.deepEqual(await writer.lost(), []);
    console.log(
      `renewal picked up in ${Math.round(tookMs / 1000)} s; ${writer.acknowledged()} writes acknowledged, 0 lost; longest time without a majority on one leader ${gap.longestNoMajorityMs} ms`,
    );
    writer = undefined;
  });

  test('WHEN a Job from the backup CronJob runs THEN it saves over TLS with the client certificate, and a new cluster with the cert-manager form bootstraps from that backup over TLS with its keys', async () => {
    const log = await backupNow(testbed.env, ns, `${name}-backup`, 'tls-backup-1');
    const saved = (await keys(testbed.s3, testbed.bucket)).filter((key) => key.endsWith('.db'));
    assert.equal(saved.length, 1, `${saved} (${log})`);
    const key = saved[0] as string;
    // A new cluster of the same form, its own CAs issued by cert-manager, bootstrapping from that backup.
    await applyIssued(
      certManagerApp(restored, {
        bootstrapFromBackup: {
          bucket: testbed.bucket,
          key,
          endpoint: testbed.env.minio?.podEndpoint,
          forcePathStyle: true,
          credentialsSecretName: 's3',
        },
      }),
    );
    await objects().readyAt(restored, 3, abortIf);
    const reader = etcdClient(https(restored), asClientTls(await issuedTls(`${restored}-client-tls`)));
    try {
      await untilAnswering(reader, https(restored));
      assert.equal(await reader.get('tls/hello').string(), 'world');
      assert.ok((await reader.getAll().prefix('tls-writer/').keys()).length > 0);
    } finally {
      reader.close();
    }
    const status = (await objects().readCluster(restored)).status;
    assert.ok(status?.members?.every((member) => member.peerURL?.startsWith('https://')));
    // The first cluster's client certificate (another CA) is not accepted by the new one.
    const stranger = etcdClient(https(restored), clientTls);
    await assert.rejects(stranger.get('tls/hello').string());
    stranger.close();
  });

  test('GIVEN a TLS Secret that is missing, then one without its ca.crt, then one whose DNS names miss the members THEN the cluster is refused (InvalidSpec, Warning Event) and nothing is created; adding or removing a TLS side is refused at admission', async () => {
    const bad = 'bad';
    const custom = {
      apiVersion: 'etcd.gitops.dev/v1alpha1',
      kind: 'EtcdCluster',
      metadata: { name: bad, namespace: ns },
      spec: { version, size: 3, tls: tlsProps(bad) },
    };
    // Secrets a user brings (the `secretName` form), made with openssl: one certificate deliberately wrong.
    const ca = { client: await createCa('bad-client-ca'), peer: await createCa('bad-peer-ca') };
    const client = await issueLeaf(ca.client, { commonName: 'etcd-gitops', usages: ['client'] });
    const goodPeer = await issueLeaf(ca.peer, { commonName: `${bad}-peer`, dnsNames: peerDnsNames(bad, ns) });
    await testbed.env.kubectl(['apply', '-f', '-'], { input: JSON.stringify(custom) });
    const degraded = (pattern: RegExp) =>
      waitFor(
        async () => {
          const condition = (await objects().readCluster(bad)).status?.conditions?.find(
            (c) => c.type === 'Degraded',
          );
          return condition?.status === 'True' &&
            condition.reason === 'InvalidSpec' &&
            pattern.test(condition.message ?? '')
            ? condition.message
            : undefined;
        },
        { what: `${bad} Degraded InvalidSpec matching ${pattern}`, timeoutMs: 60_000, abortIf },
      );
    const missing = await degraded(
      /spec\.tls\.client\.secretName: bad-server-tls \(no such Secret; cert-manager may still be issuing it\)/,
    );
    console.log(missing);
    // A Secret without one of its keys (the peer's without ca.crt; a kubernetes.io/tls Secret cannot lack tls.key):
    // named with what it lacks, the other two fine.
    const goodServing = await issueLeaf(ca.client, { commonName: 'x', dnsNames: servingDnsNames(bad, ns) });
    const peerWithoutCa = tlsSecret(`${bad}-peer-tls`, ca.peer, goodPeer);
    const { 'ca.crt': _ca, ...peerData } = peerWithoutCa.data;
    await testbed.env.kubectl(['apply', '-f', '-'], {
      input: JSON.stringify({
        apiVersion: 'v1',
        kind: 'List',
        items: [
          tlsSecret(`${bad}-server-tls`, ca.client, goodServing),
          tlsSecret(`${bad}-client-tls`, ca.client, client),
          { ...peerWithoutCa, data: peerData },
        ],
      }),
    });
    const lacking = await degraded(/spec\.tls\.peer\.secretName: bad-peer-tls \(the Secret lacks ca\.crt\)/);
    console.log(lacking);
    // Serving certificate for another cluster's names; client and peer Secrets fine.
    const wrongNames = await issueLeaf(ca.client, {
      commonName: 'x',
      dnsNames: servingDnsNames('other', ns),
    });
    await testbed.env.kubectl(['apply', '-f', '-'], {
      input: secretsYaml(bad, ca, { serving: wrongNames, peer: goodPeer }, client),
    });
    const uncovered = await degraded(
      /spec\.tls\.client\.secretName: bad-server-tls \(tls\.crt names .*allowed: a certificate whose DNS names cover bad-0\.bad-peer\.cluster-tls\.svc/,
    );
    console.log(uncovered);
    const events = await objects().events(bad);
    assert.ok(
      events.some((event) => event.type === 'Warning' && event.reason === 'InvalidSpec'),
      JSON.stringify(events.map((e) => [e.type, e.reason])),
    );
    assert.deepEqual(await memberPods(bad), [], 'no member Pod was created');
    // Admission: removing a side of a running cluster is refused with the field and what to do.
    const removed = await testbed.env.kubectl(
      [
        'patch',
        'etcdcluster',
        name,
        '-n',
        ns,
        '--type=json',
        '-p',
        '[{"op":"remove","path":"/spec/tls/peer"}]',
      ],
      { allowFailure: true },
    );
    assert.notEqual(removed.code, 0);
    assert.match(removed.stderr, /spec\.tls\.peer cannot be added to or removed from a running cluster/);
  });
});
