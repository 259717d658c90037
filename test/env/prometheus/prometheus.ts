// A real Prometheus in the environment, run as users run it: a Pod (our build of the server, image.ts) in its own
// namespace, with a ServiceAccount allowed to discover Pods, Services and EndpointSlices, scraping through the Pod
// network, so the members' NetworkPolicy must admit it as it must admit the users' Prometheus. Its configuration
// is generated once at start from the PodMonitors, ServiceMonitors and PrometheusRules stored in the API server
// (scrape-config.ts). The test reads Prometheus's own HTTP API through a forwarded loopback port.
import { CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { selectorString } from '../../../constructs/conventions/labels.js';
import type { Environment } from '../environment.js';
import { waitFor } from '../wait.js';
import { PROMETHEUS_PORT, prometheusImage } from './image.js';
import { type MonitorObject, prometheusConfig, ruleFile } from './scrape-config.js';
import { workloadLabels, workloadObjects } from './workload.js';

const NAME = 'prometheus';
const CONFIG_DIR = '/etc/prometheus';
const DATA_DIR = '/prometheus';
const MONITORING_GROUP = 'monitoring.coreos.com';
const MONITORING_VERSION = 'v1';

export interface PrometheusOptions {
  /** The namespace Prometheus runs in (created by the caller). */
  readonly namespace: string;
  /** Rule evaluation interval, and the scrape interval of endpoints that name none. @default '5s' */
  readonly evaluationInterval?: string;
  /** Node to run on (a test that stops nodes keeps Prometheus off them). @default the scheduler's choice */
  readonly nodeName?: string;
}

export interface Target {
  readonly labels: Record<string, string>;
  readonly scrapePool: string;
  readonly health: 'up' | 'down' | 'unknown';
  readonly lastError: string;
}

export interface Alert {
  readonly labels: Record<string, string>;
  readonly state: 'pending' | 'firing';
  readonly activeAt: string;
  readonly value: string;
}

export interface Prometheus {
  /** `http://127.0.0.1:<port>`, Prometheus's API. */
  readonly url: string;
  /** The Pod's node. */
  readonly nodeName: string;
  /** Active targets (`/api/v1/targets`). */
  targets(): Promise<Target[]>;
  /** Pending and firing alerts (`/api/v1/alerts`). */
  alerts(): Promise<Alert[]>;
  /** An instant query's vector (`/api/v1/query`). */
  query(expr: string): Promise<{ metric: Record<string, string>; value: [number, string] }[]>;
  /** Rule groups with each rule's health and last error (`/api/v1/rules`). */
  rules(): Promise<
    { name: string; file: string; rules: { name: string; health: string; lastError?: string }[] }[]
  >;
}

async function listMonitoring(env: Environment, plural: string): Promise<Record<string, unknown>[]> {
  const list = (await env.kubeConfig.makeApiClient(CustomObjectsApi).listClusterCustomObject({
    group: MONITORING_GROUP,
    version: MONITORING_VERSION,
    plural,
  })) as { items: Record<string, unknown>[] };
  return list.items;
}

type Named = { metadata: { name: string; namespace: string } };

/** Starts Prometheus with the monitors and rules stored now; resolves once it is ready and its API forwarded. */
export async function startPrometheus(env: Environment, options: PrometheusOptions): Promise<Prometheus> {
  const { namespace } = options;
  const evaluationInterval = options.evaluationInterval ?? '5s';
  const monitors = [
    ...(await listMonitoring(env, 'podmonitors')).map((m) => ({ ...m, kind: 'PodMonitor' })),
    ...(await listMonitoring(env, 'servicemonitors')).map((m) => ({ ...m, kind: 'ServiceMonitor' })),
  ] as unknown as MonitorObject[];
  const rules = (await listMonitoring(env, 'prometheusrules')) as unknown as (Named & {
    spec: Parameters<typeof ruleFile>[0]['spec'];
  })[];
  const ruleFiles = Object.fromEntries(
    rules.map((rule) => [
      `rules-${rule.metadata.namespace}-${rule.metadata.name}.yaml`,
      // JSON is YAML: Prometheus reads it as written.
      JSON.stringify(ruleFile(rule), null, 1),
    ]),
  );
  const config = prometheusConfig({
    monitors,
    ruleFiles: Object.keys(ruleFiles).map((file) => `${CONFIG_DIR}/${file}`),
    evaluationInterval,
  });
  const objects = [
    ...workloadObjects({
      name: NAME,
      namespace,
      rules: [
        { apiGroups: [''], resources: ['pods', 'services', 'endpoints'], verbs: ['get', 'list', 'watch'] },
        { apiGroups: ['discovery.k8s.io'], resources: ['endpointslices'], verbs: ['get', 'list', 'watch'] },
      ],
      container: {
        image: prometheusImage,
        args: [
          `--config.file=${CONFIG_DIR}/prometheus.yml`,
          `--storage.tsdb.path=${DATA_DIR}`,
          `--web.listen-address=:${PROMETHEUS_PORT}`,
        ],
        ports: [{ name: 'web', containerPort: PROMETHEUS_PORT }],
        readinessProbe: { httpGet: { path: '/-/ready', port: PROMETHEUS_PORT }, periodSeconds: 2 },
        resources: { requests: { cpu: '50m', memory: '128Mi' }, limits: { memory: '512Mi' } },
        volumeMounts: [
          { name: 'config', mountPath: CONFIG_DIR, readOnly: true },
          { name: 'data', mountPath: DATA_DIR },
        ],
      },
      volumes: [
        { name: 'config', configMap: { name: NAME } },
        { name: 'data', emptyDir: { sizeLimit: '1Gi' } },
      ],
      ...(options.nodeName ? { nodeName: options.nodeName } : {}),
    }),
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: NAME, namespace },
      data: { 'prometheus.yml': JSON.stringify(config, null, 1), ...ruleFiles },
    },
  ];
  await env.kubectl(['apply', '--server-side', '-f', '-'], {
    input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects }),
  });
  await env.kubectl(['rollout', 'status', `deployment/${NAME}`, '-n', namespace, '--timeout=120s']);
  const pod = await waitFor(
    async () => {
      const pods = await env.kubeConfig.makeApiClient(CoreV1Api).listNamespacedPod({
        namespace,
        labelSelector: selectorString(workloadLabels(NAME)),
      });
      const ready = pods.items.find((p) =>
        p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
      );
      return ready?.status?.podIP ? ready : undefined;
    },
    { what: `a Ready ${NAME} Pod in ${namespace}`, timeoutMs: 30_000 },
  );
  const port = await env.forward(pod.status?.podIP as string, PROMETHEUS_PORT);
  const url = `http://127.0.0.1:${port}`;
  const api = async <T>(path: string): Promise<T> => {
    const response = await fetch(`${url}${path}`);
    const body = (await response.json()) as { status: string; data: T; error?: string };
    if (body.status !== 'success') throw new Error(`Prometheus ${path}: ${body.error ?? response.status}`);
    return body.data;
  };
  return {
    url,
    nodeName: pod.spec?.nodeName as string,
    targets: async () =>
      (await api<{ activeTargets: Target[] }>('/api/v1/targets?state=active')).activeTargets,
    alerts: async () => (await api<{ alerts: Alert[] }>('/api/v1/alerts')).alerts,
    query: (expr) =>
      api(`/api/v1/query?query=${encodeURIComponent(expr)}`).then((d) => (d as { result: never }).result),
    rules: async () => (await api<{ groups: never[] }>('/api/v1/rules')).groups,
  };
}
