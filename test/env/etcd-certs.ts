// Certificates for etcd TLS tests, made with the openssl CLI (ECDSA P-256: milliseconds each). The Secret shape is
// the one cert-manager writes for a Certificate issued by a CA Issuer: `tls.crt` (the leaf), `tls.key` (its
// PKCS#8 key) and `ca.crt` (the issuing CA), type `kubernetes.io/tls`.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** A CA: its certificate and key (PEM). */
export interface TestCa {
  readonly cert: string;
  readonly key: string;
}

/** A leaf certificate and its key (PEM). */
export interface TestLeaf {
  readonly cert: string;
  readonly key: string;
}

export interface LeafRequest {
  readonly commonName: string;
  /** DNS subject alternative names (wildcards allowed). */
  readonly dnsNames?: readonly string[];
  /** IP subject alternative names. */
  readonly ipAddresses?: readonly string[];
  /** Extended key usages. @default ['server', 'client'] */
  readonly usages?: readonly ('server' | 'client')[];
  /** Validity in days. @default 30 */
  readonly days?: number;
}

const ecKey = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-noenc'];

async function inTempDir<T>(work: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'etcd-gitops-certs-'));
  try {
    return await work(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** A self-signed CA named `commonName`. */
export function createCa(commonName: string, days = 3650): Promise<TestCa> {
  return inTempDir(async (dir) => {
    const config = join(dir, 'ca.cnf');
    await writeFile(
      config,
      [
        '[req]',
        'distinguished_name = dn',
        'prompt = no',
        '[dn]',
        '[ca]',
        'basicConstraints = critical, CA:TRUE',
        'keyUsage = critical, keyCertSign, cRLSign, digitalSignature',
        'subjectKeyIdentifier = hash',
        '',
      ].join('\n'),
    );
    const [cert, key] = [join(dir, 'ca.crt'), join(dir, 'ca.key')];
    await run('openssl', [
      'req',
      '-x509',
      ...ecKey,
      '-config',
      config,
      '-extensions',
      'ca',
      '-days',
      String(days),
      '-subj',
      `/CN=${commonName}`,
      '-keyout',
      key,
      '-out',
      cert,
    ]);
    return { cert: await readFile(cert, 'utf8'), key: await readFile(key, 'utf8') };
  });
}

/** A leaf certificate signed by `ca`. */
export function issueLeaf(ca: TestCa, request: LeafRequest): Promise<TestLeaf> {
  return inTempDir(async (dir) => {
    const usages = request.usages ?? ['server', 'client'];
    const altNames = [
      ...(request.dnsNames ?? []).map((name) => `DNS:${name}`),
      ...(request.ipAddresses ?? []).map((ip) => `IP:${ip}`),
    ];
    const config = join(dir, 'leaf.cnf');
    await writeFile(
      config,
      [
        '[req]',
        'distinguished_name = dn',
        'prompt = no',
        '[dn]',
        '[leaf]',
        'basicConstraints = critical, CA:FALSE',
        'keyUsage = critical, digitalSignature, keyEncipherment',
        `extendedKeyUsage = ${usages.map((usage) => (usage === 'server' ? 'serverAuth' : 'clientAuth')).join(', ')}`,
        ...(altNames.length > 0 ? [`subjectAltName = ${altNames.join(', ')}`] : []),
        '',
      ].join('\n'),
    );
    const files = {
      caCert: join(dir, 'ca.crt'),
      caKey: join(dir, 'ca.key'),
      cert: join(dir, 'leaf.crt'),
      key: join(dir, 'leaf.key'),
    };
    await Promise.all([writeFile(files.caCert, ca.cert), writeFile(files.caKey, ca.key, { mode: 0o600 })]);
    await run('openssl', [
      'req',
      '-x509',
      ...ecKey,
      '-config',
      config,
      '-extensions',
      'leaf',
      '-days',
      String(request.days ?? 30),
      '-subj',
      `/CN=${request.commonName}`,
      '-CA',
      files.caCert,
      '-CAkey',
      files.caKey,
      '-keyout',
      files.key,
      '-out',
      files.cert,
    ]);
    return { cert: await readFile(files.cert, 'utf8'), key: await readFile(files.key, 'utf8') };
  });
}

/** The data of a `kubernetes.io/tls` Secret as cert-manager writes it (values in clear; base64 them for `data`). */
export function tlsSecretData(ca: TestCa, leaf: TestLeaf): Record<'tls.crt' | 'tls.key' | 'ca.crt', string> {
  return { 'tls.crt': leaf.cert, 'tls.key': leaf.key, 'ca.crt': ca.cert };
}
