// The `tls` prop of EtcdCluster → `spec.tls` (Secret names) and, for the cert-manager form, what to issue
// (docs/design/tls.md).
import {
  clientCaName,
  clientTlsSecretName,
  peerCaName,
  peerTlsSecretName,
  serverTlsSecretName,
} from '../conventions/names.js';
import { DEFAULT_CLUSTER_DOMAIN, type TlsSpec } from '../conventions/tls.js';
import { validateDomainName, validateObjectName } from '../validate/names.js';

/** A cert-manager issuer you run: it signs the side's certificates instead of a CA made here. */
export interface EtcdCertManagerIssuer {
  /** Name of the Issuer (in the cluster's namespace) or ClusterIssuer. */
  readonly name: string;
  /** `Issuer` (namespaced, in the cluster's namespace) or `ClusterIssuer`. */
  readonly kind: 'Issuer' | 'ClusterIssuer';
}

/** The cert-manager form of a side: cert-manager (installed separately) issues its Secrets. */
export interface EtcdTlsCertManager {
  /**
   * `true`: a self-signed CA per side, made here (`<cluster>-client-ca`, `<cluster>-peer-ca`), signs the side's
   * certificates; `{ issuer }`: your issuer signs them and no CA is made. Either way the Secrets are
   * `<cluster>-server-tls` and `<cluster>-client-tls` (client side) or `<cluster>-peer-tls` (peer side). Needs the
   * cluster's namespace at synth time (the certificates' DNS names contain it).
   */
  readonly certManager: true | { readonly issuer: EtcdCertManagerIssuer };
}

/** The client side with Secrets you provide (`kubernetes.io/tls` shape: `tls.crt`, `tls.key`, `ca.crt`). */
export interface EtcdClientTlsSecrets {
  /**
   * The members' serving certificate: `tls.crt`, `tls.key`, and `ca.crt`, the CA client certificates must chain
   * to. DNS names: `*.<cluster>-peer.<namespace>.svc` and `<cluster>-client.<namespace>.svc` at least; usages
   * server auth and client auth.
   */
  readonly secretName: string;
  /**
   * The client certificate the controller, backup and defrag Jobs present: `tls.crt`, `tls.key`, and `ca.crt`,
   * the CA of the serving certificate.
   */
  readonly clientSecretName: string;
}

/** The peer side with a Secret you provide (`kubernetes.io/tls` shape: `tls.crt`, `tls.key`, `ca.crt`). */
export interface EtcdPeerTlsSecrets {
  /**
   * The members' peer certificate (server auth and client auth): `tls.crt`, `tls.key`, and `ca.crt`, the CA of
   * peer certificates. DNS names: `*.<cluster>-peer.<namespace>.svc` and `<cluster>-peer.<namespace>.svc`.
   */
  readonly secretName: string;
}

/** The client port (2379): your Secrets or cert-manager. */
export type EtcdClientTls = EtcdClientTlsSecrets | EtcdTlsCertManager;
/** The peer port (2380): your Secret or cert-manager. */
export type EtcdPeerTls = EtcdPeerTlsSecrets | EtcdTlsCertManager;

/** TLS for client and peer traffic; each side is fixed when the cluster is created. */
export interface EtcdTlsProps {
  /**
   * https with client-certificate authentication on the client port (2379).
   * @default - plain http on the client port
   */
  readonly client?: EtcdClientTls;
  /**
   * https with client-certificate authentication between members (2380).
   * @default - plain http between members
   */
  readonly peer?: EtcdPeerTls;
  /**
   * The Kubernetes cluster domain, for the DNS names of the certificates made with `certManager`.
   * @default 'cluster.local'
   */
  readonly clusterDomain?: string;
}

/** Who signs one side's certificates in the cert-manager form. */
export type TlsSigner = { readonly selfSignedCa: true } | { readonly issuer: EtcdCertManagerIssuer };

/** The Certificates to make: per side, its signer. */
export interface CertManagerPlan {
  readonly cluster: string;
  readonly namespace: string;
  readonly clusterDomain: string;
  readonly client?: TlsSigner;
  readonly peer?: TlsSigner;
}

/** `spec.tls` and the cert-manager plan of the `tls` prop (both undefined when there is nothing to make). */
export interface RenderedTls {
  readonly spec?: TlsSpec;
  readonly certManager?: CertManagerPlan;
}

/** Any side as a user may write it (JavaScript callers and unions let both forms through at once). */
interface LooseSide {
  readonly secretName?: unknown;
  readonly clientSecretName?: unknown;
  readonly certManager?: unknown;
}

const ISSUER_KINDS = ['Issuer', 'ClusterIssuer'];

function describe(value: unknown): string {
  return typeof value === 'string' ? `'${value}'` : JSON.stringify(value);
}

function requiredName(prop: string, value: unknown, why: string): string {
  if (typeof value !== 'string' || value === '') {
    throw new Error(`'${prop}' is required ${why}, got ${describe(value)}`);
  }
  return validateObjectName(prop, value);
}

function signerOf(prop: string, certManager: unknown): TlsSigner {
  if (certManager === true) return { selfSignedCa: true };
  const issuer = (certManager as { issuer?: Partial<EtcdCertManagerIssuer> } | null)?.issuer;
  if (typeof certManager !== 'object' || certManager === null || typeof issuer !== 'object' || !issuer) {
    throw new Error(
      `'${prop}' must be true (a CA made here) or { issuer: { name, kind: 'Issuer' | 'ClusterIssuer' } }, got ${describe(certManager)}`,
    );
  }
  if (!ISSUER_KINDS.includes(issuer.kind as string)) {
    throw new Error(
      `'${prop}.issuer.kind' must be 'Issuer' or 'ClusterIssuer', got ${describe(issuer.kind)}`,
    );
  }
  const name = requiredName(
    `${prop}.issuer.name`,
    issuer.name,
    'with an issuer (the cert-manager issuer to use)',
  );
  return { issuer: { name, kind: issuer.kind as EtcdCertManagerIssuer['kind'] } };
}

/** One side: its signer (cert-manager form) or its Secret names (checked), never both. */
function sideOf(
  prop: string,
  side: LooseSide,
  secretProps: readonly string[],
): { signer: TlsSigner } | { names: Record<string, string> } {
  const given = secretProps.filter((p) => side[p as keyof LooseSide] !== undefined);
  if (side.certManager !== undefined) {
    if (given.length > 0) {
      throw new Error(
        `'${prop}' takes either ${secretProps.join(' and ')} (your Secrets) or certManager (Certificates made here), got both ${given.join(', ')} and certManager`,
      );
    }
    return { signer: signerOf(`${prop}.certManager`, side.certManager) };
  }
  if (given.length === 0) {
    throw new Error(
      `'${prop}' needs ${secretProps.join(' and ')} (your Secrets) or certManager (Certificates made here), got ${describe(side)}`,
    );
  }
  const names: Record<string, string> = {};
  for (const p of secretProps) {
    names[p] = requiredName(
      `${prop}.${p}`,
      side[p as keyof LooseSide],
      `with ${given.map((g) => `'${prop}.${g}'`).join(', ')} (or use certManager)`,
    );
  }
  return { names };
}

function requireNamespace(prop: string, namespace: string | undefined): string {
  if (!namespace) {
    throw new Error(
      `'${prop}' needs the cluster's namespace at synth time (the certificates' DNS names contain it): set 'namespace' or use a chart with one, got none`,
    );
  }
  return namespace;
}

/**
 * Validates the `tls` prop of cluster `cluster` and returns `spec.tls` (the Secret names, the cert-manager form's
 * included) and what the cert-manager form must issue.
 */
export function renderTls(
  tls: EtcdTlsProps | undefined,
  cluster: string,
  namespace: string | undefined,
): RenderedTls {
  if (!tls || (tls.client === undefined && tls.peer === undefined)) {
    if (tls?.clusterDomain !== undefined) {
      throw new Error(
        `'tls.clusterDomain' only goes into the DNS names of certificates made with certManager, got '${tls.clusterDomain}' without tls.client or tls.peer`,
      );
    }
    return {};
  }
  const spec: { client?: TlsSpec['client']; peer?: TlsSpec['peer'] } = {};
  let client: TlsSigner | undefined;
  let peer: TlsSigner | undefined;
  if (tls.client !== undefined) {
    const side = sideOf('tls.client', tls.client as LooseSide, ['secretName', 'clientSecretName']);
    if ('signer' in side) {
      requireNamespace('tls.client.certManager', namespace);
      client = side.signer;
      spec.client = {
        secretName: serverTlsSecretName(cluster),
        clientSecretName: clientTlsSecretName(cluster),
      };
    } else {
      spec.client = {
        secretName: side.names.secretName as string,
        clientSecretName: side.names.clientSecretName as string,
      };
    }
  }
  if (tls.peer !== undefined) {
    const loose = tls.peer as LooseSide;
    if (loose.clientSecretName !== undefined) {
      throw new Error(
        `'tls.peer.clientSecretName' is not a peer setting (members present their peer certificate to each other), got ${describe(loose.clientSecretName)}`,
      );
    }
    const side = sideOf('tls.peer', loose, ['secretName']);
    if ('signer' in side) {
      requireNamespace('tls.peer.certManager', namespace);
      peer = side.signer;
      spec.peer = { secretName: peerTlsSecretName(cluster) };
    } else {
      spec.peer = { secretName: side.names.secretName as string };
    }
  }
  const clusterDomain =
    tls.clusterDomain === undefined
      ? DEFAULT_CLUSTER_DOMAIN
      : validateDomainName('tls.clusterDomain', tls.clusterDomain);
  if (!client && !peer) {
    if (tls.clusterDomain !== undefined) {
      throw new Error(
        `'tls.clusterDomain' only goes into the DNS names of certificates made with certManager, got '${tls.clusterDomain}' with Secrets on every side`,
      );
    }
    return { spec };
  }
  refuseSecretsOfTheOtherSide(cluster, spec, client, peer);
  return {
    spec,
    certManager: { cluster, namespace: namespace as string, clusterDomain, client, peer },
  };
}

/** Secrets the cert-manager form of one side writes, each with the side: your Secrets must not be among them. */
function refuseSecretsOfTheOtherSide(
  cluster: string,
  spec: TlsSpec,
  client: TlsSigner | undefined,
  peer: TlsSigner | undefined,
): void {
  const written = new Map<string, string>();
  if (client) {
    for (const name of [serverTlsSecretName(cluster), clientTlsSecretName(cluster)])
      written.set(name, 'client');
    if ('selfSignedCa' in client) written.set(clientCaName(cluster), 'client');
  }
  if (peer) {
    written.set(peerTlsSecretName(cluster), 'peer');
    if ('selfSignedCa' in peer) written.set(peerCaName(cluster), 'peer');
  }
  const yours: [string, string][] = [];
  if (!client && spec.client) {
    yours.push(['tls.client.secretName', spec.client.secretName]);
    yours.push(['tls.client.clientSecretName', spec.client.clientSecretName]);
  }
  if (!peer && spec.peer) yours.push(['tls.peer.secretName', spec.peer.secretName]);
  for (const [prop, name] of yours) {
    const side = written.get(name);
    if (side) {
      throw new Error(
        `'${prop}' must not be '${name}': the cert-manager form of tls.${side} writes that Secret; name your Secret otherwise`,
      );
    }
  }
}
