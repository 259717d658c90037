// Schema pieces shared by both kinds: quantities, S3 locations, metav1.Condition.
import { DNS_1123_SUBDOMAIN_PATTERN } from '../conventions/name-patterns.js';
import { QUANTITY_PATTERN } from '../conventions/quantity.js';
import { DEFAULT_S3_REGION } from '../conventions/s3.js';
import { DEFAULT_WEB_IDENTITY_AUDIENCE, ROLE_ARN_PATTERN } from '../conventions/s3-credentials.js';
import { cel, celConcat } from './cel-text.js';
import type { JsonSchema } from './json-schema.js';

/** A quantity written as an integer or a string such as `500m` or `1Gi` (like `resources.requests.cpu`). */
export const quantitySchema: JsonSchema = {
  anyOf: [{ type: 'integer' }, { type: 'string' }],
  pattern: QUANTITY_PATTERN,
  maxLength: 64,
  'x-kubernetes-int-or-string': true,
};

const stringMap = (description: string): JsonSchema => ({
  type: 'object',
  description,
  additionalProperties: { type: 'string' },
});

export { stringMap };

const CREDENTIALS_ALLOWED =
  'credentialsSecretName (a Secret with static keys) or webIdentity (a role assumed with the <cluster>-backup ServiceAccount token)';

/** `webIdentity`: S3 credentials from a role assumed with the cluster's `<cluster>-backup` ServiceAccount token. */
function webIdentitySchema(): JsonSchema {
  return {
    type: 'object',
    description:
      "S3 credentials from a role assumed with a projected token of the cluster's <cluster>-backup ServiceAccount (AssumeRoleWithWebIdentity, as IRSA), instead of a Secret.",
    required: ['roleArn'],
    properties: {
      roleArn: {
        type: 'string',
        description: 'The role to assume, e.g. arn:aws:iam::123456789012:role/etcd-backup.',
        minLength: 5,
        maxLength: 2048,
        pattern: ROLE_ARN_PATTERN,
      },
      audience: {
        type: 'string',
        description: "The token's audience, which the role's identity provider expects.",
        default: DEFAULT_WEB_IDENTITY_AUDIENCE,
        minLength: 1,
        maxLength: 253,
      },
      stsEndpoint: {
        type: 'string',
        description: 'STS endpoint URL for an S3-compatible store (MinIO: its own URL).',
        maxLength: 2048,
        pattern: '^https?://',
      },
    },
  };
}

/** `S3Location`: where a backup lives in S3-compatible object storage. */
export const s3LocationSchema: JsonSchema = {
  type: 'object',
  description:
    'A backup in S3-compatible object storage: a bucket and either an exact key or the newest object under a prefix.',
  required: ['bucket'],
  properties: {
    bucket: {
      type: 'string',
      description: 'Bucket name (3-63 characters: lowercase letters, digits, dots and hyphens).',
      minLength: 3,
      maxLength: 63,
      pattern: '^[a-z0-9][a-z0-9.-]*[a-z0-9]$',
    },
    key: { type: 'string', description: 'Exact object key of the backup.', minLength: 1, maxLength: 1024 },
    latestUnderPrefix: {
      type: 'string',
      description: 'Use the newest backup whose key starts with this prefix.',
      maxLength: 1024,
    },
    endpoint: {
      type: 'string',
      description: 'S3 endpoint URL, e.g. http://minio.storage.svc:9000.',
      maxLength: 2048,
      pattern: '^https?://',
    },
    region: { type: 'string', description: 'S3 region.', default: DEFAULT_S3_REGION, maxLength: 64 },
    forcePathStyle: {
      type: 'boolean',
      description:
        'Address the bucket as a path (http://host/bucket/key), as MinIO and most S3-compatible stores need.',
      default: false,
    },
    credentialsSecretName: {
      type: 'string',
      description:
        'Secret in the same namespace with AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and optionally AWS_SESSION_TOKEN).',
      minLength: 1,
      maxLength: 253,
      pattern: DNS_1123_SUBDOMAIN_PATTERN,
    },
    webIdentity: webIdentitySchema(),
  },
  'x-kubernetes-validations': [
    {
      rule: 'has(self.key) != has(self.latestUnderPrefix)',
      message: 'set exactly one of key (one backup) or latestUnderPrefix (the newest backup under a prefix)',
    },
    {
      rule: 'has(self.credentialsSecretName) != has(self.webIdentity)',
      message: `set exactly one of ${CREDENTIALS_ALLOWED}`,
      messageExpression: celConcat(
        `credentialsSecretName and webIdentity: ${cel("(has(self.credentialsSecretName) ? 'both' : 'neither')")} given; allowed: exactly one of ${CREDENTIALS_ALLOWED}`,
      ),
    },
  ],
};

/** `metav1.Condition`, as kubebuilder renders it. */
export const conditionSchema: JsonSchema = {
  type: 'object',
  description: 'A metav1.Condition.',
  required: ['type', 'status', 'lastTransitionTime', 'reason', 'message'],
  properties: {
    type: {
      type: 'string',
      description:
        'Condition type: Ready, Available, Progressing, Degraded (plus Reconciling and Stalled for kstatus).',
      maxLength: 316,
      pattern:
        '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$',
    },
    status: { type: 'string', enum: ['True', 'False', 'Unknown'] },
    observedGeneration: { type: 'integer', format: 'int64', minimum: 0 },
    lastTransitionTime: { type: 'string', format: 'date-time' },
    reason: {
      type: 'string',
      minLength: 1,
      maxLength: 1024,
      pattern: '^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$',
    },
    message: { type: 'string', maxLength: 32768 },
  },
};

export const conditionsSchema: JsonSchema = {
  type: 'array',
  description: 'metav1.Conditions, one per type.',
  items: conditionSchema,
  maxItems: 16,
  'x-kubernetes-list-type': 'map',
  'x-kubernetes-list-map-keys': ['type'],
};

/**
 * The top-level openAPIV3Schema of one of our resources: type meta, metadata, a required `spec` and a
 * `status`, plus rules on the whole object (e.g. on `metadata.name`) where it has them.
 */
export function resourceSchema(
  description: string,
  spec: JsonSchema,
  status: JsonSchema,
  validations?: JsonSchema['x-kubernetes-validations'],
): JsonSchema {
  return {
    type: 'object',
    description,
    required: ['spec'],
    properties: {
      apiVersion: { type: 'string' },
      kind: { type: 'string' },
      metadata: { type: 'object' },
      spec,
      status,
    },
    ...(validations ? { 'x-kubernetes-validations': validations } : {}),
  };
}
