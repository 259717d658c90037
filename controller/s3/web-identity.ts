// A web identity's credentials with its refusals named (docs/design/workload-identity.md): the store's STS answers a
// refused AssumeRoleWithWebIdentity with a generic code (MinIO: `InvalidParameterValue`), which would otherwise read
// as any bad request and, in a restore, be retried as if the store were down.
import { fromTokenFile } from '@aws-sdk/credential-provider-web-identity';
import type { S3ClientCredentials } from './client-types.js';

/** STS refused the exchange (an HTTP 4xx answer): the token, its audience or the role's trust is wrong. */
export class WebIdentityRefused extends Error {
  override readonly name = 'WebIdentityRefused';
}

type Provider = Extract<S3ClientCredentials, (...args: never[]) => unknown>;

/** `provider` whose 4xx answers from STS become {@link WebIdentityRefused} naming `roleArn`; others pass through. */
export function namingRefusals(provider: Provider, roleArn: string): Provider {
  return (async (...args: Parameters<Provider>) => {
    try {
      return await provider(...args);
    } catch (error) {
      const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
      if (status === undefined || status < 400 || status >= 500) throw error;
      const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      throw new WebIdentityRefused(`AssumeRoleWithWebIdentity of role ${roleArn} was refused: ${reason}`, {
        cause: error,
      });
    }
  }) as Provider;
}

/**
 * The credentials of the SDK's web identity environment (`AWS_ROLE_ARN`, `AWS_WEB_IDENTITY_TOKEN_FILE`) with its
 * refusals named, when that environment is set and no static key is; else `undefined` (the SDK's default chain).
 * The token file is read again whenever the credentials expire, so the kubelet's rotation is followed.
 */
export function webIdentityFromEnvironment(env: NodeJS.ProcessEnv = process.env): Provider | undefined {
  const roleArn = env.AWS_ROLE_ARN;
  if (!roleArn || !env.AWS_WEB_IDENTITY_TOKEN_FILE || env.AWS_ACCESS_KEY_ID) return undefined;
  return namingRefusals(fromTokenFile() as Provider, roleArn);
}
