// The controller's S3 credentials for a restore whose backup is read with a web identity
// (docs/design/workload-identity.md, "The controller's verification"): a token of the cluster's `<cluster>-backup`
// ServiceAccount from the TokenRequest API, exchanged through the SDK's web identity provider. The token is
// neither stored nor logged.

import { fromWebToken } from '@aws-sdk/credential-provider-web-identity';
import type { CoreV1Api } from '@kubernetes/client-node';
import {
  backupServiceAccountName,
  controllerSecretsRoleName,
  DEFAULT_WEB_IDENTITY_AUDIENCE,
  type WebIdentity,
} from '../../constructs/conventions/index.js';
import { isForbidden, isNotFound } from '../runtime/kube.js';
import type { S3ClientCredentials } from '../s3/client.js';
import { namingRefusals } from '../s3/web-identity.js';

/** The shortest lifetime the TokenRequest API grants: the verification needs minutes at most. */
export const CONTROLLER_TOKEN_SECONDS = 600;

export interface BackupTokenRequest {
  readonly namespace: string;
  readonly cluster: string;
  readonly identity: WebIdentity;
  /** The store's region, for STS. */
  readonly region: string;
  /** Names the session in the store's audit log: `etcd-gitops-restore-<restore>` (at most 64 characters). */
  readonly restore: string;
}

/** Credentials for `request`'s role, or why the controller cannot have them. */
export async function webIdentityCredentials(
  core: CoreV1Api,
  request: BackupTokenRequest,
): Promise<{ credentials: S3ClientCredentials } | { problem: string }> {
  const { namespace, cluster, identity } = request;
  const serviceAccount = backupServiceAccountName(cluster);
  const audience = identity.audience ?? DEFAULT_WEB_IDENTITY_AUDIENCE;
  let token: string | undefined;
  try {
    const answer = await core.createNamespacedServiceAccountToken({
      namespace,
      name: serviceAccount,
      body: { spec: { audiences: [audience], expirationSeconds: CONTROLLER_TOKEN_SECONDS } },
    });
    token = answer.status?.token;
  } catch (error) {
    if (isNotFound(error)) {
      return {
        problem: `ServiceAccount ${serviceAccount} (the web identity of spec.backup.webIdentity) does not exist in namespace ${namespace}: the EtcdCluster construct makes it with a backup schedule or a bootstrap.backup that uses a web identity`,
      };
    }
    if (isForbidden(error)) {
      return {
        problem: `the controller may not request a token of ServiceAccount ${serviceAccount} in namespace ${namespace} (403 Forbidden): grant its ServiceAccount create on serviceaccounts/token for that name, as the Role ${controllerSecretsRoleName(cluster)} the EtcdCluster construct synthesizes does`,
      };
    }
    throw error;
  }
  if (!token) throw new Error(`the TokenRequest for ServiceAccount ${serviceAccount} returned no token`);
  return {
    credentials: namingRefusals(
      fromWebToken({
        roleArn: identity.roleArn,
        webIdentityToken: token,
        roleSessionName: `etcd-gitops-restore-${request.restore}`.slice(0, 64),
        clientConfig: {
          region: request.region,
          ...(identity.stsEndpoint ? { endpoint: identity.stsEndpoint } : {}),
        },
      }),
      identity.roleArn,
    ),
  };
}
