// Ports: etcd's, and the controller's metrics and health endpoints.

/** etcd client port (Services `<cluster>-client` and `<cluster>-peer`, port name `client`). */
export const CLIENT_PORT = 2379;
/** etcd peer port (Service `<cluster>-peer`, port name `peer`). */
export const PEER_PORT = 2380;
/** etcd member `/metrics` and `/health` (`--listen-metrics-urls`; Service `<cluster>-peer`, port name `metrics`). */
export const MEMBER_METRICS_PORT = 2381;
/** Controller `/metrics` (port name `metrics`). */
export const METRICS_PORT = 8080;
/** Controller `/healthz` and `/readyz` (port name `health`). */
export const HEALTH_PORT = 8081;

export const CLIENT_PORT_NAME = 'client';
export const PEER_PORT_NAME = 'peer';
export const METRICS_PORT_NAME = 'metrics';
export const HEALTH_PORT_NAME = 'health';
