// Images, entrypoints and paths inside them (the package version tags our image; a unit test keeps it equal to
// package.json).

export const PACKAGE_VERSION = '0.1.0';

/** `ghcr.io/etcd-gitops/etcd-gitops:<package version>`: the controller, `backup` and `restore` commands. */
export const DEFAULT_OPERATOR_IMAGE = `ghcr.io/etcd-gitops/etcd-gitops:${PACKAGE_VERSION}`;

/** Entrypoint of our image. */
export const OPERATOR_ENTRYPOINT = '/app/bin/etcd-gitops';

/** Set on the controller to its own image, which it gives the init containers it adds. */
export const OPERATOR_IMAGE_ENV = 'ETCD_GITOPS_IMAGE';

/** `gcr.io/etcd-development/etcd:v<version>` */
export function defaultEtcdImage(version: string): string {
  return `gcr.io/etcd-development/etcd:v${version}`;
}

/** The etcd binary in the etcd image. */
export const ETCD_BINARY = '/usr/local/bin/etcd';

/** Where a member's volume is mounted. */
export const DATA_MOUNT_PATH = '/var/lib/etcd';
/** etcd's `--data-dir` inside it. */
export const DATA_DIR = `${DATA_MOUNT_PATH}/data`;
