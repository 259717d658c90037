// The EtcdCluster v1alpha1 schema: the single source of truth for its CRD and its TypeScript types.

import { DURATION_PATTERN } from '../conventions/duration.js';
import {
  AUTO_COMPACTION_MODES,
  DEFAULT_AUTO_COMPACTION_MODE,
  DEFAULT_AUTO_COMPACTION_RETENTION,
  EXTRA_FLAG_NAME_PATTERN,
  OWNED_ETCD_FLAGS,
} from '../conventions/etcd-backend.js';
import { DEFAULT_NODE_NOT_READY, DEFAULT_POD_STUCK } from '../conventions/failure-detection.js';
import { defaultEtcdImage } from '../conventions/images.js';
import {
  DEFAULT_MEMBER_RESOURCES,
  DEFAULT_SIZE,
  DEFAULT_STORAGE_SIZE,
  MAX_CLUSTER_NAME_LENGTH,
  MAX_SIZE,
  MIN_SIZE,
} from '../conventions/limits.js';
import {
  DNS_1035_LABEL_PATTERN,
  DNS_1123_SUBDOMAIN_PATTERN,
  LABEL_VALUE_PATTERN,
  MAX_LABEL_VALUE_LENGTH,
} from '../conventions/name-patterns.js';
import { QUANTITY_PATTERN } from '../conventions/quantity.js';
import { DEFAULT_MEMBER_ANTI_AFFINITY, MEMBER_ANTI_AFFINITIES } from '../conventions/scheduling.js';
import {
  ETCD_VERSION_PATTERN,
  formatSemver,
  MIN_ETCD_VERSION,
  MIN_PATCH_STEPS,
  VERSION_ORIGIN,
  VERSION_STEP_ALLOWED,
} from '../conventions/version.js';
import { cel, celConcat } from './cel-text.js';
import {
  conditionsSchema,
  quantitySchema,
  resourceSchema,
  s3LocationSchema,
  stringMap,
} from './common-schemas.js';
import type { JsonSchema } from './json-schema.js';
import { MAX_MAP_KEYS, qualifiedKeysRule } from './label-rules.js';
import {
  limitsCoverRequestsRules,
  positiveQuantityRule,
  quotaBackendBytesRule,
  storageSizeRule,
} from './quantity-rules.js';

/** At most this many resource names in `resources.requests` or `.limits` (cpu, memory, ephemeral-storage,
 *  huge pages, extended resources): a bound the API server's CEL cost estimate needs. */
const MAX_RESOURCE_NAMES = 16;

const part = (v: string, i: number) => `int(${v}.split('.')[${i}])`;
const notLower = (a: string, b: string) =>
  `${part(a, 0)} > ${part(b, 0)} || (${part(a, 0)} == ${part(b, 0)} && (${part(a, 1)} > ${part(b, 1)} || ` +
  `(${part(a, 1)} == ${part(b, 1)} && ${part(a, 2)} >= ${part(b, 2)})))`;

const MIN = MIN_ETCD_VERSION;
const MIN_TEXT = formatSemver(MIN);
const V = ETCD_VERSION_PATTERN;

/*
 * The version path at admission (docs/design/rolling-update.md, "The version path"): rules at the object root,
 * because the version a step starts from is what the members run, `status.currentVersion` (the lowest server
 * version of all members), when the status knows it, else the previous `spec.version`. A spec that moved on before
 * the members did can thus go back to anything the members can still reach, and a step the members cannot take is
 * refused up front. The rules pass when `spec.version` is unchanged, which every status update is.
 */
const OLD_SPEC = 'oldSelf.spec.version';
const OLD_RUNNING = 'oldSelf.status.currentVersion';
const NEW = 'self.spec.version';
const runningKnown = `(has(oldSelf.status) && has(${OLD_RUNNING}) && ${OLD_RUNNING}.matches('${V}'))`;
/** The version a step starts from. */
const FROM = `(${runningKnown} ? ${OLD_RUNNING} : ${OLD_SPEC})`;
/** Where FROM comes from, in the controller's words (VERSION_ORIGIN). */
const origin = `(${runningKnown} ? ${celConcat(VERSION_ORIGIN.running(cel(OLD_RUNNING)))} : ${celConcat(VERSION_ORIGIN.spec(cel(OLD_SPEC)))})`;
/** The rule applies: spec.version changed and both it and FROM are X.Y.Z (the format rule refuses the rest). */
const applies = `${NEW} != ${OLD_SPEC} && ${NEW}.matches('${V}') && ${FROM}.matches('${V}')`;
/** A version path rule: `holds` (of NEW and FROM) when it applies. */
const stepRule = (holds: string) => `!(${applies}) || ${holds}`;
/** `spec.version: <new> is not allowed; allowed: <allowed>`, `allowed` in the controller's words from FROM. */
const versionMessage = (allowed: (from: string, origin: string) => string) =>
  celConcat(`spec.version: ${cel(NEW)} is not allowed; allowed: ${allowed(cel(FROM), cel(origin))}`);

/** One rule per entry of MIN_PATCH_BEFORE_NEXT_MINOR: not from X.Y.z below the minimum into X.(Y+1). */
const minPatchRules = MIN_PATCH_STEPS.map(({ minimum, next }) => ({
  rule: stepRule(
    `!(${part(FROM, 0)} == ${minimum.major} && ${part(FROM, 1)} == ${minimum.minor} && ${part(FROM, 2)} < ${minimum.patch} && ` +
      `${part(NEW, 0)} == ${minimum.major} && ${part(NEW, 1)} == ${minimum.minor + 1})`,
  ),
  message: `version can go to ${next} only from ${formatSemver(minimum)} or newer (etcd's minimum before ${next})`,
  messageExpression: versionMessage((_from, origin) =>
    VERSION_STEP_ALLOWED.minPatch(formatSemver(minimum), next, origin),
  ),
  fieldPath: '.spec.version',
}));

/** The transition rules of spec.version, at the object root (they read oldSelf.status). */
const versionPathRules: NonNullable<JsonSchema['x-kubernetes-validations']> = [
  {
    rule: stepRule(notLower(NEW, FROM)),
    message:
      'version cannot go below what the members run (or the previous version): etcd does not support downgrades; restore a backup into a new cluster instead',
    messageExpression: versionMessage(VERSION_STEP_ALLOWED.down),
    fieldPath: '.spec.version',
  },
  {
    // Up by more than one minor (or a major) at once; going down is the rule above.
    rule: stepRule(
      `${part(NEW, 0)} < ${part(FROM, 0)} || (${part(NEW, 0)} == ${part(FROM, 0)} && ${part(NEW, 1)} <= ${part(FROM, 1)} + 1)`,
    ),
    message: 'version can go up by at most one minor at a time (etcd upgrades one minor at a time)',
    messageExpression: versionMessage(VERSION_STEP_ALLOWED.minorSkip),
    fieldPath: '.spec.version',
  },
  ...minPatchRules,
];

const minPatchText = MIN_PATCH_STEPS.map(
  ({ minimum, next }) => `; ${formatSemver(minimum)} or newer before ${next}`,
);

const versionSchema: JsonSchema = {
  type: 'string',
  description:
    `etcd version as X.Y.Z (${MIN_TEXT} or newer). It can go up a patch or one minor at a time, never down` +
    `${minPatchText.join('')}. Each change is checked against status.currentVersion (what the members run) when ` +
    'set, else against the previous value.',
  maxLength: 32,
  'x-kubernetes-validations': [
    {
      rule: `self.matches('${V}')`,
      message: "version must be an etcd release written X.Y.Z, e.g. 3.6.16 (no 'v' prefix)",
      messageExpression: celConcat(
        `spec.version: '${cel('self')}' is not allowed; allowed: an etcd release written X.Y.Z, e.g. 3.6.16 (no 'v' prefix)`,
      ),
    },
    {
      rule: `!self.matches('${V}') || ${part('self', 0)} > ${MIN.major} || (${part('self', 0)} == ${MIN.major} && ${part('self', 1)} >= ${MIN.minor})`,
      message: `version must be ${MIN_TEXT} or newer: members join as learners, which etcd supports from ${MIN.major}.${MIN.minor}`,
      messageExpression: celConcat(
        `spec.version: '${cel('self')}' is not allowed; allowed: ${MIN_TEXT} or newer (members join as learners, which etcd supports from ${MIN.major}.${MIN.minor})`,
      ),
    },
  ],
};

export const storageSchema: JsonSchema = {
  type: 'object',
  description: 'Member data volumes: one PersistentVolumeClaim per member unless ephemeral.',
  default: {},
  properties: {
    size: {
      type: 'string',
      description: 'PVC request for each member, as a Kubernetes quantity.',
      default: DEFAULT_STORAGE_SIZE,
      maxLength: 64,
      pattern: QUANTITY_PATTERN,
    },
    storageClassName: {
      type: 'string',
      description: 'StorageClass of the member PVCs. Immutable.',
      maxLength: 253,
      pattern: DNS_1123_SUBDOMAIN_PATTERN,
    },
    ephemeral: {
      type: 'boolean',
      description: 'Explicit opt-in to emptyDir volumes: a member loses its data with its Pod. Immutable.',
      default: false,
    },
  },
  'x-kubernetes-validations': [
    storageSizeRule,
    {
      rule:
        'has(self.storageClassName) == has(oldSelf.storageClassName) && ' +
        '(!has(self.storageClassName) || self.storageClassName == oldSelf.storageClassName)',
      message: 'storage.storageClassName is immutable: existing member volumes cannot move to another class',
    },
    {
      rule: '(has(self.ephemeral) && self.ephemeral) == (has(oldSelf.ephemeral) && oldSelf.ephemeral)',
      message: 'storage.ephemeral is immutable: switching between PVCs and emptyDir would lose member data',
    },
  ],
};

export const tolerationSchema: JsonSchema = {
  type: 'object',
  description: 'A core/v1 Toleration: member Pods may run on nodes with a matching taint.',
  properties: {
    key: { type: 'string', description: 'Taint key; empty with operator Exists matches every taint.' },
    operator: { type: 'string', enum: ['Exists', 'Equal'], description: 'Exists, or Equal to value.' },
    value: { type: 'string', description: 'Taint value, with operator Equal.' },
    effect: {
      type: 'string',
      enum: ['NoSchedule', 'PreferNoSchedule', 'NoExecute'],
      description: 'Taint effect to match; empty matches every effect.',
    },
    tolerationSeconds: {
      type: 'integer',
      format: 'int64',
      description: 'With effect NoExecute: how long the Pod stays on a node after the taint appears.',
    },
  },
};

const passThrough = (description: string): JsonSchema => ({
  type: 'object',
  description: `${description} Passed unchanged to member Pods, where the API server validates it.`,
  'x-kubernetes-preserve-unknown-fields': true,
});

/** A map of labels (Pod labels, a node selector) at `field`: the API server refuses a member Pod with other keys or
 *  values. */
const labelMap = (field: string, description: string): JsonSchema => ({
  type: 'object',
  description,
  additionalProperties: { type: 'string', maxLength: MAX_LABEL_VALUE_LENGTH, pattern: LABEL_VALUE_PATTERN },
  maxProperties: MAX_MAP_KEYS,
  'x-kubernetes-validations': [qualifiedKeysRule(field)],
});

export const podTemplateSchema: JsonSchema = {
  type: 'object',
  description: 'Overrides merged into every member Pod.',
  properties: {
    labels: labelMap(
      'spec.podTemplate.labels',
      'Extra Pod labels (the app.kubernetes.io/* labels of the operator win).',
    ),
    annotations: {
      ...stringMap('Extra Pod annotations.'),
      maxProperties: MAX_MAP_KEYS,
      'x-kubernetes-validations': [qualifiedKeysRule('spec.podTemplate.annotations')],
    },
    affinity: passThrough(
      'core/v1 Affinity, to which the controller adds the member anti-affinity of memberAntiAffinity: both apply.',
    ),
    memberAntiAffinity: {
      type: 'string',
      enum: [...MEMBER_ANTI_AFFINITIES],
      default: DEFAULT_MEMBER_ANTI_AFFINITY,
      description:
        'How members avoid sharing a node (kubernetes.io/hostname). Preferred: on distinct nodes when possible ' +
        '(a preferred pod anti-affinity term). Required: never two on one node (a required term); a member ' +
        'that finds no free node stays Pending. Changing it rolls the members.',
    },
    tolerations: { type: 'array', description: 'core/v1 Tolerations.', items: tolerationSchema },
    nodeSelector: labelMap(
      'spec.podTemplate.nodeSelector',
      'core/v1 nodeSelector: node labels and their values.',
    ),
    priorityClassName: {
      type: 'string',
      description: 'PriorityClass of member Pods.',
      maxLength: 253,
      pattern: DNS_1123_SUBDOMAIN_PATTERN,
    },
    topologySpreadConstraints: {
      type: 'array',
      description: 'core/v1 TopologySpreadConstraints.',
      items: passThrough('core/v1 TopologySpreadConstraint.'),
    },
  },
};

/** A resource request or limit. */
const positiveQuantitySchema: JsonSchema = {
  ...quantitySchema,
  'x-kubernetes-validations': [positiveQuantityRule],
};

export const resourcesSchema: JsonSchema = {
  type: 'object',
  description: 'Compute resources of the etcd container in each member Pod.',
  default: DEFAULT_MEMBER_RESOURCES,
  properties: {
    requests: {
      type: 'object',
      description: 'What the scheduler reserves per resource (cpu, memory).',
      additionalProperties: positiveQuantitySchema,
      maxProperties: MAX_RESOURCE_NAMES,
    },
    limits: {
      type: 'object',
      description: 'The most the container may use per resource (memory above it is OOM-killed).',
      additionalProperties: positiveQuantitySchema,
      maxProperties: MAX_RESOURCE_NAMES,
    },
  },
  'x-kubernetes-validations': limitsCoverRequestsRules('spec.resources'),
};

const retentionValue = (when: string): JsonSchema => ({
  type: 'string',
  enum: ['Retain', 'Delete'],
  default: 'Retain',
  description: `Retain or Delete the member PVCs ${when}.`,
});

export const pvcRetentionSchema: JsonSchema = {
  type: 'object',
  description: 'What happens to member PVCs when the cluster is deleted or scaled in.',
  default: {},
  properties: {
    whenDeleted: retentionValue('when the EtcdCluster is deleted'),
    whenScaled: retentionValue('of members removed by a scale-in'),
  },
};

const boundSchema = (description: string, fallback: string): JsonSchema => ({
  type: 'string',
  description: `${description} A duration such as 30s, 2m or 1m30s. Default ${fallback}.`,
  pattern: DURATION_PATTERN,
  maxLength: 32,
  default: fallback,
});

export const failureDetectionSchema: JsonSchema = {
  type: 'object',
  description:
    'When a member that does not answer is replaced (a new member under a new name) because its Pod is lost. A member that answers is never replaced for these reasons.',
  default: {},
  properties: {
    nodeNotReady: boundSchema(
      "How long the member Pod's Node may be not Ready (NotReady or unreachable) before the member is replaced.",
      DEFAULT_NODE_NOT_READY,
    ),
    podStuck: boundSchema(
      'How long a member Pod may stay Terminating past its grace period, or unscheduled, before the member is replaced.',
      DEFAULT_POD_STUCK,
    ),
  },
};

export const bootstrapSchema: JsonSchema = {
  type: 'object',
  description: 'Seed a new cluster from a backup. Immutable.',
  properties: { backup: s3LocationSchema },
  required: ['backup'],
};

export const autoCompactionSchema: JsonSchema = {
  type: 'object',
  description:
    'etcd auto-compaction (--auto-compaction-mode, --auto-compaction-retention): how much history members keep.',
  default: {},
  properties: {
    mode: {
      type: 'string',
      enum: [...AUTO_COMPACTION_MODES],
      default: DEFAULT_AUTO_COMPACTION_MODE,
      description: 'periodic: keep history for a duration; revision: keep a number of revisions.',
    },
    retention: {
      type: 'string',
      maxLength: 32,
      default: DEFAULT_AUTO_COMPACTION_RETENTION,
      description:
        'periodic: a duration such as 30m, 1h or 1d (at least 1s); revision: a whole number such as 10000.',
    },
  },
  'x-kubernetes-validations': [
    {
      rule: `!has(self.retention) || !has(self.mode) || self.mode != 'revision' || self.retention.matches('^[1-9][0-9]*$')`,
      message:
        'autoCompaction.retention must be a whole number of revisions (such as 10000) in revision mode',
      messageExpression:
        "'autoCompaction.retention: ' + self.retention + ' is not allowed in revision mode; allowed: a whole number of revisions such as 10000'",
      fieldPath: '.retention',
    },
    {
      rule: `!has(self.retention) || (has(self.mode) && self.mode == 'revision') || self.retention.matches('${DURATION_PATTERN}')`,
      message: 'autoCompaction.retention must be a duration such as 30m, 1h or 1d in periodic mode',
      messageExpression:
        "'autoCompaction.retention: ' + self.retention + ' is not allowed in periodic mode; allowed: a duration such as 30m, 1h or 1d'",
      fieldPath: '.retention',
    },
  ],
};

const ownedFlags = `{${Object.entries(OWNED_ETCD_FLAGS)
  .map(([flag, owner]) => `'${flag}': '${owner}'`)
  .join(', ')}}`;

export const extraFlagsSchema: JsonSchema = {
  type: 'object',
  description:
    'Other etcd flags for every member: the flag name without its leading -- and its value, e.g. {"snapshot-count": "50000"}. Flags the product sets are refused.',
  maxProperties: 64,
  additionalProperties: { type: 'string', maxLength: 1024 },
  'x-kubernetes-validations': [
    {
      rule: `self.all(k, k.matches('${EXTRA_FLAG_NAME_PATTERN}'))`,
      message: "extraFlags keys are etcd flag names without the leading --, such as 'snapshot-count'",
      messageExpression: `'extraFlags: ' + self.filter(k, !k.matches('${EXTRA_FLAG_NAME_PATTERN}'))[0] + ' is not an etcd flag name; allowed: the flag without its leading --, such as snapshot-count'`,
    },
    {
      rule: `self.all(k, !(k in ${ownedFlags}))`,
      message:
        'extraFlags cannot set a flag the product sets (identity, addresses, membership, compaction, quota, TLS)',
      messageExpression: `'extraFlags: ' + self.filter(k, k in ${ownedFlags})[0] + ' is set by ' + ${ownedFlags}[self.filter(k, k in ${ownedFlags})[0]] + ' and cannot be passed as an extra flag'`,
    },
  ],
};

const secretNameSchema = (description: string): JsonSchema => ({
  type: 'string',
  description,
  minLength: 1,
  maxLength: 253,
  pattern: DNS_1123_SUBDOMAIN_PATTERN,
});

/** `spec.tls` (docs/design/tls.md). Each side is fixed at creation: adding or removing one is refused. */
export const tlsSchema: JsonSchema = {
  type: 'object',
  description:
    'TLS for client and peer traffic (docs/design/tls.md). Each side is fixed when the cluster is created; secret names may change (a roll). Without it members serve plain http.',
  properties: {
    client: {
      type: 'object',
      description:
        'https with client-certificate authentication on the client port (2379); the members and everything the product runs against them use these Secrets.',
      required: ['secretName', 'clientSecretName'],
      properties: {
        secretName: secretNameSchema(
          "Secret (kubernetes.io/tls) with the members' serving certificate: tls.crt, tls.key, and ca.crt, the CA client certificates must chain to. Its DNS names must cover <member>.<cluster>-peer.<namespace>.svc for every member (e.g. *.<cluster>-peer.<namespace>.svc) and <cluster>-client.<namespace>.svc.",
        ),
        clientSecretName: secretNameSchema(
          'Secret with the client certificate the controller, backups, defrag and restore present: tls.crt, tls.key, and ca.crt, the CA of the serving certificate.',
        ),
      },
    },
    peer: {
      type: 'object',
      description: 'https with client-certificate authentication between members (2380).',
      required: ['secretName'],
      properties: {
        secretName: secretNameSchema(
          'Secret (kubernetes.io/tls) with the peer certificate (server and client auth): tls.crt, tls.key, and ca.crt, the CA of peer certificates. Its DNS names must cover <member>.<cluster>-peer.<namespace>.svc for every member and <cluster>-peer.<namespace>.svc.',
        ),
      },
    },
  },
};

export const clusterSpecSchema: JsonSchema = {
  type: 'object',
  description: 'Desired state, owned by Git.',
  required: ['version'],
  properties: {
    size: {
      type: 'integer',
      description: `Number of voting members (${MIN_SIZE}-${MAX_SIZE}). Odd unless allowEvenSize.`,
      default: DEFAULT_SIZE,
      minimum: MIN_SIZE,
      maximum: MAX_SIZE,
    },
    allowEvenSize: {
      type: 'boolean',
      description: 'Allow an even size, which tolerates no more member failures than the odd size below it.',
      default: false,
    },
    version: versionSchema,
    image: {
      type: 'string',
      description: `etcd image. Default ${defaultEtcdImage('<version>')}.`,
      maxLength: 512,
    },
    storage: storageSchema,
    resources: resourcesSchema,
    podTemplate: podTemplateSchema,
    bootstrap: bootstrapSchema,
    persistentVolumeClaimRetentionPolicy: pvcRetentionSchema,
    failureDetection: failureDetectionSchema,
    autoCompaction: autoCompactionSchema,
    quotaBackendBytes: {
      ...quantitySchema,
      description:
        "etcd backend quota (--quota-backend-bytes). Default: half of the member volume after a WAL reserve of min(256Mi, volume/4), at most 8Gi; etcd's 2Gi with ephemeral storage.",
    },
    extraFlags: extraFlagsSchema,
    tls: tlsSchema,
    paused: {
      type: 'boolean',
      description: 'When true the controller changes nothing and only reports status.',
      default: false,
    },
  },
  'x-kubernetes-validations': [
    quotaBackendBytesRule,
    {
      rule: 'self.size % 2 == 1 || (has(self.allowEvenSize) && self.allowEvenSize)',
      message:
        'size must be odd (1, 3, 5, 7 or 9) so the cluster keeps quorum through a member failure; set allowEvenSize: true to allow an even size',
      fieldPath: '.size',
    },
    {
      rule: 'has(self.bootstrap) == has(oldSelf.bootstrap) && (!has(self.bootstrap) || self.bootstrap == oldSelf.bootstrap)',
      message:
        'bootstrap is immutable: it only seeds a new cluster; to restore an existing cluster create an EtcdRestore',
      fieldPath: '.bootstrap',
    },
    {
      rule: '(has(self.tls) && has(self.tls.client)) == (has(oldSelf.tls) && has(oldSelf.tls.client))',
      message:
        'spec.tls.client cannot be added to or removed from a running cluster (its clients and the controller would lose it mid-roll); allowed: a new EtcdCluster with the wanted spec.tls and spec.bootstrap.backup from a backup of this one',
      fieldPath: '.tls',
    },
    {
      rule: '(has(self.tls) && has(self.tls.peer)) == (has(oldSelf.tls) && has(oldSelf.tls.peer))',
      message:
        "spec.tls.peer cannot be added to or removed from a running cluster (peer URLs are part of etcd's membership); allowed: a new EtcdCluster with the wanted spec.tls and spec.bootstrap.backup from a backup of this one",
      fieldPath: '.tls',
    },
  ],
};

export const memberSchema: JsonSchema = {
  type: 'object',
  required: ['name'],
  properties: {
    name: { type: 'string', description: 'Member name, also its Pod name.' },
    id: { type: 'string', description: 'etcd member id in hex.' },
    peerURL: { type: 'string' },
    clientURL: { type: 'string' },
    learner: { type: 'boolean' },
    ready: { type: 'boolean' },
    version: { type: 'string', description: 'etcd server version the member reports.' },
    podRevision: {
      type: 'string',
      description:
        'Pod revision its Pod was built from (annotation etcd.gitops.dev/pod-revision); absent without a Pod or on a Pod made before rolling updates.',
    },
    caughtUp: {
      type: 'boolean',
      description: 'It answered a linearizable read: it has applied everything the cluster had committed.',
    },
    dbSize: {
      type: 'integer',
      format: 'int64',
      description: 'Size of the member backend file in bytes (what the quota counts).',
    },
    dbSizeInUse: {
      type: 'integer',
      format: 'int64',
      description: 'Bytes of the backend in use; dbSize minus this is what defragmentation gives back.',
    },
  },
};

const time = (description: string): JsonSchema => ({ type: 'string', format: 'date-time', description });

/** One backup schedule as the controller last saw it run (docs/design/backup-status.md). */
export const backupScheduleStatusSchema: JsonSchema = {
  type: 'object',
  required: ['schedule'],
  properties: {
    schedule: { type: 'string', description: 'The backup CronJob, <cluster>-backup[-<name>].' },
    cron: { type: 'string', description: "The CronJob's schedule." },
    lastAttempt: {
      type: 'object',
      description: 'The newest backup Pod seen ended.',
      properties: {
        time: time('When its container ended.'),
        job: { type: 'string' },
        outcome: { type: 'string', enum: ['Succeeded', 'Failed'] },
      },
    },
    lastSuccess: {
      type: 'object',
      description: 'The newest backup Pod seen succeed, with what its report told.',
      properties: {
        time: time('When its container ended.'),
        job: { type: 'string' },
        key: { type: 'string', description: 'Object key of the backup it stored.' },
        revision: { type: 'string', description: 'etcd revision the backup holds every write up to.' },
        sizeBytes: { type: 'integer', format: 'int64', description: 'Size of the stored object.' },
        durationSeconds: { type: 'integer', description: 'How long the save took.' },
      },
    },
    lastFailure: {
      type: 'object',
      description: 'The newest backup Pod seen fail.',
      properties: {
        time: time('When its container ended.'),
        job: { type: 'string' },
        code: {
          type: 'string',
          description: 'The exit code name (S3_ERROR, ETCD_UNAVAILABLE, ...) or KILLED.',
        },
        reason: { type: 'string' },
      },
    },
    lastDrill: {
      type: 'object',
      description:
        "The newest restore drill of this schedule's newest backup seen ended (docs/design/restore-drill.md): on success what the restored etcd served, on failure why.",
      properties: {
        time: time('When the drill ended.'),
        job: { type: 'string' },
        outcome: { type: 'string', enum: ['Succeeded', 'Failed'] },
        key: { type: 'string', description: 'Object key of the drilled backup.' },
        revision: { type: 'string', description: 'The revision the backup recorded.' },
        servedRevision: {
          type: 'string',
          description: 'The revision the restored etcd served: at least revision plus the restore bump.',
        },
        keys: { type: 'integer', format: 'int64', description: 'Keys the restored etcd counted.' },
        code: {
          type: 'string',
          description:
            'On failure: the exit code name (CHECKSUM_MISMATCH, S3_ERROR, ETCD_UNAVAILABLE, ...) or KILLED.',
        },
        reason: { type: 'string' },
      },
    },
  },
};

/** What the seed of an in-place restore starts from: exactly one kind of source. */
export const restoreSourceSchema: JsonSchema = {
  type: 'object',
  description:
    "What the seed of the restored cluster starts from, exactly one kind. backup: the EtcdRestore's spec.backup with the exact key it verified (never latestUnderPrefix), read by the seed's restore fetch init container. member: a surviving member whose snapshot the seed's restore from-member init container copies.",
  minProperties: 1,
  maxProperties: 1,
  properties: {
    backup: s3LocationSchema,
    member: {
      type: 'object',
      description:
        "A surviving member (EtcdRestore spec.survivor): the seed's restore from-member init container copies the snapshot this member serves, after checking it answers with this id.",
      required: ['name', 'id'],
      properties: {
        name: { type: 'string', description: 'Member name (its Pod).' },
        id: { type: 'string', description: 'etcd member id, decimal.' },
      },
    },
  },
};

export const restoreLockSchema: JsonSchema = {
  type: 'object',
  description:
    'Set while an EtcdRestore holds this cluster (docs/design/restore.md, "The lock"); the lock is its name. The EtcdRestore reconciler takes it with the token and source; the EtcdCluster reconciler performs the Pod and PVC steps by phase.',
  required: ['name', 'uid', 'phase'],
  properties: {
    name: { type: 'string', description: 'Name of the EtcdRestore holding the lock.' },
    uid: { type: 'string', description: 'uid of that EtcdRestore.' },
    token: { type: 'string', description: 'Fresh --initial-cluster-token of the restored cluster.' },
    source: restoreSourceSchema,
    phase: {
      type: 'string',
      description:
        'Restoring: old members are stopped and the seed is made from source. Growing: the seed serves and the cluster grows as usual. Completed: the restore is done; retained PVCs follow whenScaled, then the lock is cleared. Abandoned: the EtcdRestore was deleted before it completed; its retained PVCs are marked, then the lock is cleared.',
      enum: ['Restoring', 'Growing', 'Completed', 'Abandoned'],
    },
  },
};

export const clusterStatusSchema: JsonSchema = {
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
    conditions: conditionsSchema,
    members: {
      type: 'array',
      items: memberSchema,
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['name'],
    },
    replicas: { type: 'integer', description: 'Members in etcd (scale subresource statusReplicasPath).' },
    readyMembers: { type: 'integer', description: 'Members that are started and healthy.' },
    selector: { type: 'string', description: 'Label selector of member Pods (scale subresource).' },
    currentVersion: {
      type: 'string',
      description:
        'Lowest etcd version among members, computed only when every member answers (it reaches a new version when the last member runs it); changes of spec.version are checked against it.',
      // Bounded so that the version path rules' cost estimate stays small (spec.version has the same bound).
      maxLength: 32,
    },
    updateRevision: {
      type: 'string',
      description:
        'Pod revision of the current spec: member Pods at another revision are rolled, one at a time (docs/design/rolling-update.md).',
    },
    updatedMembers: {
      type: 'integer',
      description: 'Members whose Pod is at updateRevision, Ready, healthy and caught up.',
    },
    clusterID: { type: 'string', description: 'etcd cluster id in hex.' },
    revisionFloor: {
      type: 'string',
      description:
        'The highest etcd revision the controller has seen the cluster give out (decimal; raised only, in steps of at least a million): a restore starts at least 10^9 above it, so no watcher is given a revision twice (docs/design/restore.md, "The revision floor").',
      pattern: '^(0|[1-9][0-9]*)$',
      maxLength: 20,
    },
    phase: { type: 'string', description: 'One word for printer columns, e.g. Creating, Running, Scaling.' },
    restore: restoreLockSchema,
    backups: {
      type: 'array',
      description:
        'Each backup CronJob of the cluster and its newest attempt, success and failure; BackupReady judges them.',
      items: backupScheduleStatusSchema,
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['schedule'],
    },
    lastBackupTime: time(
      'When a backup of this cluster last succeeded, by any schedule (the printer column Last Backup).',
    ),
  },
};

/** openAPIV3Schema of EtcdCluster v1alpha1. */
export const etcdClusterSchema: JsonSchema = resourceSchema(
  'An etcd cluster whose members the etcd-gitops controller manages.',
  clusterSpecSchema,
  clusterStatusSchema,
  [
    {
      rule: `self.metadata.name.size() <= ${MAX_CLUSTER_NAME_LENGTH}`,
      message: `EtcdCluster names are at most ${MAX_CLUSTER_NAME_LENGTH} characters so that member, Service and CronJob names derived from them stay valid`,
      messageExpression: celConcat(
        `metadata.name: '${cel('self.metadata.name')}' is not allowed; allowed: at most ${MAX_CLUSTER_NAME_LENGTH} characters, so that member, Service and CronJob names derived from it stay valid`,
      ),
    },
    {
      rule: `self.metadata.name.matches('${DNS_1035_LABEL_PATTERN}')`,
      message:
        'EtcdCluster names must start with a lowercase letter and contain only lowercase letters, digits and hyphens (a DNS-1035 label), because Service names derive from them',
      messageExpression: celConcat(
        `metadata.name: '${cel('self.metadata.name')}' is not allowed; allowed: a lowercase letter, then lowercase letters, digits and hyphens, ending with a letter or digit (a DNS-1035 label), because Service names derive from it`,
      ),
    },
    ...versionPathRules,
  ],
);
