// A restore drill's Pod: where its containers meet and what they are called (docs/design/restore-drill.md).

/** The `emptyDir` the drill restores into, shared by its three containers. */
export const DRILL_DIR = '/drill';
/** The restored data dir, which the etcd sidecar serves. */
export const DRILL_DATA_DIR = `${DRILL_DIR}/data`;
/** What `drill fetch` restored (key, recorded revision, bump), for `drill check`. */
export const DRILL_RESTORED_FILE = `${DRILL_DIR}/restored.json`;

/** The one-member cluster the backup is restored as: its name and URLs, on the Pod's loopback only. */
export const DRILL_MEMBER = 'drill';
export const DRILL_CLIENT_URL = 'http://127.0.0.1:2379';
export const DRILL_PEER_URL = 'http://127.0.0.1:2380';

/** The containers of a drill Pod: the init container that restores, the etcd sidecar, the check. */
export const DRILL_FETCH_CONTAINER = 'fetch';
export const DRILL_ETCD_CONTAINER = 'etcd';
export const DRILL_CHECK_CONTAINER = 'check';

/** How long `drill check` waits for the restored etcd to answer. */
export const DEFAULT_DRILL_WAIT = '2m';
