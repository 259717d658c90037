// The control plane's PKI, made with the openssl CLI: one CA that signs the API server's serving
// certificate and the admin client certificate (group system:masters), plus the service-account
// signing key pair. ECDSA P-256 everywhere because it is generated in milliseconds.
import { execFile } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { kubernetesServiceIP } from './component-flags.js';
import { nodeNetwork } from './nodes/layout.js';

const run = promisify(execFile);

export interface Pki {
  caCert: string;
  caKey: string;
  servingCert: string;
  servingKey: string;
  adminCert: string;
  adminKey: string;
  /** The API server's client certificate towards kubelets (`logs`, `exec`, `port-forward`). */
  kubeletClientCert: string;
  kubeletClientKey: string;
  serviceAccountKey: string;
  serviceAccountPub: string;
}

const opensslConfig = `
[req]
distinguished_name = dn
prompt = no
[dn]
[ca]
basicConstraints = critical, CA:TRUE
keyUsage = critical, keyCertSign, cRLSign, digitalSignature
subjectKeyIdentifier = hash
[serving]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature, keyEncipherment
extendedKeyUsage = serverAuth
subjectAltName = @serving_names
[serving_names]
DNS.1 = localhost
DNS.2 = kubernetes
DNS.3 = kubernetes.default
DNS.4 = kubernetes.default.svc
DNS.5 = kubernetes.default.svc.cluster.local
IP.1 = 127.0.0.1
IP.2 = ${kubernetesServiceIP}
IP.3 = ${nodeNetwork.gateway}
[node_serving]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature, keyEncipherment
extendedKeyUsage = serverAuth
[client]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature, keyEncipherment
extendedKeyUsage = clientAuth
`;

const ecKey = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-noenc'];

/** Writes the PKI into `dir` (files `pki-*.{crt,key,pub}`) and returns their paths. */
export async function generatePki(dir: string): Promise<Pki> {
  const file = (name: string) => join(dir, `pki-${name}`);
  const config = file('openssl.cnf');
  await writeFile(config, opensslConfig);
  const pki: Pki = {
    caCert: file('ca.crt'),
    caKey: file('ca.key'),
    servingCert: file('apiserver.crt'),
    servingKey: file('apiserver.key'),
    adminCert: file('admin.crt'),
    adminKey: file('admin.key'),
    kubeletClientCert: file('apiserver-kubelet-client.crt'),
    kubeletClientKey: file('apiserver-kubelet-client.key'),
    serviceAccountKey: file('sa.key'),
    serviceAccountPub: file('sa.pub'),
  };
  const common = commonArgs(config);
  await run('openssl', [
    'req',
    '-x509',
    ...ecKey,
    ...common,
    '-extensions',
    'ca',
    '-subj',
    '/CN=etcd-gitops-test-ca',
    '-keyout',
    pki.caKey,
    '-out',
    pki.caCert,
  ]);
  const signed = (subject: string, usage: 'serving' | 'client', cert: string, key: string) =>
    issueCertificate(pki, { subject, usage, cert, key });
  await Promise.all([
    signed('/CN=kube-apiserver', 'serving', pki.servingCert, pki.servingKey),
    signed('/O=system:masters/CN=kubernetes-admin', 'client', pki.adminCert, pki.adminKey),
    signed(
      '/O=system:masters/CN=kube-apiserver-kubelet-client',
      'client',
      pki.kubeletClientCert,
      pki.kubeletClientKey,
    ),
    writeServiceAccountKeys(pki),
  ]);
  return pki;
}

function commonArgs(config: string): string[] {
  return ['-config', config, '-days', '30'];
}

export interface CertificateRequest {
  /** e.g. `/O=system:nodes/CN=system:node:node-1` */
  subject: string;
  usage: 'serving' | 'client';
  /** Extra subject alternative names, e.g. `['IP:10.77.0.11', 'DNS:node-1']` (replacing the API server's). */
  altNames?: string[];
  cert: string;
  key: string;
}

/** Issues a certificate signed by the PKI's CA (the config file written by `generatePki` must still exist). */
export async function issueCertificate(pki: Pki, request: CertificateRequest): Promise<void> {
  const config = join(dirname(pki.caCert), 'pki-openssl.cnf');
  const extra = request.altNames?.length ? ['-addext', `subjectAltName=${request.altNames.join(',')}`] : [];
  await run('openssl', [
    'req',
    '-x509',
    ...ecKey,
    ...commonArgs(config),
    '-extensions',
    request.altNames?.length && request.usage === 'serving' ? 'node_serving' : request.usage,
    ...extra,
    '-subj',
    request.subject,
    '-CA',
    pki.caCert,
    '-CAkey',
    pki.caKey,
    '-keyout',
    request.key,
    '-out',
    request.cert,
  ]);
}

async function writeServiceAccountKeys(pki: Pki): Promise<void> {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  await writeFile(pki.serviceAccountKey, privateKey.export({ type: 'pkcs8', format: 'pem' }), {
    mode: 0o600,
  });
  await writeFile(pki.serviceAccountPub, publicKey.export({ type: 'spki', format: 'pem' }));
}
