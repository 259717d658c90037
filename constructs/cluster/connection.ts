// How a client reaches an etcd cluster: what an application needs in its own config.

/** The address of a cluster and, once TLS arrives, the Secrets a client needs. */
export interface EtcdConnection {
  /** Client URL through the client Service, e.g. `http://main-client.db.svc:2379` (no namespace part when unknown). */
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
  /** `http` until TLS arrives. */
  readonly scheme: 'http' | 'https';
  /**
   * Secret holding the CA that signs the members' serving certificates (`ca.crt`).
   * @default - none: the cluster serves plain HTTP
   */
  readonly caSecretName?: string;
  /**
   * Secret holding a client certificate and key (`tls.crt`, `tls.key`) the members accept.
   * @default - none: the cluster does not authenticate clients by certificate
   */
  readonly clientCertificateSecretName?: string;
}
