// One etcd cluster: the custom resource plus everything static around it.
import { type ApiObject, Chart, Lazy } from 'cdk8s';
import { k8s } from 'cdk8s-plus-27';
import { Construct } from 'constructs';
import {
  groupOf,
  type OperatorIdentity,
  registerUnique,
  registryOf,
  unwatchedNamespaceProblem,
} from './app-registry.js';
import { EtcdBackupSchedule, type EtcdBackupScheduleOptions } from './backup-schedule.js';
import { certManagerObjects, clientCertificate, type MetadataOf } from './cluster/cert-manager.js';
import type { EtcdClientCertificate, EtcdConnection } from './cluster/connection.js';
import { createClusterNamespace } from './cluster/namespace.js';
import {
  type EtcdClient,
  type EtcdClientIpBlock,
  type EtcdClientPeer,
  type EtcdLabelSelectorLike,
  type EtcdPodSelector,
  type EtcdRenderedLabelSelector,
  networkPolicySpec,
  validateClient,
} from './cluster/network-policy.js';
import { resolveOperator } from './cluster/operator-identity.js';
import { longestCronGapSeconds } from './conventions/cron.js';
import { effectiveQuotaBytes } from './conventions/etcd-backend.js';
import { DEFAULT_OPERATOR_IMAGE, defaultEtcdImage } from './conventions/images.js';
import { type Component, clusterLabels, memberSelector } from './conventions/labels.js';
import { DEFAULT_STORAGE_SIZE, MAX_CLUSTER_NAME_LENGTH } from './conventions/limits.js';
import {
  backupCronJobName,
  backupServiceAccountName,
  clientServiceName,
  clientServiceURL,
  controllerSecretsRoleName,
  defragCronJobName,
  peerServiceName,
} from './conventions/names.js';
import {
  CLIENT_PORT,
  CLIENT_PORT_NAME,
  MEMBER_METRICS_PORT,
  METRICS_PORT_NAME,
  PEER_PORT,
  PEER_PORT_NAME,
} from './conventions/ports.js';
import { schemes, type TlsSpec } from './conventions/tls.js';
import { EtcdDefragSchedule, type EtcdDefragScheduleOptions } from './defrag-schedule.js';
import {
  type EtcdCertManagerIssuer,
  type EtcdClusterSpecProps,
  renderEtcdClusterSpec,
} from './etcd-cluster-spec.js';
import type { EtcdOperator } from './etcd-operator.js';
import { customResourceAnnotations, foreignResourceAnnotations, SYNC_WAVE, SyncWave } from './gitops.js';
import type { EtcdClusterSpec } from './imports/etcd.gitops.dev.js';
import { KubeEtcdCluster } from './kube-etcd-cluster.js';
import { CLUSTER_ALERT_PENDING_FOR, clusterAlerts } from './monitoring/alerts.js';
import {
  DEFAULT_SCRAPE_INTERVAL,
  type MonitoringOptions,
  type PrometheusRuleOptions,
  pendingDurations,
  validateInterval,
} from './monitoring/options.js';
import { podMonitor, prometheusRule } from './monitoring/prometheus-operator.js';
import { controllerCredentialRules } from './operator-rbac.js';
import { validateDnsLabel, validateObjectName } from './validate/names.js';

export type {
  EtcdClient,
  EtcdClientCertificate,
  EtcdClientIpBlock,
  EtcdClientPeer,
  EtcdConnection,
  EtcdLabelSelectorLike,
  EtcdPodSelector,
  EtcdRenderedLabelSelector,
};

/** A client certificate for an application (`EtcdCluster.addClientCertificate`). */
export interface EtcdClientCertificateOptions {
  /** Name of the Certificate and of the Secret cert-manager writes (`tls.crt`, `tls.key`, `ca.crt`). */
  readonly secretName: string;
  /**
   * Common name of the certificate (etcd's user name when its auth is on with `--client-cert-auth`).
   * @default - the secretName
   */
  readonly commonName?: string;
}

/** Props of {@link EtcdCluster}: the cluster (`EtcdClusterSpecProps`), where it lives, who may reach it, TLS. */
export interface EtcdClusterProps extends EtcdClusterSpecProps {
  /**
   * Cluster name: the custom resource and the prefix of every derived name (`<name>-client`, `<name>-0`).
   * @default - the construct id
   */
  readonly name?: string;
  /**
   * Namespace.
   * @default - the chart's namespace, or none (the namespace the objects are applied to)
   */
  readonly namespace?: string;
  /**
   * Also create the namespace (Pod Security `restricted`, always deletion-protected: it holds the member volumes,
   * which deleting it would delete whatever `deletionProtection` and `whenDeleted` say). Needs a known namespace;
   * one cluster per namespace may create it.
   * @default false
   */
  readonly createNamespace?: boolean;
  /**
   * Keep the `EtcdCluster` when it leaves Git or the Argo CD Application / Flux Kustomization is deleted:
   * `argocd.argoproj.io/sync-options: Prune=false,Delete=false` and `kustomize.toolkit.fluxcd.io/prune: disabled`.
   * Deleting it is then a deliberate `kubectl delete`. With `false` Git's removal deletes it; its member volumes stay
   * unless `pvcRetentionPolicy.whenDeleted` is `Delete` (the namespace it creates stays either way).
   * @default true
   */
  readonly deletionProtection?: boolean;
  /**
   * Clients, besides the controller and this cluster's backup and defrag Jobs, allowed to the client port: label
   * selectors, cdk8s-plus workloads, or `{ ipBlock: { cidr } }` for clients outside the Pod network (a controller
   * or application run outside Kubernetes). `allowFrom()` adds more later. Refused at synth, naming `clients[i]`:
   * a client that selects nothing (`{}`), an `ipBlock` beside a label selector, a `cidr` that is no CIDR block.
   * @default - none
   */
  readonly clients?: readonly EtcdClient[];
  /**
   * Pods allowed to the members' metrics port (2381, `/metrics`): your Prometheus, e.g.
   * `{ namespaceSelector: { 'kubernetes.io/metadata.name': 'monitoring' } }`. `allowMetricsFrom()` adds more later.
   * @default - none: the metrics port is closed by the NetworkPolicy
   */
  readonly metricsFrom?: readonly EtcdClient[];
  /**
   * The operator that manages this cluster: its namespace and ServiceAccount go into the NetworkPolicy (client
   * port) and the RoleBinding that lets its controller read Secrets here.
   * @default - the one EtcdOperator of this app, wherever it is added; with none, `operatorNamespace` must be set
   */
  readonly operator?: EtcdOperator;
  /**
   * Namespace of an operator synthesized in another app (with an operator in this app, it must agree).
   * @default - the operator's namespace
   */
  readonly operatorNamespace?: string;
  /**
   * ServiceAccount of that operator's controller (with an operator in this app, it must agree).
   * @default - the operator's ServiceAccount; 'etcd-gitops-controller' with `operatorNamespace`
   */
  readonly operatorServiceAccount?: string;
}

function servicePort(name: string, port: number): k8s.ServicePort {
  return { name, port, targetPort: k8s.IntOrString.fromNumber(port), protocol: 'TCP' };
}

/**
 * An `EtcdCluster` with its peer and client Services, PodDisruptionBudget, NetworkPolicy and the Role that lets
 * the controller read Secrets in this namespace. Member Pods and PVCs are made by the controller.
 */
export class EtcdCluster extends Construct {
  /** The cluster's name: `metadata.name` of the EtcdCluster and the prefix of every derived name. */
  public readonly name: string;
  /** Namespace, when known at synth time. */
  public readonly namespace?: string;
  /** The `EtcdCluster` custom resource. */
  public readonly resource: KubeEtcdCluster;
  /** `<name>-client`: the Service clients connect to. */
  public readonly clientServiceName: string;
  /** `<name>-peer`: the headless Service that gives members their DNS names. */
  public readonly peerServiceName: string;
  /**
   * Client URL, e.g. `http://example-client.etcd-example.svc:2379` (`https` with `tls.client`; no namespace part
   * when it is unknown).
   */
  public readonly clientUrl: string;
  /** The client Service `<name>-client` (port `client`). */
  public readonly clientService: k8s.KubeService;
  /** The headless peer Service `<name>-peer`, which gives members their DNS names. */
  public readonly peerService: k8s.KubeService;
  /** Where a client connects: URL, Service, namespace, port and scheme (an application's client certificate comes
   *  from `addClientCertificate`). */
  public readonly connection: EtcdConnection;
  /**
   * `spec.tls` as written: the Secret names of each side (the cert-manager form's `<name>-server-tls`,
   * `<name>-client-tls`, `<name>-peer-tls` included).
   * @default - undefined: no TLS
   */
  public readonly tls?: TlsSpec;
  /** The cert-manager Issuers and Certificates made for the `tls` prop's cert-manager form (empty without it). */
  public readonly certManagerObjects: readonly ApiObject[];
  /** The Namespace, when `createNamespace` is set. */
  public readonly namespaceObject?: k8s.KubeNamespace;
  private readonly props: EtcdClusterProps;
  private readonly clients: EtcdClient[];
  private readonly metricsScrapers: EtcdClient[];
  private readonly backupSchedules: { cronJob: string; longestGapSeconds: number }[] = [];
  private readonly spec: EtcdClusterSpec;
  private backupServiceAccount?: k8s.KubeServiceAccount;
  private readonly clientIssuer?: EtcdCertManagerIssuer;

  public constructor(scope: Construct, id: string, props: EtcdClusterProps) {
    super(scope, id);
    this.name = validateDnsLabel('name', props.name ?? id, MAX_CLUSTER_NAME_LENGTH);
    this.namespace = props.namespace ?? Chart.of(this).namespace;
    if (props.operatorNamespace !== undefined) validateDnsLabel('operatorNamespace', props.operatorNamespace);
    if (props.operatorServiceAccount !== undefined) {
      validateObjectName('operatorServiceAccount', props.operatorServiceAccount);
    }
    this.props = props;
    this.registerName();
    this.node.addValidation({ validate: () => this.operatorProblems() });
    this.clientServiceName = clientServiceName(this.name);
    this.peerServiceName = peerServiceName(this.name);
    const rendered = renderEtcdClusterSpec(props, { name: this.name, namespace: this.namespace });
    this.spec = rendered.spec;
    this.tls = rendered.tls.spec;
    const scheme = schemes(this.tls).client;
    this.clientUrl = clientServiceURL(this.name, this.namespace, scheme);
    this.connection = {
      url: this.clientUrl,
      serviceName: this.clientServiceName,
      namespace: this.namespace,
      port: CLIENT_PORT,
      scheme,
    };
    this.clients = (props.clients ?? []).map((client, i) => validateClient(`clients[${i}]`, client));
    this.metricsScrapers = (props.metricsFrom ?? []).map((scraper, i) =>
      validateClient(`metricsFrom[${i}]`, scraper),
    );
    const protect = props.deletionProtection ?? true;
    if (props.createNamespace) this.namespaceObject = this.createNamespace();
    this.resource = new KubeEtcdCluster(this, 'Resource', {
      metadata: { ...this.metadata(this.name), annotations: customResourceAnnotations(protect) },
      spec: this.spec,
    });
    this.peerService = this.createPeerService();
    this.clientService = this.createClientService();
    this.createDisruptionBudget();
    this.createNetworkPolicy();
    this.createSecretAccess();
    // A seed restoring a web-identity backup runs as the backup ServiceAccount (workload-identity.md).
    if (props.bootstrapFromBackup?.webIdentity) this.ensureBackupServiceAccount();
    const certManager = rendered.tls.certManager;
    const made = certManager ? certManagerObjects(this, certManager, this.certManagerMetadata) : undefined;
    this.certManagerObjects = made?.objects ?? [];
    this.clientIssuer = made?.clientIssuer;
  }

  /**
   * An application's own client identity: a cert-manager Certificate `options.secretName` (and the Secret of that
   * name: `tls.crt`, `tls.key`, `ca.crt`) that the application presents to this cluster: client auth, from the
   * client side's CA or issuer. Needs `tls.client.certManager`. The application mounts the Secret and connects to
   * `connection.url`; `allowFrom()` admits it through the NetworkPolicy.
   */
  public addClientCertificate(id: string, options: EtcdClientCertificateOptions): EtcdClientCertificate {
    const prop = 'addClientCertificate';
    if (!this.clientIssuer) {
      const got = this.tls?.client ? 'tls.client with your Secrets' : 'no tls.client';
      throw new Error(
        `EtcdCluster '${this.name}': ${prop}() needs tls.client.certManager (its CA or issuer signs the certificate), got ${got}; with your own Secrets, issue client certificates from the CA of tls.client.secretName yourself`,
      );
    }
    const secretName = validateObjectName('secretName', options.secretName);
    const taken = this.certManagerObjects.map((o) => o.metadata.name);
    if (taken.includes(secretName)) {
      throw new Error(
        `'secretName' must not be a name the cluster's TLS objects use (${taken.join(', ')}), got '${secretName}'`,
      );
    }
    const commonName = options.commonName ?? secretName;
    if (commonName === '' || commonName.length > 64) {
      throw new Error(`'commonName' must be 1 to 64 characters (X.509), got '${commonName}'`);
    }
    const certificate = clientCertificate(
      this,
      `ClientCertificate-${id}`,
      this.certManagerMetadata(secretName),
      this.clientIssuer,
      commonName,
    );
    return { certificate, secretName, commonName, connection: this.connection };
  }

  /** cert-manager objects: the cluster's metadata, and a dry run skipped while cert-manager's CRDs are missing. */
  private readonly certManagerMetadata: MetadataOf = (name) => ({
    ...this.metadata(name),
    name,
    annotations: customResourceAnnotations(),
  });

  /**
   * Where the operator that manages this cluster runs and as whom (the `operator` prop, the app's EtcdOperator or
   * `operatorNamespace`); known at synth time, so an operator added to the app later counts. Throws when there is
   * no single answer.
   */
  public get operatorIdentity(): OperatorIdentity {
    const resolved = this.resolveOperator();
    if (resolved.problem !== undefined)
      throw new Error(`EtcdCluster '${this.node.path}': ${resolved.problem}`);
    return resolved.identity;
  }

  /** The operator's image for the Jobs, at synth time: known when the operator is in this app. */
  private operatorImage(): string {
    return Lazy.any({ produce: () => this.operatorIdentity.image ?? DEFAULT_OPERATOR_IMAGE });
  }

  /**
   * Lets `clients` reach the client port: label selectors, or cdk8s-plus workloads (`Deployment`, `StatefulSet`,
   * `Job`, `Pod`, `Pods.select(...)`), in their own namespace when they have one. The NetworkPolicy is rendered at
   * synth time, so calls after construction count.
   */
  public allowFrom(...clients: EtcdClient[]): void {
    this.clients.push(...clients.map((client, i) => validateClient(`allowFrom() argument ${i}`, client)));
  }

  /** Lets `scrapers` (label selectors or cdk8s-plus workloads, as `allowFrom`) reach the members' metrics port. */
  public allowMetricsFrom(...scrapers: EtcdClient[]): void {
    this.metricsScrapers.push(
      ...scrapers.map((scraper, i) => validateClient(`allowMetricsFrom() argument ${i}`, scraper)),
    );
  }

  /**
   * A backup CronJob `<name>-backup` (or `<name>-backup-<options.name>`), with its own ServiceAccount that has no
   * API rights. `kubectl create job --from=cronjob/<cronjob> <job>` takes a backup now.
   */
  public addBackupSchedule(options: EtcdBackupScheduleOptions): EtcdBackupSchedule {
    const serviceAccountName = this.ensureBackupServiceAccount();
    const id = options.name === undefined ? 'Backup' : `Backup-${options.name}`;
    if (this.node.tryFindChild(id)) {
      throw new Error(
        options.name === undefined
          ? `EtcdCluster '${this.name}' already has a backup schedule without a 'name' (CronJob '${backupCronJobName(this.name)}'): give every further schedule a 'name', e.g. 'hourly' for '${backupCronJobName(this.name, 'hourly')}'`
          : `EtcdCluster '${this.name}' already has a backup schedule named '${options.name}': 'name' must differ between schedules of one cluster`,
      );
    }
    const schedule = new EtcdBackupSchedule(
      this,
      id,
      {
        clusterName: this.name,
        namespace: this.namespace,
        serviceAccountName,
        clientCertificateSecretName: this.tls?.client?.clientSecretName,
        image: this.operatorImage(),
        etcd: {
          version: this.spec.version,
          image: this.spec.image ?? defaultEtcdImage(this.spec.version),
          quotaBackendBytes: effectiveQuotaBytes(this.spec, DEFAULT_STORAGE_SIZE),
        },
      },
      options,
    );
    if (!options.suspend) {
      this.backupSchedules.push({
        cronJob: schedule.cronJobName,
        longestGapSeconds: longestCronGapSeconds(options.schedule),
      });
    }
    return schedule;
  }

  /**
   * A CronJob `<name>-defrag` that defragments the members one at a time (followers first, the leader last,
   * unhealthy members skipped) and disarms a NOSPACE alarm once every member is below the quota. At most one per
   * cluster.
   */
  public addDefragSchedule(options: EtcdDefragScheduleOptions = {}): EtcdDefragSchedule {
    if (this.node.tryFindChild('Defrag')) {
      throw new Error(
        `EtcdCluster '${this.name}' already has a defrag schedule: addDefragSchedule() once per cluster`,
      );
    }
    const serviceAccountName = defragCronJobName(this.name);
    new k8s.KubeServiceAccount(this, 'DefragServiceAccount', {
      metadata: { ...this.metadata(serviceAccountName, 'defrag') },
      automountServiceAccountToken: false,
    });
    const quotaBackendBytes = effectiveQuotaBytes(this.spec, DEFAULT_STORAGE_SIZE);
    return new EtcdDefragSchedule(
      this,
      'Defrag',
      {
        clusterName: this.name,
        namespace: this.namespace,
        serviceAccountName,
        quotaBackendBytes,
        clientCertificateSecretName: this.tls?.client?.clientSecretName,
        image: this.operatorImage(),
      },
      options,
    );
  }

  /**
   * A Prometheus Operator PodMonitor `<name>-members` that scrapes every member's metrics port. Your Prometheus
   * must also be let through the NetworkPolicy: `metricsFrom` or `allowMetricsFrom()`.
   */
  public addPodMonitor(options: MonitoringOptions = {}): ApiObject {
    const namespace = this.monitoredNamespace('addPodMonitor');
    return podMonitor(
      this,
      'PodMonitor',
      {
        name: `${this.name}-members`,
        namespace,
        labels: { ...clusterLabels(this.name), ...options.labels },
        annotations: foreignResourceAnnotations(SyncWave.CLUSTERS),
      },
      {
        selector: { matchLabels: memberSelector(this.name) },
        namespaceSelector: { matchNames: [namespace] },
        podMetricsEndpoints: [
          {
            port: METRICS_PORT_NAME,
            path: '/metrics',
            interval: validateInterval(options.interval ?? DEFAULT_SCRAPE_INTERVAL),
          },
        ],
      },
    );
  }

  /**
   * A PrometheusRule `<name>-alerts`: no leader, members down, quorum at risk or lost, database near its quota,
   * NOSPACE, and for each backup schedule (not suspended) no success for twice its longest gap. Needs the
   * members scraped (`addPodMonitor()`), the controller scraped (`EtcdOperator.addServiceMonitor()`) and, for the
   * backup alert, kube-state-metrics. `for` changes how long an alert's condition must hold before it fires.
   */
  public addPrometheusRule(options: PrometheusRuleOptions = {}): ApiObject {
    const namespace = this.monitoredNamespace('addPrometheusRule');
    const pendingFor = pendingDurations(
      `EtcdCluster '${this.name}': addPrometheusRule()`,
      CLUSTER_ALERT_PENDING_FOR,
      options.for,
    );
    return prometheusRule(
      this,
      'PrometheusRule',
      {
        name: `${this.name}-alerts`,
        namespace,
        labels: { ...clusterLabels(this.name), ...options.labels },
        annotations: foreignResourceAnnotations(SyncWave.CLUSTERS),
      },
      () => ({
        groups: [clusterAlerts({ cluster: this.name, namespace, backups: this.backupSchedules, pendingFor })],
      }),
    );
  }

  /**
   * `<cluster>-backup`: the backup Jobs' ServiceAccount and the web identity of every S3 path of the cluster (its
   * token is what a role's trust policy names). No API rights, no token mounted.
   */
  private ensureBackupServiceAccount(): string {
    const serviceAccountName = backupServiceAccountName(this.name);
    this.backupServiceAccount ??= new k8s.KubeServiceAccount(this, 'BackupServiceAccount', {
      metadata: { ...this.metadata(serviceAccountName, 'backup') },
      automountServiceAccountToken: false,
    });
    return serviceAccountName;
  }

  private monitoredNamespace(method: string): string {
    if (!this.namespace) {
      throw new Error(
        `EtcdCluster '${this.name}': ${method}() needs the cluster's namespace at synth time (its alerts and selectors name it): set 'namespace' or use a chart with one`,
      );
    }
    return this.namespace;
  }

  private createNamespace(): k8s.KubeNamespace {
    if (!this.namespace) {
      throw new Error(
        `'createNamespace' needs a namespace to create: set 'namespace' or use a chart with one, got none`,
      );
    }
    return createClusterNamespace(this, this.namespace);
  }

  private resolveOperator() {
    const { operator, operatorNamespace, operatorServiceAccount } = this.props;
    return resolveOperator(this, {
      ...(operator ? { operator: { construct: operator, identity: operator.identity } } : {}),
      operatorNamespace,
      operatorServiceAccount,
    });
  }

  private operatorProblems(): string[] {
    const { problem, identity } = this.resolveOperator();
    if (problem !== undefined) return [problem];
    const unwatched = unwatchedNamespaceProblem(identity, this.namespace, `EtcdCluster '${this.name}'`);
    return unwatched === undefined ? [] : [unwatched];
  }

  /** One cluster per name and namespace in an app: two would overwrite each other's objects. */
  private registerName(): void {
    const where = this.namespace ? `namespace '${this.namespace}'` : 'the same (unset) namespace';
    registerUnique(
      this,
      groupOf(registryOf(this).clusters, `${this.namespace ?? '<none>'}/${this.name}`),
      this,
      (first) =>
        `'name' is '${this.name}' in ${where}, the same as EtcdCluster '${first.node.path}': their objects would overwrite each other; give each cluster its own 'name' or 'namespace'`,
    );
  }

  private metadata(name: string, component: Component = 'member'): k8s.ObjectMeta {
    return {
      name,
      namespace: this.namespace,
      labels: clusterLabels(this.name, component),
      annotations: { [SYNC_WAVE]: SyncWave.CLUSTERS },
    };
  }

  private createPeerService(): k8s.KubeService {
    return new k8s.KubeService(this, 'PeerService', {
      metadata: this.metadata(this.peerServiceName),
      spec: {
        clusterIp: 'None',
        publishNotReadyAddresses: true,
        selector: memberSelector(this.name),
        ports: [
          servicePort(PEER_PORT_NAME, PEER_PORT),
          servicePort(CLIENT_PORT_NAME, CLIENT_PORT),
          servicePort(METRICS_PORT_NAME, MEMBER_METRICS_PORT),
        ],
      },
    });
  }

  private createClientService(): k8s.KubeService {
    return new k8s.KubeService(this, 'ClientService', {
      metadata: this.metadata(this.clientServiceName),
      spec: {
        type: 'ClusterIP',
        selector: memberSelector(this.name),
        ports: [servicePort(CLIENT_PORT_NAME, CLIENT_PORT)],
      },
    });
  }

  /**
   * At most one member may be voluntarily evicted at a time, and none while another is unhealthy (the
   * eviction API counts unhealthy Pods as already disrupted). `maxUnavailable: 1` keeps quorum for every
   * size >= 3 and, unlike a `minAvailable` computed here, stays right after `kubectl scale` changes the
   * size behind Git's back; a size-1 cluster does not block node drains forever (its data stays on its PVC).
   */
  private createDisruptionBudget(): void {
    new k8s.KubePodDisruptionBudget(this, 'DisruptionBudget', {
      metadata: this.metadata(this.name),
      spec: {
        maxUnavailable: k8s.IntOrString.fromNumber(1),
        selector: { matchLabels: memberSelector(this.name) },
      },
    });
  }

  /** Rendered at synth time: the operator may be added to the app, and clients allowed, after construction. */
  private createNetworkPolicy(): void {
    new k8s.KubeNetworkPolicy(this, 'NetworkPolicy', {
      metadata: this.metadata(this.name),
      spec: Lazy.any({
        produce: () =>
          networkPolicySpec(this.name, this.operatorIdentity, this.clients, this.metricsScrapers),
      }),
    });
  }

  /** The controller's S3 credentials for a restore (the Secret, or a token of `<cluster>-backup`), here only. */
  private createSecretAccess(): void {
    const name = controllerSecretsRoleName(this.name);
    new k8s.KubeRole(this, 'ControllerSecretsRole', {
      metadata: this.metadata(name),
      rules: controllerCredentialRules(this.name),
    });
    new k8s.KubeRoleBinding(this, 'ControllerSecretsRoleBinding', {
      metadata: this.metadata(name),
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
      subjects: Lazy.any({
        produce: (): k8s.Subject[] => {
          const { namespace, serviceAccountName } = this.operatorIdentity;
          return [{ kind: 'ServiceAccount', name: serviceAccountName, namespace }];
        },
      }),
    });
  }
}
