// CustomResourceDefinition manifests, generated from the schemas in this folder.

import {
  API_GROUP,
  API_VERSION,
  crdName,
  ETCD_CLUSTER_KIND,
  ETCD_CLUSTER_PLURAL,
  ETCD_RESTORE_KIND,
  ETCD_RESTORE_PLURAL,
} from '../conventions/api.js';
import { etcdClusterSchema } from './etcd-cluster-schema.js';
import { etcdRestoreSchema } from './etcd-restore-schema.js';
import type { JsonSchema } from './json-schema.js';

/** The category `kubectl get etcd-gitops` lists. */
export const CATEGORY = 'etcd-gitops';

interface PrinterColumn {
  name: string;
  type: 'integer' | 'string' | 'date' | 'boolean' | 'number';
  jsonPath: string;
  description?: string;
  priority?: number;
}

interface CrdInput {
  kind: string;
  plural: string;
  shortNames: string[];
  schema: JsonSchema;
  columns: PrinterColumn[];
  scale?: { specReplicasPath: string; statusReplicasPath: string; labelSelectorPath: string };
}

/** A CustomResourceDefinition (apiextensions.k8s.io/v1) as plain JSON, minus metadata annotations. */
export interface CrdManifest {
  apiVersion: 'apiextensions.k8s.io/v1';
  kind: 'CustomResourceDefinition';
  metadata: { name: string };
  spec: Record<string, unknown>;
}

function crd(input: CrdInput): CrdManifest {
  const subresources: Record<string, unknown> = { status: {} };
  if (input.scale) subresources.scale = input.scale;
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: crdName(input.plural) },
    spec: {
      group: API_GROUP,
      names: {
        kind: input.kind,
        listKind: `${input.kind}List`,
        plural: input.plural,
        singular: input.kind.toLowerCase(),
        shortNames: input.shortNames,
        categories: [CATEGORY],
      },
      scope: 'Namespaced',
      versions: [
        {
          name: API_VERSION,
          served: true,
          storage: true,
          schema: { openAPIV3Schema: input.schema },
          subresources,
          additionalPrinterColumns: input.columns,
        },
      ],
    },
  };
}

const age: PrinterColumn = { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' };

/** The EtcdCluster CRD, with status and scale subresources (`kubectl scale etcd/<name> --replicas=5`). */
export function etcdClusterCrd(): CrdManifest {
  return crd({
    kind: ETCD_CLUSTER_KIND,
    plural: ETCD_CLUSTER_PLURAL,
    shortNames: ['etcd', 'etcdc'],
    schema: etcdClusterSchema,
    scale: {
      specReplicasPath: '.spec.size',
      statusReplicasPath: '.status.replicas',
      labelSelectorPath: '.status.selector',
    },
    columns: [
      { name: 'Size', type: 'integer', jsonPath: '.spec.size', description: 'Desired members' },
      { name: 'Ready', type: 'integer', jsonPath: '.status.readyMembers', description: 'Healthy members' },
      {
        name: 'Version',
        type: 'string',
        jsonPath: '.status.currentVersion',
        description: 'Running etcd version',
      },
      { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
      {
        name: 'Available',
        type: 'string',
        jsonPath: '.status.conditions[?(@.type=="Available")].status',
        priority: 1,
      },
      { name: 'Paused', type: 'boolean', jsonPath: '.spec.paused', priority: 1 },
      {
        name: 'Last Backup',
        type: 'date',
        jsonPath: '.status.lastBackupTime',
        description: 'When a backup last succeeded',
      },
      age,
    ],
  });
}

/** The EtcdRestore CRD, with a status subresource. */
export function etcdRestoreCrd(): CrdManifest {
  return crd({
    kind: ETCD_RESTORE_KIND,
    plural: ETCD_RESTORE_PLURAL,
    shortNames: ['etcdrestore', 'etcdr'],
    schema: etcdRestoreSchema,
    columns: [
      { name: 'Cluster', type: 'string', jsonPath: '.spec.clusterName' },
      { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
      { name: 'Backup', type: 'string', jsonPath: '.status.backupKey', priority: 1 },
      { name: 'Revision', type: 'integer', jsonPath: '.status.revision', priority: 1 },
      age,
    ],
  });
}
