// The package version, which tags the controller image (a unit test keeps it equal to package.json).

export const PACKAGE_VERSION = '0.1.0';

/** `ghcr.io/etcd-gitops/etcd-gitops:<package version>`: the controller and the backup command. */
export const DEFAULT_OPERATOR_IMAGE = `ghcr.io/etcd-gitops/etcd-gitops:${PACKAGE_VERSION}`;

/** Entrypoint of our image. */
export const OPERATOR_ENTRYPOINT = '/app/bin/etcd-gitops';

/** `gcr.io/etcd-development/etcd:v<version>` */
export function defaultEtcdImage(version: string): string {
  return `gcr.io/etcd-development/etcd:v${version}`;
}
