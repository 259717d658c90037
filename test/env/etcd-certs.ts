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

/**
 * One `openssl req -x509` in a temporary directory: a new P-256 key and a certificate for `/CN=<commonName>` with
 * the extension lines given, self-signed or signed by `signer`.
 */
function certificate(
  commonName: string,
  days: number,
  extensions: readonly string[],
  signer?: TestCa,
): Promise<{ cert: string; key: string }> {
  return inTempDir(async (dir) => {
    const config = join(dir, 'req.cnf');
    await writeFile(
      config,
      ['[req]', 'distinguished_name = dn', 'prompt = no', '[dn]', '[ext]', ...extensions, ''].join('\n'),
    );
    const [cert, key] = [join(dir, 'out.crt'), join(dir, 'out.key')];
    const signedBy: string[] = [];
    if (signer) {
      const [caCert, caKey] = [join(dir, 'ca.crt'), join(dir, 'ca.key')];
      await Promise.all([writeFile(caCert, signer.cert), writeFile(caKey, signer.key, { mode: 0o600 })]);
      signedBy.push('-CA', caCert, '-CAkey', caKey);
    }
    await run('openssl', [
      'req',
      '-x509',
      ...ecKey,
      '-config',
      config,
      '-extensions',
      'ext',
      '-days',
      String(days),
      '-subj',
      `/CN=${commonName}`,
      ...signedBy,
      '-keyout',
      key,
      '-out',
      cert,
    ]);
    return { cert: await readFile(cert, 'utf8'), key: await readFile(key, 'utf8') };
  });
}

/** A self-signed CA named `commonName`. */
export function createCa(commonName: string, days = 3650): Promise<TestCa> {
  return certificate(commonName, days, [
    'basicConstraints = critical, CA:TRUE',
    'keyUsage = critical, keyCertSign, cRLSign, digitalSignature',
    'subjectKeyIdentifier = hash',
  ]);
}

/** A leaf certificate signed by `ca`. */
export function issueLeaf(ca: TestCa, request: LeafRequest): Promise<TestLeaf> {
  const usages = request.usages ?? ['server', 'client'];
  const altNames = [
    ...(request.dnsNames ?? []).map((name) => `DNS:${name}`),
    ...(request.ipAddresses ?? []).map((ip) => `IP:${ip}`),
  ];
  return certificate(
    request.commonName,
    request.days ?? 30,
    [
      'basicConstraints = critical, CA:FALSE',
      'keyUsage = critical, digitalSignature, keyEncipherment',
      `extendedKeyUsage = ${usages.map((usage) => (usage === 'server' ? 'serverAuth' : 'clientAuth')).join(', ')}`,
      ...(altNames.length > 0 ? [`subjectAltName = ${altNames.join(', ')}`] : []),
    ],
    ca,
  );
}

/** The data of a `kubernetes.io/tls` Secret as cert-manager writes it (values in clear; base64 them for `data`). */
export function tlsSecretData(ca: TestCa, leaf: TestLeaf): Record<'tls.crt' | 'tls.key' | 'ca.crt', string> {
  return { 'tls.crt': leaf.cert, 'tls.key': leaf.key, 'ca.crt': ca.cert };
}
