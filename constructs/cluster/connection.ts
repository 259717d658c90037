// How a client reaches an etcd cluster: what an application needs in its own config.
import type { ApiObject } from 'cdk8s';

/**
 * The address of a cluster. With `tls.client`, an application also needs a client certificate of its own:
 * `EtcdCluster.addClientCertificate` (the cert-manager form), or one from your CA.
 */
export interface EtcdConnection {
  /**
   * Client URL through the client Service, e.g. `http://main-client.db.svc:2379`, `https://…` with `tls.client`
   * (no namespace part when unknown).
   */
  readonly url: string;
  /** `<cluster>-client`. */
  readonly serviceName: string;
  /**
   * Namespace of the cluster and its Service.
   * @default - unknown at synth time: the namespace the objects are applied to
   */
  readonly namespace?: string;
  /** The client port. */
  readonly port: number;
  /** `https` with `tls.client`, else `http`. */
  readonly scheme: 'http' | 'https';
}

/**
 * An application's own client certificate (`EtcdCluster.addClientCertificate`): what the application mounts and
 * where it connects. Each application gets its own identity; the controller's client certificate
 * (`spec.tls.client.clientSecretName`) is never handed out.
 */
export interface EtcdClientCertificate {
  /** The cert-manager Certificate. */
  readonly certificate: ApiObject;
  /**
   * The Secret cert-manager writes, to mount whole: `tls.crt` and `tls.key` (the application's certificate and key)
   * and `ca.crt` (the client side's CA, which also signed the members' serving certificate: what the application
   * trusts).
   */
  readonly secretName: string;
  /** The certificate's common name (etcd's user name when its auth is on with `--client-cert-auth`). */
  readonly commonName: string;
  /** The cluster's address (`https`). */
  readonly connection: EtcdConnection;
}
