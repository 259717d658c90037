// The Prometheus configuration the environment's Prometheus runs, generated from the PodMonitors, ServiceMonitors
// and PrometheusRules read from the API server, the way the Prometheus Operator generates its own (job names,
// relabelings and target labels follow its conventions: test/env/README.md, "Prometheus"). Only the fields our
// constructs write are translated; any other field of a monitor is refused by name, never ignored, so a monitor
// this cannot render faithfully fails the test instead of being scraped differently from a real operator.
import type {
  MetricsEndpoint,
  MonitorSpec,
  RuleGroup,
} from '../../../constructs/monitoring/prometheus-operator.js';

export interface MonitorObject {
  readonly kind: 'PodMonitor' | 'ServiceMonitor';
  readonly metadata: { readonly name: string; readonly namespace: string };
  readonly spec: MonitorSpec & {
    readonly podMetricsEndpoints?: readonly MetricsEndpoint[];
    readonly endpoints?: readonly MetricsEndpoint[];
  };
}

export type RelabelConfig = Readonly<Record<string, unknown>>;

export interface ScrapeConfig {
  readonly job_name: string;
  readonly scrape_interval?: string;
  readonly metrics_path: string;
  readonly honor_labels: boolean;
  readonly kubernetes_sd_configs: readonly Readonly<Record<string, unknown>>[];
  readonly relabel_configs: readonly RelabelConfig[];
}

const MONITOR_SPEC_FIELDS = new Set(['selector', 'namespaceSelector', 'podMetricsEndpoints', 'endpoints']);
const ENDPOINT_FIELDS = new Set(['port', 'path', 'interval', 'honorLabels']);

/** Prometheus's form of a Kubernetes label name in discovery meta labels. */
function metaName(label: string): string {
  return label.replace(/[^a-zA-Z0-9_]/g, '_');
}

function refuseUnknown(where: string, value: object, allowed: ReadonlySet<string>): void {
  const unknown = Object.keys(value).filter((key) => !allowed.has(key));
  if (unknown.length > 0) {
    throw new Error(
      `${where}: ${unknown.join(', ')} not translated (the environment renders only ${[...allowed].join(', ')})`,
    );
  }
}

function escapeRegex(value: string): string {
  return value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The scrape jobs of one monitor: one per endpoint, as the Prometheus Operator makes them. */
export function monitorScrapeConfigs(monitor: MonitorObject): ScrapeConfig[] {
  const { kind, metadata, spec } = monitor;
  const where = `${kind} ${metadata.namespace}/${metadata.name}`;
  refuseUnknown(`${where} spec`, spec, MONITOR_SPEC_FIELDS);
  refuseUnknown(`${where} spec.selector`, spec.selector, new Set(['matchLabels']));
  const isPod = kind === 'PodMonitor';
  const endpoints = (isPod ? spec.podMetricsEndpoints : spec.endpoints) ?? [];
  const namespaces = spec.namespaceSelector?.matchNames ?? [metadata.namespace];
  const object = isPod ? 'pod' : 'service';
  const selected = Object.entries(spec.selector.matchLabels).map(([label, value]) => ({
    source_labels: [
      `__meta_kubernetes_${object}_label_${metaName(label)}`,
      `__meta_kubernetes_${object}_labelpresent_${metaName(label)}`,
    ],
    regex: `(${escapeRegex(value)});true`,
    action: 'keep',
  }));
  return endpoints.map((endpoint, index) => {
    refuseUnknown(`${where} endpoint ${index}`, endpoint, ENDPOINT_FIELDS);
    const portName = isPod
      ? '__meta_kubernetes_pod_container_port_name'
      : '__meta_kubernetes_endpointslice_port_name';
    const relabel: RelabelConfig[] = [
      ...selected,
      { source_labels: [portName], regex: escapeRegex(endpoint.port), action: 'keep' },
      // Pods that ended are no targets.
      { source_labels: ['__meta_kubernetes_pod_phase'], regex: '(Failed|Succeeded)', action: 'drop' },
      { source_labels: ['__meta_kubernetes_namespace'], target_label: 'namespace' },
      ...(isPod ? [] : [{ source_labels: ['__meta_kubernetes_service_name'], target_label: 'service' }]),
      { source_labels: ['__meta_kubernetes_pod_name'], target_label: 'pod' },
      { source_labels: ['__meta_kubernetes_pod_container_name'], target_label: 'container' },
      isPod
        ? { target_label: 'job', replacement: `${metadata.namespace}/${metadata.name}` }
        : { source_labels: ['__meta_kubernetes_service_name'], target_label: 'job' },
      { target_label: 'endpoint', replacement: endpoint.port },
    ];
    return {
      job_name: `${isPod ? 'podMonitor' : 'serviceMonitor'}/${metadata.namespace}/${metadata.name}/${index}`,
      ...(endpoint.interval ? { scrape_interval: endpoint.interval } : {}),
      metrics_path: endpoint.path ?? '/metrics',
      honor_labels: endpoint.honorLabels ?? false,
      kubernetes_sd_configs: [
        { role: isPod ? 'pod' : 'endpointslice', namespaces: { names: [...namespaces] } },
      ],
      relabel_configs: relabel,
    };
  });
}

export interface PrometheusConfigInput {
  readonly monitors: readonly MonitorObject[];
  /** Rule file names (paths as the server sees them). */
  readonly ruleFiles: readonly string[];
  /** How often rules are evaluated, and the scrape interval of endpoints that name none. */
  readonly evaluationInterval: string;
}

/** The whole `prometheus.yml`, as an object. */
export function prometheusConfig(input: PrometheusConfigInput): Record<string, unknown> {
  return {
    global: { scrape_interval: input.evaluationInterval, evaluation_interval: input.evaluationInterval },
    rule_files: [...input.ruleFiles],
    scrape_configs: input.monitors.flatMap(monitorScrapeConfigs),
  };
}

/** A PrometheusRule's groups as a rule file (`groups:`), the form the Prometheus Operator mounts. */
export function ruleFile(rule: { readonly spec: { readonly groups: readonly RuleGroup[] } }): {
  groups: readonly RuleGroup[];
} {
  return { groups: rule.spec.groups };
}
