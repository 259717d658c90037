// The etcd-gitops operator: CRDs, namespace, ServiceAccount, least-privilege RBAC, controller, metrics Service.
import { type ApiObject, Chart } from 'cdk8s';
import { k8s } from 'cdk8s-plus-27';
import { Construct } from 'constructs';
import {
  type OperatorIdentity,
  type RegisteredOperator,
  registerUnique,
  registryOf,
} from './app-registry.js';
import { containerResources, memoryLimitBytes, nodeOptionsEnv } from './cluster/container-resources.js';
import { operatorControllerArgs } from './conventions/cli/controller.js';
import { DEFAULT_OPERATOR_IMAGE, OPERATOR_ENTRYPOINT, OPERATOR_IMAGE_ENV } from './conventions/images.js';
import { controllerSelector, operatorLabels } from './conventions/labels.js';
import { controllerNodeOptions, DEFAULT_CONTROLLER_RESOURCES } from './conventions/limits.js';
import {
  CONTROLLER_NAME,
  DEFAULT_OPERATOR_NAMESPACE,
  LEADER_ELECTION_ROLE_NAME,
  METRICS_SERVICE_NAME,
} from './conventions/names.js';
import { HEALTH_PORT, HEALTH_PORT_NAME, METRICS_PORT, METRICS_PORT_NAME } from './conventions/ports.js';
import { EtcdCrds } from './etcd-crds.js';
import { foreignResourceAnnotations, SYNC_WAVE, SyncWave } from './gitops.js';
import { OPERATOR_ALERT_PENDING_FOR, operatorAlerts } from './monitoring/alerts.js';
import {
  DEFAULT_SCRAPE_INTERVAL,
  type MonitoringOptions,
  type PrometheusRuleOptions,
  pendingDurations,
  validateInterval,
} from './monitoring/options.js';
import { prometheusRule, serviceMonitor } from './monitoring/prometheus-operator.js';
import {
  CONTROLLER_LEADER_ELECTION_RULES,
  CONTROLLER_NODE_RULES,
  CONTROLLER_WATCHED_NAMESPACE_RULES,
} from './operator-rbac.js';
import {
  restrictedContainerSecurityContext,
  restrictedNamespaceLabels,
  restrictedPodSecurityContext,
} from './security.js';
import { validateDnsLabel, validateInteger, validateObjectName } from './validate/names.js';
import type { ResourceQuantities } from './validate/quantity.js';
import { validateWatchNamespaces } from './validate/watch-namespaces.js';

/** Props of {@link EtcdOperator}; every one has a default. */
export interface EtcdOperatorProps {
  /**
   * Namespace of the controller.
   * @default 'etcd-gitops-system'
   */
  readonly namespace?: string;
  /**
   * Create the namespace, labelled for Pod Security `restricted`.
   * @default true
   */
  readonly createNamespace?: boolean;
  /**
   * Also synthesize the CRDs here. Set false to place `EtcdCrds` in a chart of its own.
   * @default true
   */
  readonly crds?: boolean;
  /**
   * Controller image.
   * @default 'ghcr.io/etcd-gitops/etcd-gitops:<package version>'
   */
  readonly image?: string;
  /**
   * Controller replicas; one leads (Lease), the others wait.
   * @default 2
   */
  readonly replicas?: number;
  /**
   * Controller container resources. A memory limit also caps the controller's V8 heap at half of it
   * (`NODE_OPTIONS=--max-old-space-size=…`), so it collects garbage before the OOM killer acts, and keeps its
   * young generation small (`--max-semi-space-size=2`).
   * @default - requests cpu 50m, memory 128Mi; limit memory 256Mi (DEFAULT_CONTROLLER_RESOURCES, set from the
   *   50-cluster bench)
   */
  readonly resources?: ResourceQuantities;
  /**
   * Nodes the controller may run on, by labels, e.g. `{ 'node-role.kubernetes.io/infra': '' }`.
   * @default - any node
   */
  readonly nodeSelector?: Readonly<Record<string, string>>;
  /**
   * Taints the controller tolerates (`k8s.Toleration` from cdk8s-plus-27), e.g. for dedicated infra nodes.
   * @default - none
   */
  readonly tolerations?: readonly k8s.Toleration[];
  /**
   * PriorityClass of the controller's Pods, e.g. `system-cluster-critical` where the etcd clusters carry the
   * platform.
   * @default - the cluster's default priority
   */
  readonly priorityClassName?: string;
  /**
   * The only namespaces the controller watches and acts in. Given, its rights on EtcdClusters, EtcdRestores, Pods,
   * PVCs, Events and Services are a Role in each of them instead of a ClusterRole (a ClusterRole keeps `get` on
   * Nodes only), and an EtcdCluster or EtcdRestore of this app outside them is a synth-time error. The namespaces
   * must exist before the operator's Roles are applied (an EtcdCluster's `createNamespace` does that in the waves
   * after the operator's: create them in an earlier wave, or beforehand).
   * @default - every namespace (a ClusterRole)
   */
  readonly watchNamespaces?: readonly string[];
}

/**
 * The operator. Place it in a chart without a `namespace`: it holds cluster-scoped objects (CRDs, ClusterRole)
 * and sets the namespace of the others itself.
 */
export class EtcdOperator extends Construct {
  /** Namespace the controller runs in. */
  public readonly namespace: string;
  /** ServiceAccount of the controller, which the per-cluster Secret RoleBindings name. */
  public readonly serviceAccountName = CONTROLLER_NAME;
  /** Where the controller runs and as whom: what every cluster of the app grants access to. */
  public readonly identity: OperatorIdentity;
  /** The CRDs, when `crds` is true. */
  public readonly crds?: EtcdCrds;
  /** The only namespaces the controller watches; undefined: every namespace. */
  public readonly watchNamespaces?: readonly string[];

  public constructor(scope: Construct, id: string, props: EtcdOperatorProps = {}) {
    super(scope, id);
    this.namespace = validateDnsLabel('namespace', props.namespace ?? DEFAULT_OPERATOR_NAMESPACE);
    const chartNamespace = Chart.of(this).namespace;
    if (chartNamespace) {
      throw new Error(
        `EtcdOperator must be in a chart without 'namespace' (it holds cluster-scoped objects), got namespace '${chartNamespace}'`,
      );
    }
    this.watchNamespaces = validateWatchNamespaces(props.watchNamespaces);
    this.identity = {
      namespace: this.namespace,
      serviceAccountName: this.serviceAccountName,
      image: props.image ?? DEFAULT_OPERATOR_IMAGE,
      ...(this.watchNamespaces ? { watchNamespaces: this.watchNamespaces } : {}),
    };
    this.registerOnce();
    const replicas = validateInteger('replicas', props.replicas ?? 2, 1, 10);
    if (props.crds ?? true) this.crds = new EtcdCrds(this, 'Crds');
    if (props.createNamespace ?? true) this.createNamespace();
    new k8s.KubeServiceAccount(this, 'ServiceAccount', { metadata: this.metadata(CONTROLLER_NAME) });
    this.createRbac();
    if (props.priorityClassName !== undefined)
      validateObjectName('priorityClassName', props.priorityClassName);
    this.createDeployment(props.image ?? DEFAULT_OPERATOR_IMAGE, replicas, props);
    // More than one replica: node drains take them one at a time, so a leader is always there to hand over to.
    if (replicas > 1) this.createDisruptionBudget();
    this.createMetricsService();
  }

  /** One operator per app: its controller serves every cluster of the app; a second would act on the same ones. */
  private registerOnce(): void {
    const self: RegisteredOperator = { construct: this, identity: this.identity };
    registerUnique(
      this,
      registryOf(this).operators,
      self,
      (first) =>
        `EtcdOperator '${this.node.path}' is a second operator in this app, besides '${first.construct.node.path}': one app holds one operator (two controllers would act on the same clusters); keep one`,
    );
  }

  private metadata(name: string, namespaced = true): k8s.ObjectMeta {
    return {
      name,
      ...(namespaced ? { namespace: this.namespace } : {}),
      labels: operatorLabels(),
      annotations: { [SYNC_WAVE]: SyncWave.OPERATOR },
    };
  }

  private createNamespace(): void {
    const metadata = this.metadata(this.namespace, false);
    new k8s.KubeNamespace(this, 'Namespace', {
      metadata: {
        ...metadata,
        labels: {
          ...metadata.labels,
          ...restrictedNamespaceLabels(),
        },
      },
    });
  }

  /**
   * Every namespace: one ClusterRole with the watched-namespace and Node rules. `watchNamespaces`: a Role with the
   * watched-namespace rules in each of them, and a ClusterRole with the Node rule only.
   */
  private createRbac(): void {
    const subjects = [{ kind: 'ServiceAccount', name: CONTROLLER_NAME, namespace: this.namespace }];
    new k8s.KubeClusterRole(this, 'ClusterRole', {
      metadata: this.metadata(CONTROLLER_NAME, false),
      rules: this.watchNamespaces
        ? [...CONTROLLER_NODE_RULES]
        : [...CONTROLLER_WATCHED_NAMESPACE_RULES, ...CONTROLLER_NODE_RULES],
    });
    new k8s.KubeClusterRoleBinding(this, 'ClusterRoleBinding', {
      metadata: this.metadata(CONTROLLER_NAME, false),
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: CONTROLLER_NAME },
      subjects,
    });
    for (const namespace of this.watchNamespaces ?? []) {
      const metadata = { ...this.metadata(CONTROLLER_NAME), namespace };
      new k8s.KubeRole(this, `WatchedNamespaceRole-${namespace}`, {
        metadata,
        rules: [...CONTROLLER_WATCHED_NAMESPACE_RULES],
      });
      new k8s.KubeRoleBinding(this, `WatchedNamespaceRoleBinding-${namespace}`, {
        metadata,
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: CONTROLLER_NAME },
        subjects,
      });
    }
    const leaderElection = LEADER_ELECTION_ROLE_NAME;
    new k8s.KubeRole(this, 'LeaderElectionRole', {
      metadata: this.metadata(leaderElection),
      rules: [...CONTROLLER_LEADER_ELECTION_RULES],
    });
    new k8s.KubeRoleBinding(this, 'LeaderElectionRoleBinding', {
      metadata: this.metadata(leaderElection),
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: leaderElection },
      subjects,
    });
  }

  private createDisruptionBudget(): void {
    new k8s.KubePodDisruptionBudget(this, 'DisruptionBudget', {
      metadata: this.metadata(CONTROLLER_NAME),
      spec: {
        maxUnavailable: k8s.IntOrString.fromNumber(1),
        selector: { matchLabels: controllerSelector() },
      },
    });
  }

  private createDeployment(image: string, replicas: number, props: EtcdOperatorProps): void {
    const { resources } = props;
    const limits = resources?.limits ?? DEFAULT_CONTROLLER_RESOURCES.limits;
    const controllerResources = containerResources(
      'resources',
      resources?.requests ?? DEFAULT_CONTROLLER_RESOURCES.requests,
      limits,
    );
    const nodeOptions = controllerNodeOptions(memoryLimitBytes('resources', limits));
    const labels = operatorLabels();
    const probe = (path: string, period: number): k8s.Probe => ({
      httpGet: { path, port: k8s.IntOrString.fromString(HEALTH_PORT_NAME) },
      periodSeconds: period,
      timeoutSeconds: 2,
      failureThreshold: 3,
    });
    const fieldEnv = (name: string, fieldPath: string): k8s.EnvVar => ({
      name,
      valueFrom: { fieldRef: { fieldPath } },
    });
    new k8s.KubeDeployment(this, 'Deployment', {
      metadata: this.metadata(CONTROLLER_NAME),
      spec: {
        replicas,
        revisionHistoryLimit: 3,
        selector: { matchLabels: controllerSelector() },
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: k8s.IntOrString.fromNumber(1) } },
        template: {
          metadata: { labels },
          spec: {
            serviceAccountName: CONTROLLER_NAME,
            securityContext: restrictedPodSecurityContext(),
            nodeSelector: props.nodeSelector ? { ...props.nodeSelector } : undefined,
            tolerations: props.tolerations ? [...props.tolerations] : undefined,
            priorityClassName: props.priorityClassName,
            terminationGracePeriodSeconds: 30,
            affinity: {
              podAntiAffinity: {
                preferredDuringSchedulingIgnoredDuringExecution: [
                  {
                    weight: 100,
                    podAffinityTerm: {
                      topologyKey: 'kubernetes.io/hostname',
                      labelSelector: {
                        matchLabels: controllerSelector(),
                      },
                    },
                  },
                ],
              },
            },
            containers: [
              {
                name: 'controller',
                image,
                imagePullPolicy: 'IfNotPresent',
                command: [OPERATOR_ENTRYPOINT],
                args: operatorControllerArgs(this.watchNamespaces),
                env: [
                  fieldEnv('POD_NAME', 'metadata.name'),
                  fieldEnv('POD_NAMESPACE', 'metadata.namespace'),
                  // the controller gives the seed's `restore fetch` init container its own image
                  { name: OPERATOR_IMAGE_ENV, value: image },
                  ...nodeOptionsEnv(nodeOptions),
                ],
                ports: [
                  { name: METRICS_PORT_NAME, containerPort: METRICS_PORT, protocol: 'TCP' },
                  { name: HEALTH_PORT_NAME, containerPort: HEALTH_PORT, protocol: 'TCP' },
                ],
                livenessProbe: probe('/healthz', 10),
                readinessProbe: probe('/readyz', 5),
                resources: controllerResources,
                securityContext: restrictedContainerSecurityContext(),
                volumeMounts: [{ name: 'tmp', mountPath: '/tmp' }],
              },
            ],
            volumes: [{ name: 'tmp', emptyDir: { sizeLimit: k8s.Quantity.fromString('64Mi') } }],
          },
        },
      },
    });
  }

  /**
   * A Prometheus Operator ServiceMonitor `etcd-gitops-controller` that scrapes the controller's metrics Service,
   * keeping the `namespace` and `cluster` labels of the per-cluster series (honorLabels).
   */
  public addServiceMonitor(options: MonitoringOptions = {}): ApiObject {
    return serviceMonitor(
      this,
      'ServiceMonitor',
      {
        name: CONTROLLER_NAME,
        namespace: this.namespace,
        labels: { ...operatorLabels(), ...options.labels },
        annotations: foreignResourceAnnotations(SyncWave.OPERATOR),
      },
      {
        selector: { matchLabels: controllerSelector() },
        namespaceSelector: { matchNames: [this.namespace] },
        endpoints: [
          {
            port: METRICS_PORT_NAME,
            path: '/metrics',
            interval: validateInterval(options.interval ?? DEFAULT_SCRAPE_INTERVAL),
            honorLabels: true,
          },
        ],
      },
    );
  }

  /**
   * A PrometheusRule `etcd-gitops-controller-alerts`: reconcile errors, no replica holding the leader lease. `for`
   * changes how long an alert's condition must hold before it fires.
   */
  public addPrometheusRule(options: PrometheusRuleOptions = {}): ApiObject {
    const pendingFor = pendingDurations(
      'EtcdOperator: addPrometheusRule()',
      OPERATOR_ALERT_PENDING_FOR,
      options.for,
    );
    return prometheusRule(
      this,
      'PrometheusRule',
      {
        name: `${CONTROLLER_NAME}-alerts`,
        namespace: this.namespace,
        labels: { ...operatorLabels(), ...options.labels },
        annotations: foreignResourceAnnotations(SyncWave.OPERATOR),
      },
      () => ({ groups: [operatorAlerts(this.namespace, pendingFor)] }),
    );
  }

  private createMetricsService(): void {
    new k8s.KubeService(this, 'MetricsService', {
      metadata: this.metadata(METRICS_SERVICE_NAME),
      spec: {
        type: 'ClusterIP',
        selector: controllerSelector(),
        ports: [
          {
            name: METRICS_PORT_NAME,
            port: METRICS_PORT,
            targetPort: k8s.IntOrString.fromString(METRICS_PORT_NAME),
            protocol: 'TCP',
          },
        ],
      },
    });
  }
}
