// The bad-input catalog at admission (issue 23): EtcdCluster and EtcdRestore objects written by hand with one bad
// value each, as a user or a careless generator might send them. Each must be refused by the API server with a
// message that names the field and the value and says what is allowed. Run by crd-rules.test.ts against a real
// kube-apiserver; each case's message is printed with its test.

export interface AdmissionCase {
  /** What is wrong, as the test title says it. */
  readonly what: string;
  readonly kind: 'EtcdCluster' | 'EtcdRestore';
  /** The object's name (`metadata.name`); a fresh one per case unless the case is about the name. */
  readonly name?: string;
  /** Applied first and accepted, for a case about an update. */
  readonly before?: Record<string, unknown>;
  /** The spec refused (on create, or as the update of `before`). */
  readonly spec: Record<string, unknown>;
  /** The field the refusal must name, as the API server writes its path. */
  readonly field: string;
  /** The value the refusal must name; `undefined` for a value longer than its field's maxLength, which the API
   *  server refuses before any rule runs with "Too long: may not be more than N bytes", naming the field and the
   *  limit but not the value (it would be the long value repeated). */
  readonly value: string | undefined;
  /** What the refusal must say is allowed. */
  readonly allowed: RegExp;
}

const version = '3.6.16';
const backup = { bucket: 'etcd-backups', key: 'main/snapshot.db', credentialsSecretName: 's3' };
const clusterCase = (
  what: string,
  spec: Record<string, unknown>,
  field: string,
  value: string | undefined,
  allowed: RegExp,
): AdmissionCase => ({ what, kind: 'EtcdCluster', spec: { version, ...spec }, field, value, allowed });
const restoreCase = (
  what: string,
  spec: Record<string, unknown>,
  field: string,
  value: string | undefined,
  allowed: RegExp,
): AdmissionCase => ({
  what,
  kind: 'EtcdRestore',
  spec: { clusterName: 'main', backup, ...spec },
  field,
  value,
  allowed,
});

const PATTERN = /should match '\^/;
const ROLE_ARN = 'arn:aws:iam::123456789012:role/etcd-backup';
const CREDENTIALS_ALLOWED =
  /allowed: exactly one of credentialsSecretName \(a Secret with static keys\) or webIdentity \(a role assumed with the <cluster>-backup ServiceAccount token\)/;
const KEY_ALLOWED =
  /allowed: a name of at most 63 letters, digits, '-', '_' and '\.', starting and ending with a letter or digit, optionally after a DNS subdomain prefix/;
const QUANTITY_ALLOWED = /allowed: a Kubernetes quantity such as 1Gi, 512Mi or 10G greater than zero/;
const STORAGE_ALLOWED =
  /allowed: a quantity of at least 128Mi \(etcd preallocates its write-ahead log in 64 MB files\)/;

export const admissionCatalog: readonly AdmissionCase[] = [
  // storage.size: a positive quantity of at least 128Mi.
  clusterCase('storage.size 0', { storage: { size: '0' } }, 'spec.storage.size', "'0'", STORAGE_ALLOWED),
  clusterCase(
    'storage.size -1Gi',
    { storage: { size: '-1Gi' } },
    'spec.storage.size',
    "'-1Gi'",
    STORAGE_ALLOWED,
  ),
  clusterCase(
    'storage.size 10 (bytes)',
    { storage: { size: '10' } },
    'spec.storage.size',
    "'10'",
    STORAGE_ALLOWED,
  ),
  clusterCase(
    'storage.size 64Mi',
    { storage: { size: '64Mi' } },
    'spec.storage.size',
    "'64Mi'",
    STORAGE_ALLOWED,
  ),
  clusterCase(
    'storage.size 100M (under 128Mi)',
    { storage: { size: '100M' } },
    'spec.storage.size',
    "'100M'",
    STORAGE_ALLOWED,
  ),
  clusterCase(
    'storage.size +0.1Gi (about 107 MB)',
    { storage: { size: '+0.1Gi' } },
    'spec.storage.size',
    "'+0.1Gi'",
    STORAGE_ALLOWED,
  ),
  clusterCase(
    'storage.size 1GB (not a quantity)',
    { storage: { size: '1GB' } },
    'spec.storage.size',
    '"1GB"',
    PATTERN,
  ),
  {
    what: 'storage.size lowered to 64Mi on an existing cluster',
    kind: 'EtcdCluster',
    before: { version, storage: { size: '1Gi' } },
    spec: { version, storage: { size: '64Mi' } },
    field: 'spec.storage.size',
    value: "'64Mi'",
    allowed: STORAGE_ALLOWED,
  },
  clusterCase(
    'storage.storageClassName with capitals and _',
    { storage: { storageClassName: 'Fast_SSD' } },
    'spec.storage.storageClassName',
    '"Fast_SSD"',
    PATTERN,
  ),

  // resources: quantities greater than zero, each limit at least its request.
  clusterCase(
    'resources.requests.memory 0',
    { resources: { requests: { memory: '0' } } },
    'spec.resources.requests[memory]',
    "'0'",
    QUANTITY_ALLOWED,
  ),
  clusterCase(
    'resources.requests.cpu -100m',
    { resources: { requests: { cpu: '-100m' } } },
    'spec.resources.requests[cpu]',
    "'-100m'",
    QUANTITY_ALLOWED,
  ),
  clusterCase(
    'resources.requests.cpu 0 as a number',
    { resources: { requests: { cpu: 0 } } },
    'spec.resources.requests[cpu]',
    "'0'",
    QUANTITY_ALLOWED,
  ),
  clusterCase(
    'resources.limits.memory 0Mi',
    { resources: { limits: { memory: '0Mi' } } },
    'spec.resources.limits[memory]',
    "'0Mi'",
    QUANTITY_ALLOWED,
  ),
  clusterCase(
    'resources.limits.cpu -1',
    { resources: { limits: { cpu: -1 } } },
    'spec.resources.limits[cpu]',
    "'-1'",
    QUANTITY_ALLOWED,
  ),
  clusterCase(
    'resources.limits.memory below its request',
    { resources: { requests: { memory: '256Mi' }, limits: { memory: '128Mi' } } },
    'spec.resources.limits.memory',
    "'128Mi'",
    /allowed: at least spec\.resources\.requests\.memory \(256Mi\): Kubernetes refuses a limit below its request/,
  ),
  clusterCase(
    'resources.limits.cpu below its request',
    { resources: { requests: { cpu: '500m' }, limits: { cpu: '0.1' } } },
    'spec.resources.limits.cpu',
    "'0.1'",
    /allowed: at least spec\.resources\.requests\.cpu \(500m\)/,
  ),
  clusterCase(
    'resources.limits.ephemeral-storage 0',
    { resources: { limits: { 'ephemeral-storage': '0' } } },
    'spec.resources.limits[ephemeral-storage]',
    "'0'",
    QUANTITY_ALLOWED,
  ),
  clusterCase(
    'resources.limits.memory 1GB (not a quantity)',
    { resources: { limits: { memory: '1GB' } } },
    'spec.resources.limits.memory',
    '"1GB"',
    PATTERN,
  ),
  clusterCase(
    'resources.requests.cpu "half"',
    { resources: { requests: { cpu: 'half' } } },
    'spec.resources.requests.cpu',
    '"half"',
    PATTERN,
  ),
  {
    what: 'resources.limits.memory lowered below its request on an existing cluster',
    kind: 'EtcdCluster',
    before: { version, resources: { requests: { memory: '512Mi' }, limits: { memory: '1Gi' } } },
    spec: { version, resources: { requests: { memory: '512Mi' }, limits: { memory: '256Mi' } } },
    field: 'spec.resources.limits.memory',
    value: "'256Mi'",
    allowed: /allowed: at least spec\.resources\.requests\.memory \(512Mi\)/,
  },

  // quotaBackendBytes: from 1Mi to the member volume.
  clusterCase(
    'quotaBackendBytes 512Ki',
    { quotaBackendBytes: '512Ki' },
    'spec.quotaBackendBytes',
    "'512Ki'",
    /allowed: bytes such as 536870912, 512Mi or 8Gi, from 1Mi to the volume size \(1Gi\)/,
  ),
  clusterCase(
    'quotaBackendBytes 0',
    { quotaBackendBytes: 0 },
    'spec.quotaBackendBytes',
    "'0'",
    /from 1Mi to the volume size \(1Gi\)/,
  ),
  clusterCase(
    'quotaBackendBytes -1',
    { quotaBackendBytes: '-1' },
    'spec.quotaBackendBytes',
    "'-1'",
    /from 1Mi/,
  ),
  clusterCase(
    'quotaBackendBytes larger than the volume',
    { storage: { size: '2Gi' }, quotaBackendBytes: '3Gi' },
    'spec.quotaBackendBytes',
    "'3Gi'",
    /from 1Mi to the volume size \(2Gi\)/,
  ),
  clusterCase(
    'quotaBackendBytes below 1Mi with ephemeral storage',
    { storage: { ephemeral: true }, quotaBackendBytes: 1000 },
    'spec.quotaBackendBytes',
    "'1000'",
    /allowed: bytes such as 536870912, 512Mi or 8Gi, from 1Mi$/m,
  ),
  clusterCase(
    'quotaBackendBytes 1.5 (bytes)',
    { quotaBackendBytes: '1.5' },
    'spec.quotaBackendBytes',
    "'1.5'",
    /from 1Mi to the volume size/,
  ),
  clusterCase(
    'quotaBackendBytes 8GB (not a quantity)',
    { quotaBackendBytes: '8GB' },
    'spec.quotaBackendBytes',
    '"8GB"',
    PATTERN,
  ),

  // size, version and the other scalars.
  clusterCase('size -1', { size: -1 }, 'spec.size', '-1', /should be greater than or equal to 1/),
  clusterCase('size 11', { size: 11 }, 'spec.size', '11', /should be less than or equal to 9/),
  clusterCase(
    'version 3.6 (two parts)',
    { version: '3.6' },
    'spec.version',
    "'3.6'",
    /allowed: an etcd release written X\.Y\.Z/,
  ),
  clusterCase(
    'version 3.3.27 (older than 3.4)',
    { version: '3.3.27' },
    'spec.version',
    "'3.3.27'",
    /allowed: 3\.4\.0 or newer/,
  ),
  clusterCase(
    'version with a v prefix',
    { version: 'v3.6.16' },
    'spec.version',
    'v3.6.16',
    /written X\.Y\.Z/,
  ),
  clusterCase(
    'image longer than 512 characters',
    { image: `registry.example/${'e'.repeat(500)}:3.6.16` },
    'spec.image',
    undefined,
    /Too long: may not be more than 512 bytes/,
  ),

  // podTemplate.
  clusterCase(
    'podTemplate.labels value with a space',
    { podTemplate: { labels: { team: 'platform team' } } },
    'spec.podTemplate.labels.team',
    '"platform team"',
    PATTERN,
  ),
  clusterCase(
    'podTemplate.labels value of 64 characters',
    { podTemplate: { labels: { tier: 'x'.repeat(64) } } },
    'spec.podTemplate.labels.tier',
    undefined,
    /Too long: may not be more than 63 bytes/,
  ),
  clusterCase(
    'podTemplate.nodeSelector value ending in !',
    { podTemplate: { nodeSelector: { disk: 'ssd!' } } },
    'spec.podTemplate.nodeSelector.disk',
    '"ssd!"',
    PATTERN,
  ),
  clusterCase(
    'podTemplate.labels key with a space',
    { podTemplate: { labels: { 'team name': 'platform' } } },
    'spec.podTemplate.labels',
    "key: 'team name'",
    KEY_ALLOWED,
  ),
  clusterCase(
    'podTemplate.nodeSelector key with an empty name after its prefix',
    { podTemplate: { nodeSelector: { 'kubernetes.io/': 'ssd' } } },
    'spec.podTemplate.nodeSelector',
    "key: 'kubernetes.io/'",
    KEY_ALLOWED,
  ),
  clusterCase(
    'podTemplate.annotations key starting with -',
    { podTemplate: { annotations: { '-note': 'x' } } },
    'spec.podTemplate.annotations',
    "key: '-note'",
    KEY_ALLOWED,
  ),
  clusterCase(
    'podTemplate.priorityClassName with a space',
    { podTemplate: { priorityClassName: 'High Priority' } },
    'spec.podTemplate.priorityClassName',
    '"High Priority"',
    PATTERN,
  ),
  clusterCase(
    'podTemplate.memberAntiAffinity Always',
    { podTemplate: { memberAntiAffinity: 'Always' } },
    'spec.podTemplate.memberAntiAffinity',
    '"Always"',
    /supported values: "Preferred", "Required"/,
  ),
  clusterCase(
    'podTemplate.tolerations operator In',
    { podTemplate: { tolerations: [{ key: 'a', operator: 'In' }] } },
    'spec.podTemplate.tolerations[0].operator',
    '"In"',
    /supported values: "Exists", "Equal"/,
  ),
  clusterCase(
    'podTemplate.tolerations effect NoStart',
    { podTemplate: { tolerations: [{ key: 'a', operator: 'Exists', effect: 'NoStart' }] } },
    'spec.podTemplate.tolerations[0].effect',
    '"NoStart"',
    /supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"/,
  ),

  // Policies, failure detection, compaction.
  clusterCase(
    'persistentVolumeClaimRetentionPolicy.whenDeleted Keep',
    { persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Keep' } },
    'spec.persistentVolumeClaimRetentionPolicy.whenDeleted',
    '"Keep"',
    /supported values: "Retain", "Delete"/,
  ),
  clusterCase(
    'persistentVolumeClaimRetentionPolicy.whenScaled Remove',
    { persistentVolumeClaimRetentionPolicy: { whenScaled: 'Remove' } },
    'spec.persistentVolumeClaimRetentionPolicy.whenScaled',
    '"Remove"',
    /supported values: "Retain", "Delete"/,
  ),
  clusterCase(
    'failureDetection.nodeNotReady 5 minutes',
    { failureDetection: { nodeNotReady: '5 minutes' } },
    'spec.failureDetection.nodeNotReady',
    '"5 minutes"',
    PATTERN,
  ),
  clusterCase(
    'failureDetection.podStuck 10',
    { failureDetection: { podStuck: '10' } },
    'spec.failureDetection.podStuck',
    '"10"',
    PATTERN,
  ),
  clusterCase(
    'autoCompaction.mode daily',
    { autoCompaction: { mode: 'daily' } },
    'spec.autoCompaction.mode',
    '"daily"',
    /supported values: "periodic", "revision"/,
  ),
  clusterCase(
    'autoCompaction.retention 1 hour in periodic mode',
    { autoCompaction: { mode: 'periodic', retention: '1 hour' } },
    'spec.autoCompaction.retention',
    '1 hour',
    /allowed: a duration such as 30m, 1h or 1d/,
  ),
  clusterCase(
    'autoCompaction.retention 1h in revision mode',
    { autoCompaction: { mode: 'revision', retention: '1h' } },
    'spec.autoCompaction.retention',
    '1h',
    /allowed: a whole number of revisions such as 10000/,
  ),

  // TLS and bootstrap.
  clusterCase(
    'tls.client.secretName with capitals',
    { tls: { client: { secretName: 'Etcd-Server' } } },
    'spec.tls.client.secretName',
    '"Etcd-Server"',
    PATTERN,
  ),
  clusterCase(
    'tls.client.clientSecretName with _',
    { tls: { client: { secretName: 'etcd-server', clientSecretName: 'etcd_client' } } },
    'spec.tls.client.clientSecretName',
    '"etcd_client"',
    PATTERN,
  ),
  clusterCase(
    'tls.peer.secretName empty',
    { tls: { peer: { secretName: '' } } },
    'spec.tls.peer.secretName',
    '""',
    /should be at least 1 chars long/,
  ),
  clusterCase(
    'bootstrap.backup.bucket of two characters',
    { bootstrap: { backup: { ...backup, bucket: 'ab' } } },
    'spec.bootstrap.backup.bucket',
    '"ab"',
    /should be at least 3 chars long/,
  ),
  clusterCase(
    'bootstrap.backup.bucket with capitals',
    { bootstrap: { backup: { ...backup, bucket: 'Etcd-Backups' } } },
    'spec.bootstrap.backup.bucket',
    '"Etcd-Backups"',
    PATTERN,
  ),
  clusterCase(
    'bootstrap.backup.endpoint ftp://',
    { bootstrap: { backup: { ...backup, endpoint: 'ftp://minio:9000' } } },
    'spec.bootstrap.backup.endpoint',
    '"ftp://minio:9000"',
    PATTERN,
  ),
  clusterCase(
    'bootstrap.backup.credentialsSecretName with _',
    { bootstrap: { backup: { ...backup, credentialsSecretName: 'S3_Creds' } } },
    'spec.bootstrap.backup.credentialsSecretName',
    '"S3_Creds"',
    PATTERN,
  ),
  clusterCase(
    'bootstrap.backup with a Secret and a web identity',
    { bootstrap: { backup: { ...backup, webIdentity: { roleArn: ROLE_ARN } } } },
    'spec.bootstrap.backup',
    'both',
    CREDENTIALS_ALLOWED,
  ),
  clusterCase(
    'bootstrap.backup without credentials',
    { bootstrap: { backup: { bucket: 'etcd-backups', key: 'a.db' } } },
    'spec.bootstrap.backup',
    'neither',
    CREDENTIALS_ALLOWED,
  ),
  clusterCase(
    'bootstrap.backup.webIdentity.roleArn not an ARN',
    {
      bootstrap: { backup: { bucket: 'etcd-backups', key: 'a.db', webIdentity: { roleArn: 'etcd-backup' } } },
    },
    'spec.bootstrap.backup.webIdentity.roleArn',
    '"etcd-backup"',
    PATTERN,
  ),
  clusterCase(
    'bootstrap.backup.webIdentity.stsEndpoint without a scheme',
    {
      bootstrap: {
        backup: {
          bucket: 'etcd-backups',
          key: 'a.db',
          webIdentity: { roleArn: ROLE_ARN, stsEndpoint: 'minio:9000' },
        },
      },
    },
    'spec.bootstrap.backup.webIdentity.stsEndpoint',
    '"minio:9000"',
    PATTERN,
  ),
  restoreCase(
    'backup with a Secret and a web identity',
    { backup: { ...backup, webIdentity: { roleArn: ROLE_ARN } } },
    'spec.backup',
    'both',
    CREDENTIALS_ALLOWED,
  ),
  clusterCase(
    'bootstrap.backup.key empty',
    { bootstrap: { backup: { ...backup, key: '' } } },
    'spec.bootstrap.backup.key',
    '""',
    /should be at least 1 chars long/,
  ),

  // The name.
  {
    ...clusterCase(
      'metadata.name with a dot',
      {},
      'metadata.name',
      "'main.db'",
      /allowed: a lowercase letter, then lowercase letters, digits and hyphens/,
    ),
    name: 'main.db',
  },
  {
    ...clusterCase(
      'metadata.name starting with a digit',
      {},
      'metadata.name',
      "'1main'",
      /\(a DNS-1035 label\)/,
    ),
    name: '1main',
  },
  {
    ...clusterCase(
      'metadata.name of 46 characters',
      {},
      'metadata.name',
      `'${'m'.repeat(46)}'`,
      /allowed: at most 45 characters/,
    ),
    name: 'm'.repeat(46),
  },

  // EtcdRestore.
  restoreCase(
    'clusterName with capitals and _',
    { clusterName: 'Main_Cluster' },
    'spec.clusterName',
    '"Main_Cluster"',
    PATTERN,
  ),
  restoreCase(
    'clusterName of 46 characters',
    { clusterName: 'c'.repeat(46) },
    'spec.clusterName',
    undefined,
    /Too long: may not be more than 45 bytes/,
  ),
  restoreCase(
    'clusterName empty',
    { clusterName: '' },
    'spec.clusterName',
    '""',
    /should be at least 1 chars long/,
  ),
  restoreCase(
    'survivor.member with _',
    { backup: undefined, survivor: { member: 'main_2' } },
    'spec.survivor.member',
    '"main_2"',
    PATTERN,
  ),
  restoreCase(
    'backup.region longer than 64 characters',
    { backup: { ...backup, region: 'r'.repeat(65) } },
    'spec.backup.region',
    undefined,
    /Too long: may not be more than 64 bytes/,
  ),
  restoreCase(
    'backup.credentialsSecretName with a space',
    { backup: { ...backup, credentialsSecretName: 's3 creds' } },
    'spec.backup.credentialsSecretName',
    '"s3 creds"',
    PATTERN,
  ),
];
