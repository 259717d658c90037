// The Prometheus and kube-state-metrics images the environment runs (built with the product's images, image/, from
// the binaries test/env/bin-build/build.sh builds from the Go module proxy; never pulled), and what their Pods rely on.
import { kubeStateMetricsVersion, prometheusRelease } from '../binaries.js';

/** The image's name: the environment's own registry host, Prometheus's release as the tag. */
export const prometheusImage = `etcd-gitops.test/prometheus:${prometheusRelease()}`;
/** Where the server is in the image. */
export const PROMETHEUS_BINARY = '/bin/prometheus';
/** Prometheus's HTTP port (its API, its own metrics). */
export const PROMETHEUS_PORT = 9090;

/** kube-state-metrics's image, binary and ports (metrics, its own telemetry). */
export const kubeStateMetricsImage = `etcd-gitops.test/kube-state-metrics:${kubeStateMetricsVersion()}`;
export const KUBE_STATE_METRICS_BINARY = '/bin/kube-state-metrics';
export const KUBE_STATE_METRICS_PORT = 8080;
export const KUBE_STATE_METRICS_TELEMETRY_PORT = 8081;
