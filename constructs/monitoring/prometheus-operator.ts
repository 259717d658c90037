// The Prometheus Operator objects our constructs synthesize (monitoring.coreos.com/v1), typed for the fields we
// set. Plain YAML: the Prometheus Operator's CRDs must be installed where they are applied.
import { ApiObject, type ApiObjectMetadata, Lazy } from 'cdk8s';
import type { Construct } from 'constructs';

export const MONITORING_API_VERSION = 'monitoring.coreos.com/v1';

export interface MetricsEndpoint {
  /** Name of the container or Service port. */
  readonly port: string;
  readonly path?: string;
  /** Prometheus duration, e.g. `30s`. */
  readonly interval?: string;
  /** Keep the target's own `namespace` and `cluster` labels over the scrape's (the controller's metrics). */
  readonly honorLabels?: boolean;
}

export interface MonitorSpec {
  readonly selector: { readonly matchLabels: Readonly<Record<string, string>> };
  readonly namespaceSelector?: { readonly matchNames: readonly string[] };
}

export interface PrometheusRuleSpec {
  readonly groups: readonly RuleGroup[];
}

export interface RuleGroup {
  readonly name: string;
  readonly rules: readonly AlertRule[];
}

export interface AlertRule {
  readonly alert: string;
  readonly expr: string;
  /** Prometheus duration the condition must hold. */
  readonly for: string;
  readonly labels: { readonly severity: 'warning' | 'critical' } & Readonly<Record<string, string>>;
  readonly annotations: { readonly summary: string; readonly description: string };
}

export function podMonitor(
  scope: Construct,
  id: string,
  metadata: ApiObjectMetadata,
  spec: MonitorSpec & { readonly podMetricsEndpoints: readonly MetricsEndpoint[] },
): ApiObject {
  return new ApiObject(scope, id, { apiVersion: MONITORING_API_VERSION, kind: 'PodMonitor', metadata, spec });
}

export function serviceMonitor(
  scope: Construct,
  id: string,
  metadata: ApiObjectMetadata,
  spec: MonitorSpec & { readonly endpoints: readonly MetricsEndpoint[] },
): ApiObject {
  return new ApiObject(scope, id, {
    apiVersion: MONITORING_API_VERSION,
    kind: 'ServiceMonitor',
    metadata,
    spec,
  });
}

export function prometheusRule(
  scope: Construct,
  id: string,
  metadata: ApiObjectMetadata,
  spec: () => PrometheusRuleSpec,
): ApiObject {
  // Rendered at synth time: backup schedules added after the rule count.
  return new ApiObject(scope, id, {
    apiVersion: MONITORING_API_VERSION,
    kind: 'PrometheusRule',
    metadata,
    spec: Lazy.any({ produce: spec }),
  });
}
