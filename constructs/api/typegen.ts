// Renders TypeScript interfaces from the schemas, so constructs and controller share one source of truth.
// The output is committed as constructs/imports/etcd.gitops.dev.ts; a unit test fails when it is stale.

import { API_GROUP_VERSION, ETCD_CLUSTER_KIND, ETCD_RESTORE_KIND } from '../conventions/api.js';
import { conditionSchema, s3LocationSchema } from './common-schemas.js';
import {
  backupScheduleStatusSchema,
  bootstrapSchema,
  clusterSpecSchema,
  clusterStatusSchema,
  memberSchema,
  podTemplateSchema,
  pvcRetentionSchema,
  resourcesSchema,
  restoreLockSchema,
  restoreSourceSchema,
  storageSchema,
  tolerationSchema,
} from './etcd-cluster-schema.js';
import { restoreSpecSchema, restoreStatusSchema } from './etcd-restore-schema.js';
import type { JsonSchema } from './json-schema.js';

/** Every schema that becomes a named interface, in output order. */
export const NAMED_SCHEMAS: ReadonlyArray<readonly [string, JsonSchema]> = [
  ['EtcdClusterSpec', clusterSpecSchema],
  ['EtcdClusterStorage', storageSchema],
  ['EtcdClusterResources', resourcesSchema],
  ['EtcdClusterPodTemplate', podTemplateSchema],
  ['Toleration', tolerationSchema],
  ['EtcdClusterBootstrap', bootstrapSchema],
  ['PersistentVolumeClaimRetentionPolicy', pvcRetentionSchema],
  ['EtcdClusterStatus', clusterStatusSchema],
  ['EtcdMemberStatus', memberSchema],
  ['EtcdBackupScheduleStatus', backupScheduleStatusSchema],
  ['EtcdClusterRestoreLock', restoreLockSchema],
  ['EtcdClusterRestoreSource', restoreSourceSchema],
  ['EtcdRestoreSpec', restoreSpecSchema],
  ['EtcdRestoreStatus', restoreStatusSchema],
  ['S3Location', s3LocationSchema],
  ['Condition', conditionSchema],
];

const names = new Map<JsonSchema, string>(NAMED_SCHEMAS.map(([name, schema]) => [schema, name]));

function literal(value: string | number): string {
  return typeof value === 'string' ? `'${value}'` : String(value);
}

function typeOf(schema: JsonSchema, indent: string): string {
  const named = names.get(schema);
  if (named) return named;
  if (schema['x-kubernetes-int-or-string']) return 'number | string';
  if (schema.enum) return schema.enum.map(literal).join(' | ');
  switch (schema.type) {
    case 'string':
      return 'string';
    case 'integer':
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'array':
      return `Array<${typeOf(schema.items ?? {}, indent)}>`;
    default:
      if (schema.properties) return `{\n${members(schema, `${indent}  `)}${indent}}`;
      if (schema.additionalProperties)
        return `Record<string, ${typeOf(schema.additionalProperties, indent)}>`;
      return 'Record<string, unknown>';
  }
}

function doc(schema: JsonSchema, indent: string): string {
  const lines: string[] = [];
  if (schema.description) lines.push(schema.description);
  if (schema.default !== undefined) lines.push(`@default ${JSON.stringify(schema.default)}`);
  if (lines.length === 0) return '';
  if (lines.length === 1) return `${indent}/** ${lines[0]} */\n`;
  return `${indent}/**\n${lines.map((line) => `${indent} * ${line}\n`).join('')}${indent} */\n`;
}

function members(schema: JsonSchema, indent: string): string {
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties ?? {})
    .map(([key, prop]) => {
      const optional = required.has(key) ? '' : '?';
      return `${doc(prop, indent)}${indent}${key}${optional}: ${typeOf(prop, indent)};\n`;
    })
    .join('');
}

function declaration(name: string, schema: JsonSchema): string {
  return `${doc(schema, '')}export interface ${name} {\n${members(schema, '  ')}}\n`;
}

const manifests = `/** The metadata fields our code reads; the API server may return more. */
export interface ObjectMeta {
  name?: string;
  namespace?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  generation?: number;
  uid?: string;
  resourceVersion?: string;
  [key: string]: unknown;
}

/** A whole EtcdCluster object. */
export interface EtcdClusterManifest {
  apiVersion: '${API_GROUP_VERSION}';
  kind: '${ETCD_CLUSTER_KIND}';
  metadata: ObjectMeta;
  spec: EtcdClusterSpec;
  status?: EtcdClusterStatus;
}

/** A whole EtcdRestore object. */
export interface EtcdRestoreManifest {
  apiVersion: '${API_GROUP_VERSION}';
  kind: '${ETCD_RESTORE_KIND}';
  metadata: ObjectMeta;
  spec: EtcdRestoreSpec;
  status?: EtcdRestoreStatus;
}
`;

/** The TypeScript source of constructs/imports/etcd.gitops.dev.ts. */
export function renderApiTypes(): string {
  const header =
    '// Generated from constructs/api/*-schema.ts by `npm run gen:api`. Do not edit by hand.\n' +
    '// A unit test (test/unit/constructs/api-types.test.ts) fails when this file is stale.\n\n';
  return header + [...NAMED_SCHEMAS.map(([name, schema]) => declaration(name, schema)), manifests].join('\n');
}
