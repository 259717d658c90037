// The Secrets of spec.tls as the planner sees them, and the controller's own client credentials
// (docs/design/tls.md, "Validation" and "Who presents a client certificate"). Pure: the Secrets' data and the time
// come in.
import { createPrivateKey, X509Certificate } from 'node:crypto';
import {
  TLS_CA_KEY,
  TLS_CERT_KEY,
  TLS_KEY_KEY,
  TLS_SECRET_KEYS,
  type TlsSpec,
} from '../../constructs/conventions/tls.js';
import type { ClientTls } from '../etcd/client.js';
import { isSecretForbidden, type SecretForbidden } from '../runtime/secrets.js';
import type { TlsSecretView } from './types.js';

/** A Secret's data (decoded), `undefined` when there is no such Secret, or why the controller may not read it. */
export type SecretData = Readonly<Record<string, Buffer>> | SecretForbidden | undefined;

interface Parsed {
  readonly data: Readonly<Record<string, Buffer>>;
  readonly cert: X509Certificate;
  readonly cas: readonly X509Certificate[];
}

const PEM_CERT = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** The certificates of a PEM bundle (`ca.crt` may hold several, e.g. old and new CA during a rotation). */
function certificates(pem: Buffer): X509Certificate[] {
  return (pem.toString('utf8').match(PEM_CERT) ?? []).map((block) => new X509Certificate(block));
}

/** The DNS names of a certificate's subjectAltName. */
export function dnsNamesOf(cert: X509Certificate): string[] {
  return (cert.subjectAltName ?? '')
    .split(', ')
    .filter((entry) => entry.startsWith('DNS:'))
    .map((entry) => entry.slice(4));
}

/** Parses one Secret, or says why it cannot be used. */
function parse(data: SecretData, now: Date): Parsed | string {
  if (isSecretForbidden(data)) return data.forbidden;
  if (!data) return 'no such Secret; cert-manager may still be issuing it';
  const missing = TLS_SECRET_KEYS.filter((key) => !data[key] || data[key].length === 0);
  if (missing.length > 0) return `the Secret lacks ${missing.join(', ')}`;
  let cert: X509Certificate;
  let cas: X509Certificate[];
  try {
    cert = new X509Certificate(data[TLS_CERT_KEY] as Buffer);
  } catch (error) {
    return `${TLS_CERT_KEY} is not a PEM certificate (${(error as Error).message})`;
  }
  try {
    cas = certificates(data[TLS_CA_KEY] as Buffer);
  } catch (error) {
    return `${TLS_CA_KEY} is not a PEM certificate bundle (${(error as Error).message})`;
  }
  if (cas.length === 0) return `${TLS_CA_KEY} holds no PEM certificate`;
  try {
    if (!cert.checkPrivateKey(createPrivateKey(data[TLS_KEY_KEY] as Buffer)))
      return `${TLS_KEY_KEY} is not the key of ${TLS_CERT_KEY}`;
  } catch (error) {
    return `${TLS_KEY_KEY} is not a PEM private key (${(error as Error).message})`;
  }
  const notAfter = new Date(cert.validTo);
  if (notAfter.getTime() <= now.getTime()) return `${TLS_CERT_KEY} expired at ${notAfter.toISOString()}`;
  const notBefore = new Date(cert.validFrom);
  if (notBefore.getTime() > now.getTime())
    return `${TLS_CERT_KEY} is valid only from ${notBefore.toISOString()}`;
  return { data, cert, cas };
}

/** `cert` is signed by one of `cas`. */
function signedBy(cert: X509Certificate, cas: readonly X509Certificate[]): boolean {
  return cas.some((ca) => cert.checkIssued(ca) && cert.verify(ca.publicKey));
}

/** A distinguished name on one line. */
const oneLine = (name: string) => name.replace(/\n/g, ', ');

export interface TlsFindings {
  /** One view per Secret of spec.tls. */
  readonly secrets: readonly TlsSecretView[];
  /** The controller's client certificate and the CA it verifies members with, when both Secrets are usable. */
  readonly client?: ClientTls;
}

/**
 * Checks every Secret `tls` names: present, with `tls.crt`, `tls.key` and `ca.crt`, key matching, valid now, and
 * signed by the CA that has to trust it: the members' serving certificate by the client Secret's `ca.crt` (what the
 * controller and backups verify members with), the client certificate by the serving Secret's `ca.crt` (what members
 * accept client certificates from), the peer certificate by its own `ca.crt`. `secrets` maps Secret names to data.
 */
export function tlsFindings(
  tls: TlsSpec | undefined,
  secrets: ReadonlyMap<string, SecretData>,
  now: Date,
): TlsFindings {
  const views: TlsSecretView[] = [];
  let client: ClientTls | undefined;
  const view = (
    field: string,
    secretName: string,
    covers: TlsSecretView['covers'],
    parsed: Parsed | string,
    trustedBy?: { readonly field: string; readonly parsed: Parsed | string },
  ): void => {
    let problem = typeof parsed === 'string' ? parsed : undefined;
    if (!problem && typeof parsed !== 'string' && trustedBy && typeof trustedBy.parsed !== 'string') {
      if (!signedBy(parsed.cert, trustedBy.parsed.cas))
        problem = `${TLS_CERT_KEY} (issuer ${oneLine(parsed.cert.issuer)}) is not signed by the ${TLS_CA_KEY} of ${trustedBy.field}, which has to trust it`;
    }
    views.push({
      field,
      secretName,
      ...(problem ? { problem } : {}),
      dnsNames: typeof parsed === 'string' ? [] : dnsNamesOf(parsed.cert),
      covers,
    });
  };
  if (tls?.client) {
    const servingField = 'spec.tls.client.secretName';
    const clientField = 'spec.tls.client.clientSecretName';
    const serving = parse(secrets.get(tls.client.secretName), now);
    const clientCert = parse(secrets.get(tls.client.clientSecretName), now);
    view(servingField, tls.client.secretName, 'serving', serving, { field: clientField, parsed: clientCert });
    view(clientField, tls.client.clientSecretName, 'none', clientCert, {
      field: servingField,
      parsed: serving,
    });
    if (typeof clientCert !== 'string')
      client = {
        rootCertificate: clientCert.data[TLS_CA_KEY] as Buffer,
        certChain: clientCert.data[TLS_CERT_KEY] as Buffer,
        privateKey: clientCert.data[TLS_KEY_KEY] as Buffer,
      };
  }
  if (tls?.peer) {
    const field = 'spec.tls.peer.secretName';
    const peer = parse(secrets.get(tls.peer.secretName), now);
    view(field, tls.peer.secretName, 'peer', peer, { field, parsed: peer });
  }
  return { secrets: views, ...(client ? { client } : {}) };
}

/** A DNS name of a certificate covers `host`: equal, or a wildcard standing for exactly its first label. */
export function covers(dnsName: string, host: string): boolean {
  const name = dnsName.toLowerCase();
  const wanted = host.toLowerCase();
  if (!name.startsWith('*.')) return name === wanted;
  const dot = wanted.indexOf('.');
  return dot > 0 && wanted.slice(dot + 1) === name.slice(2);
}
