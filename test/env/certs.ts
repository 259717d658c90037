// The control plane's PKI, made with the openssl CLI: one CA that signs the API server's serving
// certificate and the admin client certificate (group system:masters), plus the service-account
// signing key pair. ECDSA P-256 everywhere because it is generated in milliseconds.
import { execFile } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface Pki {
  caCert: string;
  caKey: string;
  servingCert: string;
  servingKey: string;
  adminCert: string;
  adminKey: string;
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
IP.2 = 10.0.0.1
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
    serviceAccountKey: file('sa.key'),
    serviceAccountPub: file('sa.pub'),
  };
  const common = ['-config', config, '-days', '30'];
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
  const signed = (subject: string, extensions: string, cert: string, key: string) =>
    run('openssl', [
      'req',
      '-x509',
      ...ecKey,
      ...common,
      '-extensions',
      extensions,
      '-subj',
      subject,
      '-CA',
      pki.caCert,
      '-CAkey',
      pki.caKey,
      '-keyout',
      key,
      '-out',
      cert,
    ]);
  await Promise.all([
    signed('/CN=kube-apiserver', 'serving', pki.servingCert, pki.servingKey),
    signed('/O=system:masters/CN=kubernetes-admin', 'client', pki.adminCert, pki.adminKey),
    writeServiceAccountKeys(pki),
  ]);
  return pki;
}

async function writeServiceAccountKeys(pki: Pki): Promise<void> {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  await writeFile(pki.serviceAccountKey, privateKey.export({ type: 'pkcs8', format: 'pem' }), {
    mode: 0o600,
  });
  await writeFile(pki.serviceAccountPub, publicKey.export({ type: 'spki', format: 'pem' }));
}
