// How a Pod of ours gets its S3 credentials: a Secret's static keys, or a web identity (a role assumed with a
// projected token of the cluster's `<cluster>-backup` ServiceAccount). One derivation for the backup Job, the
// restore drill and the seed's `restore fetch` (docs/design/workload-identity.md).

/** The token's default audience: what AWS STS expects of an IRSA token. */
export const DEFAULT_WEB_IDENTITY_AUDIENCE = 'sts.amazonaws.com';

/** What a role ARN looks like: `arn:<partition>:...` (AWS `arn:aws:iam::<account>:role/<name>`, MinIO `arn:minio:iam:::role/<id>`). */
export const ROLE_ARN_PATTERN = '^arn:[a-z0-9-]+:[^\\s]*$';

/** Lifetime of the projected token; the kubelet replaces the file at 80% of it. */
export const WEB_IDENTITY_TOKEN_SECONDS = 3600;

/** Where the projected token is mounted, and its file. */
export const WEB_IDENTITY_TOKEN_DIR = '/var/run/secrets/etcd-gitops/s3-token';
export const WEB_IDENTITY_TOKEN_FILE = `${WEB_IDENTITY_TOKEN_DIR}/token`;

/** The projected token's volume. */
export const WEB_IDENTITY_VOLUME = 's3-token';

/** A role assumed with the cluster's `<cluster>-backup` ServiceAccount token, instead of static keys. */
export interface WebIdentity {
  /** The role to assume, e.g. `arn:aws:iam::123456789012:role/etcd-backup`. */
  readonly roleArn: string;
  /**
   * The token's audience, which the role's identity provider expects.
   * @default 'sts.amazonaws.com'
   */
  readonly audience?: string;
  /**
   * STS endpoint URL, for an S3-compatible store (MinIO: its own URL).
   * @default - AWS STS of the region
   */
  readonly stsEndpoint?: string;
}

/** Exactly one of a Secret with static keys or a web identity. */
export interface S3CredentialsSource {
  /**
   * Secret with `AWS_ACCESS_KEY_ID` and `AWS_SECRET_ACCESS_KEY` (optionally `AWS_SESSION_TOKEN`), in the cluster's namespace.
   * @default - none: `webIdentity` is set
   */
  readonly credentialsSecretName?: string;
  /**
   * A role assumed with a projected token of the cluster's `<cluster>-backup` ServiceAccount.
   * @default - none: `credentialsSecretName` is set
   */
  readonly webIdentity?: WebIdentity;
}

/** An environment variable, as both the cdk8s and the client-node Pod types spell it. */
export interface CredentialsEnvVar {
  readonly name: string;
  readonly value: string;
}

/** What a Pod and its S3 container need for the credentials of `source`. */
export interface S3CredentialsPodParts {
  /** The Pod's ServiceAccount, for a web identity: `<cluster>-backup`. */
  readonly serviceAccountName?: string;
  readonly volumes: Array<{
    readonly name: string;
    readonly projected: {
      readonly sources: Array<{
        readonly serviceAccountToken: {
          readonly audience: string;
          readonly expirationSeconds: number;
          readonly path: string;
        };
      }>;
    };
  }>;
  readonly volumeMounts: Array<{
    readonly name: string;
    readonly mountPath: string;
    readonly readOnly: boolean;
  }>;
  readonly env: CredentialsEnvVar[];
  readonly envFrom: Array<{ readonly secretRef: { readonly name: string } }>;
}

/** STS's longest role session name. */
export const MAX_ROLE_SESSION_NAME_LENGTH = 64;

/**
 * The Pod parts of `source` (exactly one of its two is set; validated before): `envFrom` the Secret, or the
 * projected token of `serviceAccountName` and the environment the AWS SDK's web identity provider reads, with
 * `sessionName` (the CronJob's or the member's name: what the store's audit log shows; a Job's Pod name can
 * exceed STS's 64 characters) as the role session name.
 */
export function s3CredentialsPodParts(
  source: S3CredentialsSource,
  serviceAccountName: string,
  sessionName: string,
): S3CredentialsPodParts {
  const identity = source.webIdentity;
  if (!identity) {
    return {
      volumes: [],
      volumeMounts: [],
      env: [],
      envFrom: source.credentialsSecretName ? [{ secretRef: { name: source.credentialsSecretName } }] : [],
    };
  }
  return {
    serviceAccountName,
    volumes: [
      {
        name: WEB_IDENTITY_VOLUME,
        projected: {
          sources: [
            {
              serviceAccountToken: {
                audience: identity.audience ?? DEFAULT_WEB_IDENTITY_AUDIENCE,
                expirationSeconds: WEB_IDENTITY_TOKEN_SECONDS,
                path: 'token',
              },
            },
          ],
        },
      },
    ],
    volumeMounts: [{ name: WEB_IDENTITY_VOLUME, mountPath: WEB_IDENTITY_TOKEN_DIR, readOnly: true }],
    env: [
      { name: 'AWS_ROLE_ARN', value: identity.roleArn },
      { name: 'AWS_WEB_IDENTITY_TOKEN_FILE', value: WEB_IDENTITY_TOKEN_FILE },
      { name: 'AWS_ROLE_SESSION_NAME', value: sessionName.slice(0, MAX_ROLE_SESSION_NAME_LENGTH) },
      ...(identity.stsEndpoint ? [{ name: 'AWS_ENDPOINT_URL_STS', value: identity.stsEndpoint }] : []),
    ],
    envFrom: [],
  };
}

/** Why `source` cannot be used (`prop` names where it is written), or `undefined`. */
export function s3CredentialsProblem(prop: string, source: S3CredentialsSource): string | undefined {
  const secret = source.credentialsSecretName !== undefined && source.credentialsSecretName !== '';
  const identity = source.webIdentity !== undefined;
  if (secret === identity) {
    return `${prop}: set exactly one of 'credentialsSecretName' (a Secret with AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY) or 'webIdentity' (a role assumed with the cluster's <cluster>-backup ServiceAccount token), got ${secret ? 'both' : 'neither'}`;
  }
  const id = source.webIdentity;
  if (!id) return undefined;
  if (!new RegExp(ROLE_ARN_PATTERN).test(id.roleArn ?? '')) {
    return `${prop}: 'webIdentity.roleArn' must be a role ARN such as arn:aws:iam::123456789012:role/etcd-backup, got ${JSON.stringify(id.roleArn)}`;
  }
  if (id.audience !== undefined && id.audience.trim() === '') {
    return `${prop}: 'webIdentity.audience' must not be empty (default ${DEFAULT_WEB_IDENTITY_AUDIENCE}), got ${JSON.stringify(id.audience)}`;
  }
  return undefined;
}
