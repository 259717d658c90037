// kube-state-metrics in the environment, as kube-prometheus-stack runs it beside Prometheus: a Pod (our build,
// image.ts) with read-only access to CronJobs and Jobs, its Service, and the ServiceMonitor that stack ships for it
// (`honorLabels`, so a series keeps the namespace of the object it describes). Started before `startPrometheus`,
// whose configuration is generated from the monitors stored at its start.
import type { Environment } from '../environment.js';
import {
  KUBE_STATE_METRICS_PORT,
  KUBE_STATE_METRICS_TELEMETRY_PORT,
  kubeStateMetricsImage,
} from './image.js';
import { workloadLabels, workloadObjects } from './workload.js';

const NAME = 'kube-state-metrics';
const PORT_NAME = 'http-metrics';

/** Runs kube-state-metrics (CronJob and Job series only) in `namespace`, on `nodeName` if given; resolves once it is
 *  rolled out. */
export async function startKubeStateMetrics(
  env: Environment,
  namespace: string,
  nodeName?: string,
): Promise<void> {
  const labels = workloadLabels(NAME);
  const objects = [
    ...workloadObjects({
      name: NAME,
      namespace,
      rules: [{ apiGroups: ['batch'], resources: ['cronjobs', 'jobs'], verbs: ['list', 'watch'] }],
      container: {
        image: kubeStateMetricsImage,
        args: [
          '--resources=cronjobs,jobs',
          `--port=${KUBE_STATE_METRICS_PORT}`,
          `--telemetry-port=${KUBE_STATE_METRICS_TELEMETRY_PORT}`,
        ],
        ports: [{ name: PORT_NAME, containerPort: KUBE_STATE_METRICS_PORT }],
        readinessProbe: { httpGet: { path: '/readyz', port: KUBE_STATE_METRICS_TELEMETRY_PORT } },
        resources: { requests: { cpu: '20m', memory: '32Mi' }, limits: { memory: '128Mi' } },
      },
      ...(nodeName ? { nodeName } : {}),
    }),
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: NAME, namespace, labels },
      spec: {
        selector: labels,
        ports: [{ name: PORT_NAME, port: KUBE_STATE_METRICS_PORT, targetPort: PORT_NAME }],
      },
    },
    {
      apiVersion: 'monitoring.coreos.com/v1',
      kind: 'ServiceMonitor',
      metadata: { name: NAME, namespace },
      spec: {
        selector: { matchLabels: labels },
        namespaceSelector: { matchNames: [namespace] },
        endpoints: [{ port: PORT_NAME, interval: '5s', honorLabels: true }],
      },
    },
  ];
  await env.kubectl(['apply', '--server-side', '-f', '-'], {
    input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects }),
  });
  await env.kubectl(['rollout', 'status', `deployment/${NAME}`, '-n', namespace, '--timeout=120s']);
}
