// How a client reaches an etcd cluster: what an application needs in its own config.

/** The address of a cluster and, with `tls.client`, the Secrets a client needs. */
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
  /**
   * Secret whose `ca.crt` is the CA of the members' serving certificate, what a client trusts:
   * `spec.tls.client.clientSecretName` (never the serving Secret, which holds the members' key).
   * @default - none: the cluster serves plain HTTP
   */
  readonly caSecretName?: string;
  /**
   * Secret holding a client certificate and key (`tls.crt`, `tls.key`) the members accept:
   * `spec.tls.client.clientSecretName`, the certificate the controller and the backup and defrag Jobs present
   * (common name `etcd-gitops` in the cert-manager form). An application in the cluster's namespace may mount it,
   * or present its own certificate from the same CA.
   * @default - none: the cluster does not authenticate clients by certificate
   */
  readonly clientCertificateSecretName?: string;
}
