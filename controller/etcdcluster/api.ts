// The parts of the EtcdCluster resource this reconciler reads and writes (docs/design/conventions.md).
// Local, minimal interfaces until the generated types under constructs/api/ land; then import those type-only.

export interface EtcdClusterSpec {
  size?: number;
  allowEvenSize?: boolean;
  version: string;
  image?: string;
  storage?: { size?: string | number; storageClassName?: string; ephemeral?: boolean };
  resources?: {
    requests?: Record<string, string | number>;
    limits?: Record<string, string | number>;
  };
  podTemplate?: {
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    affinity?: Record<string, unknown>;
    tolerations?: Record<string, unknown>[];
    nodeSelector?: Record<string, string>;
    priorityClassName?: string;
    topologySpreadConstraints?: Record<string, unknown>[];
  };
  bootstrap?: { backup?: Record<string, unknown> };
  persistentVolumeClaimRetentionPolicy?: {
    whenDeleted?: 'Retain' | 'Delete';
    whenScaled?: 'Retain' | 'Delete';
  };
  paused?: boolean;
}

export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
  lastTransitionTime: string;
  observedGeneration?: number;
}

export interface MemberStatus {
  name: string;
  id?: string;
  peerURL?: string;
  clientURL?: string;
  learner?: boolean;
  ready?: boolean;
  version?: string;
}

export interface EtcdClusterStatus {
  observedGeneration?: number;
  conditions?: Condition[];
  members?: MemberStatus[];
  replicas?: number;
  readyMembers?: number;
  selector?: string;
  currentVersion?: string;
  clusterID?: string;
  phase?: string;
}

export interface EtcdCluster {
  apiVersion?: string;
  kind?: string;
  metadata: {
    name?: string;
    namespace?: string;
    uid?: string;
    generation?: number;
    deletionTimestamp?: Date | string;
    resourceVersion?: string;
  };
  spec: EtcdClusterSpec;
  status?: EtcdClusterStatus;
}
