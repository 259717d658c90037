// The EtcdRestore v1alpha1 schema: the single source of truth for its CRD and its TypeScript types.
import { MAX_CLUSTER_NAME_LENGTH } from '../conventions/limits.js';
import { DNS_1035_LABEL_PATTERN } from '../conventions/name-patterns.js';
import { conditionsSchema, resourceSchema, s3LocationSchema } from './common-schemas.js';
import type { JsonSchema } from './json-schema.js';

/** Phases of an EtcdRestore, in order; `Failed` can follow any of the first three. */
export const RESTORE_PHASES = ['Pending', 'Verifying', 'Restoring', 'Completed', 'Failed'] as const;

export const restoreSpecSchema: JsonSchema = {
  type: 'object',
  description: 'Which cluster to restore from which backup.',
  required: ['clusterName'],
  properties: {
    clusterName: {
      type: 'string',
      description: 'Name of the EtcdCluster in the same namespace. Immutable.',
      minLength: 1,
      maxLength: MAX_CLUSTER_NAME_LENGTH,
      pattern: DNS_1035_LABEL_PATTERN,
    },
    backup: {
      ...s3LocationSchema,
      description: `${s3LocationSchema.description} Exactly one of backup and survivor.`,
    },
    survivor: {
      type: 'object',
      description:
        "Recover from a member that still runs with its data instead of a backup (after quorum loss): the controller copies that member's data (a snapshot it serves alone) into a new member, which the cluster then grows from. Every write that member had applied is kept, also writes newer than the last backup; writes it had not applied are lost. Exactly one of backup and survivor.",
      properties: {
        member: {
          type: 'string',
          description: 'The member to recover from, e.g. main-2 (its Pod name).',
          minLength: 1,
          maxLength: 63,
          pattern: DNS_1035_LABEL_PATTERN,
        },
        newest: {
          type: 'boolean',
          description:
            'Recover from the answering member that has applied the most (the highest raft index).',
        },
      },
      'x-kubernetes-validations': [
        {
          rule: 'has(self.member) != (has(self.newest) && self.newest)',
          message: 'survivor: set exactly one of member (a member name) and newest: true',
        },
      ],
    },
    allowHealthyCluster: {
      type: 'boolean',
      description: 'Restore even when the cluster is healthy (its current data is replaced).',
      default: false,
    },
  },
  'x-kubernetes-validations': [
    {
      rule: 'has(self.backup) != has(self.survivor)',
      message:
        'set exactly one of backup (restore a backup from S3) and survivor (recover from a member that still has its data)',
    },
    {
      rule: 'self.clusterName == oldSelf.clusterName',
      message: 'clusterName is immutable: create a new EtcdRestore to restore another cluster',
      fieldPath: '.clusterName',
    },
    {
      rule: 'has(self.backup) == has(oldSelf.backup) && (!has(self.backup) || self.backup == oldSelf.backup)',
      message: 'backup is immutable: create a new EtcdRestore to restore from another backup',
      fieldPath: '.backup',
    },
    {
      rule: 'has(self.survivor) == has(oldSelf.survivor) && (!has(self.survivor) || self.survivor == oldSelf.survivor)',
      message: 'survivor is immutable: create a new EtcdRestore to recover from another member',
      fieldPath: '.survivor',
    },
  ],
};

export const restoreStatusSchema: JsonSchema = {
  type: 'object',
  description:
    'Observed state, owned by the controller. Before its first write the API server shows observedGeneration 0, so no reader (kstatus, Argo CD, Flux) takes a new object for done.',
  // docs/design/conventions.md, "Conditions and health": without it kstatus calls an object without status Current.
  default: { observedGeneration: 0 },
  properties: {
    observedGeneration: {
      type: 'integer',
      format: 'int64',
      description: 'metadata.generation last acted on.',
    },
    phase: { type: 'string', enum: [...RESTORE_PHASES], description: 'Where the restore is.' },
    conditions: conditionsSchema,
    backupKey: { type: 'string', description: 'Object key of the backup being restored.' },
    revision: { type: 'integer', format: 'int64', description: 'etcd revision of the restored snapshot.' },
    sourceMember: {
      type: 'string',
      description: 'spec.survivor: the member recovered from (its data was copied, never changed).',
    },
    sourceMemberId: {
      type: 'string',
      description: 'spec.survivor: the etcd member id of sourceMember, decimal.',
    },
    startedAt: { type: 'string', format: 'date-time' },
    completedAt: { type: 'string', format: 'date-time' },
    message: { type: 'string', description: 'Human-readable detail of the phase.' },
  },
};

/** openAPIV3Schema of EtcdRestore v1alpha1. */
export const etcdRestoreSchema: JsonSchema = resourceSchema(
  'A restore of an EtcdCluster from a backup, without deleting the EtcdCluster object.',
  restoreSpecSchema,
  restoreStatusSchema,
);
