// A member's Pod and PVC with exactly the flags of its moment (docs/design/membership.md, "Member Pods"). Pure.
import type {
  V1Affinity,
  V1PersistentVolumeClaim,
  V1Pod,
  V1Probe,
  V1Toleration,
  V1TopologySpreadConstraint,
  V1Volume,
  V1VolumeMount,
} from '@kubernetes/client-node';
import { backendFlags, extraFlags } from '../../constructs/conventions/etcd-backend.js';
import {
  ANNOTATION_CLUSTER_TOKEN,
  ANNOTATION_CLUSTER_UID,
  ANNOTATION_INITIAL_CLUSTER,
  ANNOTATION_INITIAL_CLUSTER_STATE,
  ANNOTATION_INITIAL_MEMBERS,
  ANNOTATION_VERSION,
  CLIENT_PORT,
  CLIENT_PORT_NAME,
  clientURL,
  DATA_DIR,
  DATA_MOUNT_PATH,
  DEFAULT_MEMBER_RESOURCES,
  DEFAULT_STORAGE_SIZE,
  defaultEtcdImage,
  ETCD_BINARY,
  initialCluster,
  MEMBER_CLIENT_TLS_DIR,
  MEMBER_LOOPBACK,
  MEMBER_METRICS_PORT,
  MEMBER_PEER_TLS_DIR,
  METRICS_PORT_NAME,
  memberAffinity,
  memberLabels as memberLabelsOf,
  memberTlsFlags,
  PEER_PORT,
  PEER_PORT_NAME,
  parseSemver,
  peerServiceName,
  peerURL,
  pvcName,
  schemes,
} from '../../constructs/conventions/index.js';
import {
  restrictedContainerSecurityContext,
  restrictedPodSecurityContext,
} from '../../constructs/security.js';
import type { EtcdCluster } from './api.js';
import { clusterOwnerReference } from './owner.js';

/** The moment of a member: what `--initial-cluster*` say when its Pod is made. */
export interface MemberMoment {
  readonly member: string;
  readonly state: 'new' | 'existing';
  /** Member names for `--initial-cluster`. */
  readonly initialCluster: readonly string[];
  /** `--initial-cluster-token`, for the seed only. */
  readonly token?: string;
}

function clusterName(cluster: EtcdCluster): string {
  return cluster.metadata.name as string;
}

function namespaceOf(cluster: EtcdCluster): string {
  return cluster.metadata.namespace as string;
}

/** Labels of a member's Pod and PVC: the selector labels, managed-by and the member label. */
export function memberLabels(cluster: EtcdCluster, member: string): Record<string, string> {
  return memberLabelsOf(clusterName(cluster), member);
}

export function etcdImage(cluster: EtcdCluster): string {
  return cluster.spec.image ?? defaultEtcdImage(cluster.spec.version);
}

/** The etcd command line of a member at its moment. `--initial-cluster` and `--initial-cluster-state` are not
 *  flags but environment from the member record's annotations ({@link memberEnv}), so the controller can change them
 *  for the next start without recreating the Pod. */
export function etcdFlags(cluster: EtcdCluster, moment: MemberMoment): string[] {
  const name = clusterName(cluster);
  const namespace = namespaceOf(cluster);
  const scheme = schemes(cluster.spec.tls);
  const flags = [
    `--name=${moment.member}`,
    `--data-dir=${DATA_DIR}`,
    `--listen-peer-urls=${scheme.peer}://$(POD_IP):${PEER_PORT}`,
    // The loopback too: `kubectl exec <member> -- etcdctl ...` reaches its default endpoint, 127.0.0.1:2379.
    `--listen-client-urls=${scheme.client}://$(POD_IP):${CLIENT_PORT},${scheme.client}://${MEMBER_LOOPBACK}:${CLIENT_PORT}`,
    // Plain http with or without TLS: the kubelet's probes and the scrapers present no certificate.
    `--listen-metrics-urls=http://$(POD_IP):${MEMBER_METRICS_PORT}`,
    `--advertise-client-urls=${clientURL(name, namespace, moment.member, scheme.client)}`,
    `--initial-advertise-peer-urls=${peerURL(name, namespace, moment.member, scheme.peer)}`,
    ...memberTlsFlags(cluster.spec.tls, name, namespace),
  ];
  if (moment.token !== undefined) flags.push(`--initial-cluster-token=${moment.token}`);
  // Compaction, quota, then the user's other flags (docs/design/compaction-quota-defrag.md).
  flags.push(...backendFlags(cluster.spec, DEFAULT_STORAGE_SIZE), ...extraFlags(cluster.spec.extraFlags));
  return flags;
}

const fromAnnotation = (name: string, annotation: string) => ({
  name,
  valueFrom: { fieldRef: { fieldPath: `metadata.annotations['${annotation}']` } },
});

/** The etcd container's environment: its address, and the member record read by etcd at every start (the kubelet
 *  resolves the downward API each time it starts the container). */
export function memberEnv(): { name: string; valueFrom: { fieldRef: { fieldPath: string } } }[] {
  return [
    { name: 'POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
    fromAnnotation('ETCD_INITIAL_CLUSTER', ANNOTATION_INITIAL_CLUSTER),
    fromAnnotation('ETCD_INITIAL_CLUSTER_STATE', ANNOTATION_INITIAL_CLUSTER_STATE),
  ];
}

/** Readiness answers "may clients use it"; liveness only "is the process wedged", with a large budget so a member
 *  waiting for an election (no leader for a while) is never killed. Both ask the metrics listener, which is plain
 *  http even when the client port needs a client certificate (a probe presents none; docs/design/tls.md). */
export function memberProbes(version: string): { readiness: V1Probe; liveness: V1Probe } {
  const minor = parseSemver(version)?.minor ?? 6;
  const readiness: V1Probe = {
    // /readyz and /livez exist in every 3.6 but only in late 3.5 patches; /health is in all. /readyz leaves the
    // NOSPACE alarm out (a full member still serves reads and deletes); /health counts it unless told to exclude it:
    // counted, every member of a full 3.4/3.5 cluster would leave the client Service, and the defrag Job, which
    // reaches the cluster through it, could never free the space (found by the soak; 3.4.23 and 3.5.35 honour it).
    httpGet: {
      path: minor >= 6 ? '/readyz' : '/health?exclude=NOSPACE',
      port: MEMBER_METRICS_PORT,
      scheme: 'HTTP',
    },
    periodSeconds: 5,
    timeoutSeconds: 3,
    failureThreshold: 3,
  };
  const liveness: V1Probe =
    minor >= 6
      ? { httpGet: { path: '/livez', port: MEMBER_METRICS_PORT, scheme: 'HTTP' } }
      : { tcpSocket: { port: CLIENT_PORT } };
  return {
    readiness,
    liveness: {
      ...liveness,
      initialDelaySeconds: 10,
      periodSeconds: 10,
      timeoutSeconds: 5,
      failureThreshold: 10,
    },
  };
}

function stringValues(
  values: Record<string, string | number> | undefined,
): Record<string, string> | undefined {
  return values
    ? Object.fromEntries(Object.entries(values).map(([key, value]) => [key, String(value)]))
    : undefined;
}

function memberResources(cluster: EtcdCluster): {
  requests?: Record<string, string>;
  limits?: Record<string, string>;
} {
  const resources = cluster.spec.resources ?? DEFAULT_MEMBER_RESOURCES;
  const requests = stringValues(resources.requests);
  const limits = stringValues(resources.limits);
  return { ...(requests ? { requests } : {}), ...(limits ? { limits } : {}) };
}

function podAnnotations(cluster: EtcdCluster, moment: MemberMoment): Record<string, string> {
  const annotations: Record<string, string> = {
    ...(cluster.spec.podTemplate?.annotations ?? {}),
    [ANNOTATION_INITIAL_CLUSTER]: initialCluster(
      clusterName(cluster),
      namespaceOf(cluster),
      moment.initialCluster,
      schemes(cluster.spec.tls).peer,
    ),
    [ANNOTATION_INITIAL_CLUSTER_STATE]: moment.state,
    [ANNOTATION_VERSION]: cluster.spec.version,
    [ANNOTATION_CLUSTER_UID]: cluster.metadata.uid as string,
  };
  if (moment.token !== undefined) annotations[ANNOTATION_CLUSTER_TOKEN] = moment.token;
  return annotations;
}

/** The Secrets of spec.tls as read-only volumes: whole directories (a `subPath` mount never sees a renewed
 *  Secret), readable by the Pod's fsGroup only (docs/design/tls.md, "Member Pods"). */
function tlsMounts(cluster: EtcdCluster): { volumes: V1Volume[]; mounts: V1VolumeMount[] } {
  const sides = [
    { name: 'tls-client', secretName: cluster.spec.tls?.client?.secretName, dir: MEMBER_CLIENT_TLS_DIR },
    { name: 'tls-peer', secretName: cluster.spec.tls?.peer?.secretName, dir: MEMBER_PEER_TLS_DIR },
  ].filter(
    (side): side is { name: string; secretName: string; dir: string } => side.secretName !== undefined,
  );
  return {
    volumes: sides.map((side) => ({
      name: side.name,
      secret: { secretName: side.secretName, defaultMode: 0o440 },
    })),
    mounts: sides.map((side) => ({ name: side.name, mountPath: side.dir, readOnly: true })),
  };
}

/** The member Pod: Pod Security `restricted`, owned by the cluster, `podTemplate` merged in. */
export function buildMemberPod(cluster: EtcdCluster, moment: MemberMoment): V1Pod {
  const template = cluster.spec.podTemplate ?? {};
  const probes = memberProbes(cluster.spec.version);
  const ephemeral = cluster.spec.storage?.ephemeral === true;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: moment.member,
      namespace: namespaceOf(cluster),
      labels: { ...(template.labels ?? {}), ...memberLabels(cluster, moment.member) },
      annotations: podAnnotations(cluster, moment),
      ownerReferences: [clusterOwnerReference(cluster)],
    },
    spec: {
      hostname: moment.member,
      subdomain: peerServiceName(clusterName(cluster)),
      restartPolicy: 'Always',
      enableServiceLinks: false,
      automountServiceAccountToken: false,
      terminationGracePeriodSeconds: 30,
      securityContext: restrictedPodSecurityContext(),
      affinity: memberAffinity(
        clusterName(cluster),
        template.affinity,
        template.memberAntiAffinity,
      ) as V1Affinity,
      ...(template.tolerations ? { tolerations: template.tolerations as unknown as V1Toleration[] } : {}),
      ...(template.nodeSelector ? { nodeSelector: template.nodeSelector } : {}),
      ...(template.priorityClassName ? { priorityClassName: template.priorityClassName } : {}),
      ...(template.topologySpreadConstraints
        ? {
            topologySpreadConstraints:
              template.topologySpreadConstraints as unknown as V1TopologySpreadConstraint[],
          }
        : {}),
      containers: [
        {
          name: 'etcd',
          image: etcdImage(cluster),
          command: [ETCD_BINARY],
          args: etcdFlags(cluster, moment),
          env: memberEnv(),
          ports: [
            { name: CLIENT_PORT_NAME, containerPort: CLIENT_PORT, protocol: 'TCP' },
            { name: PEER_PORT_NAME, containerPort: PEER_PORT, protocol: 'TCP' },
            { name: METRICS_PORT_NAME, containerPort: MEMBER_METRICS_PORT, protocol: 'TCP' },
          ],
          volumeMounts: [{ name: 'data', mountPath: DATA_MOUNT_PATH }, ...tlsMounts(cluster).mounts],
          readinessProbe: probes.readiness,
          livenessProbe: probes.liveness,
          resources: memberResources(cluster),
          securityContext: restrictedContainerSecurityContext(),
          // etcd's last log lines become the termination message: why a rolled member failed to start.
          terminationMessagePolicy: 'FallbackToLogsOnError',
        },
      ],
      volumes: [
        ephemeral
          ? { name: 'data', emptyDir: {} }
          : { name: 'data', persistentVolumeClaim: { claimName: pvcName(moment.member) } },
        ...tlsMounts(cluster).volumes,
      ],
    },
  };
}

/** The member PVC `<member>-data`. Owned by the cluster only with `whenDeleted: Delete`, so that by default
 *  garbage collection keeps the data when the cluster object is deleted. A seed's PVC records the cluster token and,
 *  for a static bootstrap, the whole initial membership (docs/design/bootstrap.md). */
export function buildMemberPvc(
  cluster: EtcdCluster,
  member: string,
  token?: string,
  initialMembers?: readonly string[],
): V1PersistentVolumeClaim {
  const storage = cluster.spec.storage ?? {};
  const annotations: Record<string, string> = { [ANNOTATION_CLUSTER_UID]: cluster.metadata.uid as string };
  if (token !== undefined) annotations[ANNOTATION_CLUSTER_TOKEN] = token;
  if (initialMembers !== undefined && initialMembers.length > 1)
    annotations[ANNOTATION_INITIAL_MEMBERS] = initialMembers.join(',');
  const owned = cluster.spec.persistentVolumeClaimRetentionPolicy?.whenDeleted === 'Delete';
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: {
      name: pvcName(member),
      namespace: namespaceOf(cluster),
      labels: memberLabels(cluster, member),
      annotations,
      ...(owned ? { ownerReferences: [clusterOwnerReference(cluster)] } : {}),
    },
    spec: {
      accessModes: ['ReadWriteOnce'],
      resources: { requests: { storage: String(storage.size ?? DEFAULT_STORAGE_SIZE) } },
      ...(storage.storageClassName ? { storageClassName: storage.storageClassName } : {}),
    },
  };
}
