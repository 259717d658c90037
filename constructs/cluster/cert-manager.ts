// The cert-manager objects (cert-manager.io/v1) of the `tls` prop's cert-manager form, typed for the fields we set
// (docs/design/tls.md, "The constructs' cert-manager objects"). Plain YAML: cert-manager must be installed where
// they are applied.
import { ApiObject, type ApiObjectMetadata } from 'cdk8s';
import type { Construct } from 'constructs';
import {
  clientCaName,
  clientTlsSecretName,
  peerCaName,
  peerTlsSecretName,
  selfSignedIssuerName,
  serverTlsSecretName,
} from '../conventions/names.js';
import {
  CLIENT_CERT_COMMON_NAME,
  peerDnsNames,
  servingDnsNames,
  servingIpAddresses,
} from '../conventions/tls.js';
import type { CertManagerPlan, EtcdCertManagerIssuer, TlsSigner } from './tls.js';

export const CERT_MANAGER_API_VERSION = 'cert-manager.io/v1';
const CERT_MANAGER_GROUP = 'cert-manager.io';

/** 10 years: the CAs made here outlive any cluster; they are reissued with the same key (`rotationPolicy: Never`). */
export const CA_DURATION = '87600h';

type KeyUsage = 'digital signature' | 'key encipherment' | 'server auth' | 'client auth';

/** The key usages every leaf certificate has (cert-manager's default), before its extended usages. */
const LEAF_KEY_USAGES: readonly KeyUsage[] = ['digital signature', 'key encipherment'];

export interface CertificateSpec {
  readonly secretName: string;
  readonly issuerRef: { readonly name: string; readonly kind: string; readonly group: string };
  readonly isCA?: boolean;
  readonly commonName?: string;
  readonly dnsNames?: readonly string[];
  readonly ipAddresses?: readonly string[];
  /** Go duration, e.g. `87600h`. */
  readonly duration?: string;
  readonly usages?: readonly KeyUsage[];
  readonly privateKey: {
    readonly algorithm: 'ECDSA';
    readonly size: 256;
    readonly rotationPolicy: 'Never' | 'Always';
  };
}

export interface IssuerSpec {
  readonly selfSigned?: Record<string, never>;
  readonly ca?: { readonly secretName: string };
}

export function certificate(
  scope: Construct,
  id: string,
  metadata: ApiObjectMetadata,
  spec: CertificateSpec,
): ApiObject {
  return new ApiObject(scope, id, {
    apiVersion: CERT_MANAGER_API_VERSION,
    kind: 'Certificate',
    metadata,
    spec,
  });
}

export function issuer(
  scope: Construct,
  id: string,
  metadata: ApiObjectMetadata,
  spec: IssuerSpec,
): ApiObject {
  return new ApiObject(scope, id, { apiVersion: CERT_MANAGER_API_VERSION, kind: 'Issuer', metadata, spec });
}

function issuerRef(ref: EtcdCertManagerIssuer): CertificateSpec['issuerRef'] {
  return { name: ref.name, kind: ref.kind, group: CERT_MANAGER_GROUP };
}

/** Metadata of one object of the cluster (name, namespace, labels, annotations). */
export type MetadataOf = (name: string) => ApiObjectMetadata & { readonly name: string };

/**
 * Per side, the issuer of its leaf certificates: the given issuer, or a self-signed CA `<cluster>-<side>-ca`
 * (Certificate, and a CA Issuer of the same name) signed by the self-signed Issuer `<cluster>-selfsigned`.
 */
class Signers {
  private selfSigned?: EtcdCertManagerIssuer;

  public constructor(
    private readonly scope: Construct,
    private readonly cluster: string,
    private readonly metadata: MetadataOf,
    private readonly objects: ApiObject[],
  ) {}

  public issuerOf(signer: TlsSigner, caName: string, idPrefix: string): EtcdCertManagerIssuer {
    if ('issuer' in signer) return signer.issuer;
    const ca = certificate(this.scope, `${idPrefix}Ca`, this.metadata(caName), {
      isCA: true,
      commonName: caName,
      secretName: caName,
      duration: CA_DURATION,
      issuerRef: issuerRef(this.selfSignedIssuer()),
      privateKey: { algorithm: 'ECDSA', size: 256, rotationPolicy: 'Never' },
    });
    const caIssuer = issuer(this.scope, `${idPrefix}CaIssuer`, this.metadata(caName), {
      ca: { secretName: caName },
    });
    this.objects.push(ca, caIssuer);
    return { name: caName, kind: 'Issuer' };
  }

  private selfSignedIssuer(): EtcdCertManagerIssuer {
    if (!this.selfSigned) {
      const name = selfSignedIssuerName(this.cluster);
      this.objects.push(issuer(this.scope, 'SelfSignedIssuer', this.metadata(name), { selfSigned: {} }));
      this.selfSigned = { name, kind: 'Issuer' };
    }
    return this.selfSigned;
  }
}

function leaf(
  signer: EtcdCertManagerIssuer,
  secretName: string,
  usages: readonly KeyUsage[],
  names: {
    readonly dnsNames?: readonly string[];
    readonly ipAddresses?: readonly string[];
    readonly commonName?: string;
  },
): CertificateSpec {
  return {
    secretName,
    ...names,
    usages: [...LEAF_KEY_USAGES, ...usages],
    issuerRef: issuerRef(signer),
    privateKey: { algorithm: 'ECDSA', size: 256, rotationPolicy: 'Always' },
  };
}

/** What the cert-manager form made: its objects and the issuer of client certificates (client side only). */
export interface CertManagerObjects {
  readonly objects: ApiObject[];
  /** Signs the client side's certificates: the client CA made here or your issuer. */
  readonly clientIssuer?: EtcdCertManagerIssuer;
}

/**
 * The Issuers and Certificates of a cert-manager plan: per side its CA (unless an issuer is given), and the leaf
 * certificates `<cluster>-server-tls`, `<cluster>-client-tls` (client side), `<cluster>-peer-tls` (peer side),
 * each in the Secret of its own name.
 */
export function certManagerObjects(
  scope: Construct,
  plan: CertManagerPlan,
  metadata: MetadataOf,
): CertManagerObjects {
  const { cluster, namespace, clusterDomain } = plan;
  const objects: ApiObject[] = [];
  const signers = new Signers(scope, cluster, metadata, objects);
  let clientIssuer: EtcdCertManagerIssuer | undefined;
  if (plan.client) {
    clientIssuer = signers.issuerOf(plan.client, clientCaName(cluster), 'Client');
    const server = serverTlsSecretName(cluster);
    objects.push(
      certificate(
        scope,
        'ServerCertificate',
        metadata(server),
        leaf(clientIssuer, server, ['server auth', 'client auth'], {
          dnsNames: servingDnsNames(cluster, namespace, clusterDomain),
          ipAddresses: servingIpAddresses(),
        }),
      ),
    );
    const client = clientTlsSecretName(cluster);
    objects.push(
      clientCertificate(scope, 'ClientCertificate', metadata(client), clientIssuer, CLIENT_CERT_COMMON_NAME),
    );
  }
  if (plan.peer) {
    const signer = signers.issuerOf(plan.peer, peerCaName(cluster), 'Peer');
    const peer = peerTlsSecretName(cluster);
    objects.push(
      certificate(
        scope,
        'PeerCertificate',
        metadata(peer),
        leaf(signer, peer, ['server auth', 'client auth'], {
          dnsNames: peerDnsNames(cluster, namespace, clusterDomain),
        }),
      ),
    );
  }
  return { objects, clientIssuer };
}

/** A client certificate (client auth, `commonName`) in the Secret named like the object, from `signer`. */
export function clientCertificate(
  scope: Construct,
  id: string,
  metadata: ApiObjectMetadata & { readonly name: string },
  signer: EtcdCertManagerIssuer,
  commonName: string,
): ApiObject {
  return certificate(scope, id, metadata, leaf(signer, metadata.name, ['client auth'], { commonName }));
}
