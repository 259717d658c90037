// Synth-time checks of S3 credentials: a Secret or a web identity, exactly one.
import { type S3CredentialsSource, s3CredentialsProblem } from '../conventions/s3-credentials.js';
import { validateObjectName } from './names.js';
import { validateHttpUrl } from './url.js';

/**
 * Throws unless `source` sets exactly one of a Secret name and a web identity, each well formed. `prefix` is what
 * the props are under, e.g. `'bootstrap.backup.'`, or `''` for a schedule's own options.
 */
export function validateS3Credentials(prefix: string, source: S3CredentialsSource): void {
  const problem = s3CredentialsProblem(
    prefix === '' ? 'backup schedule' : `'${prefix.slice(0, -1)}'`,
    source,
  );
  if (problem) throw new Error(problem);
  if (source.credentialsSecretName !== undefined)
    validateObjectName(`${prefix}credentialsSecretName`, source.credentialsSecretName);
  const endpoint = source.webIdentity?.stsEndpoint;
  if (endpoint !== undefined) validateHttpUrl(`${prefix}webIdentity.stsEndpoint`, endpoint);
}
