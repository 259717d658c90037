// One etcd cluster: the custom resource plus everything static around it.
import { Chart } from 'cdk8s';
import { k8s } from 'cdk8s-plus-27';
import { Construct } from 'constructs';
import { EtcdBackupSchedule, type EtcdBackupScheduleOptions } from './backup-schedule.js';
import { backupSelector, clusterLabels, controllerSelector, memberSelector } from './conventions/labels.js';
import { MAX_CLUSTER_NAME_LENGTH } from './conventions/limits.js';
import {
  backupServiceAccountName,
  CONTROLLER_NAME,
  clientServiceName,
  clientServiceURL,
  controllerSecretsRoleName,
  DEFAULT_OPERATOR_NAMESPACE,
  peerServiceName,
} from './conventions/names.js';
import { CLIENT_PORT, CLIENT_PORT_NAME, PEER_PORT, PEER_PORT_NAME } from './conventions/ports.js';
import { type EtcdClusterSpecProps, renderEtcdClusterSpec } from './etcd-cluster-spec.js';
import { customResourceAnnotations, SYNC_WAVE, SyncWave } from './gitops.js';
import { KubeEtcdCluster } from './kube-etcd-cluster.js';
import { CONTROLLER_SECRET_RULES } from './operator-rbac.js';
import { validateDnsLabel } from './validate/names.js';

/** Pods allowed to reach the client port: a pod selector, a namespace selector, or both. */
export interface EtcdClientPeer {
  /**
   * Labels of client Pods.
   * @default - every Pod of the selected namespaces
   */
  readonly podSelector?: Record<string, string>;
  /**
   * Labels of client namespaces.
   * @default - the cluster's namespace only
   */
  readonly namespaceSelector?: Record<string, string>;
}

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
   * Pods, besides the controller and this cluster's backup Jobs, allowed to the client port.
   * @default - none
   */
  readonly clients?: readonly EtcdClientPeer[];
  /**
   * Namespace of the etcd-gitops controller, for its client-port access and its Secret RoleBinding.
   * @default 'etcd-gitops-system'
   */
  readonly operatorNamespace?: string;
}

/**
 * An `EtcdCluster` with its peer and client Services, PodDisruptionBudget, NetworkPolicy and the Role that lets
 * the controller read Secrets in this namespace. Member Pods and PVCs are made by the controller.
 */
export class EtcdCluster extends Construct {
  public readonly name: string;
  /** Namespace, when known at synth time. */
  public readonly namespace?: string;
  public readonly resource: KubeEtcdCluster;
  /** `<name>-client`: the Service clients connect to. */
  public readonly clientServiceName: string;
  /** `<name>-peer`: the headless Service that gives members their DNS names. */
  public readonly peerServiceName: string;
  /** Client URL, e.g. `http://example-client.etcd-example.svc:2379` (no namespace part when it is unknown). */
  public readonly clientUrl: string;
  private readonly operatorNamespace: string;
  private backupServiceAccount?: k8s.KubeServiceAccount;

  public constructor(scope: Construct, id: string, props: EtcdClusterProps) {
    super(scope, id);
    this.name = validateDnsLabel('name', props.name ?? id, MAX_CLUSTER_NAME_LENGTH);
    this.namespace = props.namespace ?? Chart.of(this).namespace;
    this.operatorNamespace = validateDnsLabel(
      'operatorNamespace',
      props.operatorNamespace ?? DEFAULT_OPERATOR_NAMESPACE,
    );
    this.clientServiceName = clientServiceName(this.name);
    this.peerServiceName = peerServiceName(this.name);
    this.clientUrl = clientServiceURL(this.name, this.namespace);
    this.resource = new KubeEtcdCluster(this, 'Resource', {
      metadata: { ...this.metadata(this.name), annotations: customResourceAnnotations() },
      spec: renderEtcdClusterSpec(props),
    });
    this.createServices();
    this.createDisruptionBudget();
    this.createNetworkPolicy(props.clients ?? []);
    this.createSecretAccess();
  }

  /**
   * A backup CronJob `<name>-backup` (or `<name>-backup-<options.name>`), with its own ServiceAccount that has no
   * API rights. `kubectl create job --from=cronjob/<cronjob> <job>` takes a backup now.
   */
  public addBackupSchedule(options: EtcdBackupScheduleOptions): EtcdBackupSchedule {
    const serviceAccountName = backupServiceAccountName(this.name);
    this.backupServiceAccount ??= new k8s.KubeServiceAccount(this, 'BackupServiceAccount', {
      metadata: { ...this.metadata(serviceAccountName, 'backup') },
      automountServiceAccountToken: false,
    });
    const id = options.name === undefined ? 'Backup' : `Backup-${options.name}`;
    return new EtcdBackupSchedule(
      this,
      id,
      { clusterName: this.name, namespace: this.namespace, serviceAccountName },
      options,
    );
  }

  private metadata(name: string, component: 'member' | 'backup' = 'member'): k8s.ObjectMeta {
    return {
      name,
      namespace: this.namespace,
      labels: clusterLabels(this.name, component),
      annotations: { [SYNC_WAVE]: SyncWave.CLUSTERS },
    };
  }

  private createServices(): void {
    const port = (name: string, number: number): k8s.ServicePort => ({
      name,
      port: number,
      targetPort: k8s.IntOrString.fromNumber(number),
      protocol: 'TCP',
    });
    new k8s.KubeService(this, 'PeerService', {
      metadata: this.metadata(this.peerServiceName),
      spec: {
        clusterIp: 'None',
        publishNotReadyAddresses: true,
        selector: memberSelector(this.name),
        ports: [port(PEER_PORT_NAME, PEER_PORT), port(CLIENT_PORT_NAME, CLIENT_PORT)],
      },
    });
    new k8s.KubeService(this, 'ClientService', {
      metadata: this.metadata(this.clientServiceName),
      spec: {
        type: 'ClusterIP',
        selector: memberSelector(this.name),
        ports: [port(CLIENT_PORT_NAME, CLIENT_PORT)],
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

  private createNetworkPolicy(clients: readonly EtcdClientPeer[]): void {
    const members: k8s.NetworkPolicyPeer = { podSelector: { matchLabels: memberSelector(this.name) } };
    const controller: k8s.NetworkPolicyPeer = {
      namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': this.operatorNamespace } },
      podSelector: { matchLabels: controllerSelector() },
    };
    const backups: k8s.NetworkPolicyPeer = {
      podSelector: { matchLabels: backupSelector(this.name) },
    };
    const userClients: k8s.NetworkPolicyPeer[] = clients.map((c) => ({
      podSelector: c.podSelector ? { matchLabels: c.podSelector } : c.namespaceSelector ? {} : undefined,
      namespaceSelector: c.namespaceSelector ? { matchLabels: c.namespaceSelector } : undefined,
    }));
    const tcp = (port: number): k8s.NetworkPolicyPort => ({
      protocol: 'TCP',
      port: k8s.IntOrString.fromNumber(port),
    });
    new k8s.KubeNetworkPolicy(this, 'NetworkPolicy', {
      metadata: this.metadata(this.name),
      spec: {
        podSelector: { matchLabels: memberSelector(this.name) },
        policyTypes: ['Ingress'],
        ingress: [
          { from: [members], ports: [tcp(PEER_PORT)] },
          { from: [controller, backups, ...userClients], ports: [tcp(CLIENT_PORT)] },
        ],
      },
    });
  }

  /** The controller reads S3 credentials (bootstrap, restore) in this namespace only. */
  private createSecretAccess(): void {
    const name = controllerSecretsRoleName(this.name);
    new k8s.KubeRole(this, 'ControllerSecretsRole', {
      metadata: this.metadata(name),
      rules: [...CONTROLLER_SECRET_RULES],
    });
    new k8s.KubeRoleBinding(this, 'ControllerSecretsRoleBinding', {
      metadata: this.metadata(name),
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
      subjects: [{ kind: 'ServiceAccount', name: CONTROLLER_NAME, namespace: this.operatorNamespace }],
    });
  }
}
