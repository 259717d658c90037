// What Prometheus and kube-state-metrics each run as in the environment: a ServiceAccount with a read-only
// ClusterRole of its own, and a one-replica Deployment as `nobody` under Pod Security `restricted`.
import { restrictedContainerSecurityContext } from '../../../constructs/security.js';

const NOBODY = 65534;

export interface WorkloadSpec {
  readonly name: string;
  readonly namespace: string;
  /** The ClusterRole's rules (`egt:<name>`). */
  readonly rules: readonly Record<string, unknown>[];
  /** The one container, without its name and security context. */
  readonly container: Record<string, unknown>;
  readonly volumes?: readonly Record<string, unknown>[];
  /** Pins the Pod to a node. @default the scheduler's choice */
  readonly nodeName?: string;
}

/** The labels the Deployment selects its Pod by. */
export const workloadLabels = (name: string) => ({ 'app.kubernetes.io/name': name });

/** ServiceAccount, ClusterRole, ClusterRoleBinding and Deployment, to apply as one List. */
export function workloadObjects(spec: WorkloadSpec): Record<string, unknown>[] {
  const { name, namespace } = spec;
  const labels = workloadLabels(name);
  const role = `egt:${name}`;
  return [
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace } },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: role },
      rules: spec.rules,
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: role },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
      subjects: [{ kind: 'ServiceAccount', name, namespace }],
    },
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name, namespace, labels },
      spec: {
        replicas: 1,
        selector: { matchLabels: labels },
        template: {
          metadata: { labels },
          spec: {
            serviceAccountName: name,
            ...(spec.nodeName ? { nodeSelector: { 'kubernetes.io/hostname': spec.nodeName } } : {}),
            terminationGracePeriodSeconds: 5,
            securityContext: {
              runAsNonRoot: true,
              runAsUser: NOBODY,
              runAsGroup: NOBODY,
              fsGroup: NOBODY,
              seccompProfile: { type: 'RuntimeDefault' },
            },
            containers: [
              {
                name,
                imagePullPolicy: 'IfNotPresent',
                ...spec.container,
                securityContext: restrictedContainerSecurityContext(),
              },
            ],
            ...(spec.volumes ? { volumes: spec.volumes } : {}),
          },
        },
      },
    },
  ];
}
