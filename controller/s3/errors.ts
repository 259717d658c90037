// One sentence for an S3 failure: what went wrong, in words an operator can act on.

interface SdkError {
  name?: string;
  code?: string;
  message?: string;
  $metadata?: { httpStatusCode?: number };
  cause?: unknown;
}

const explanations: Record<string, string> = {
  NoSuchBucket: 'the bucket does not exist',
  NotFound: 'not found (for a bucket: it does not exist)',
  InvalidAccessKeyId: 'the access key is not known to the store (check AWS_ACCESS_KEY_ID)',
  SignatureDoesNotMatch: 'the secret key is wrong (check AWS_SECRET_ACCESS_KEY)',
  AccessDenied: 'access denied by the store',
  Forbidden: 'access denied by the store (wrong credentials or no permission)',
  CredentialsProviderError:
    'no S3 credentials found (set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_ROLE_ARN and AWS_WEB_IDENTITY_TOKEN_FILE)',
  WebIdentityRefused:
    "the store's STS refused the web identity: check the token's audience against the store's client id, the issuer the store trusts and the role's trust policy",
  InvalidIdentityToken:
    "the store refused the web identity token (AssumeRoleWithWebIdentity): check the token's audience against the store's client id and the issuer it trusts",
  IDPRejectedClaim:
    'the store refused the web identity token (AssumeRoleWithWebIdentity): the role does not trust this ServiceAccount',
  ExpiredToken: 'the web identity token expired (AssumeRoleWithWebIdentity)',
  ECONNREFUSED: 'connection refused: nothing listens at the S3 endpoint',
  ENOTFOUND: 'the S3 endpoint host name does not resolve',
  ECONNRESET: 'the S3 endpoint closed the connection',
  EPIPE: 'the S3 endpoint closed the connection',
  TimeoutError: 'the S3 endpoint did not answer in time',
};

/** `<what failed>: <explanation> (<raw error>)` for logs and exit messages. */
export function describeS3Error(error: unknown): string {
  const chain: SdkError[] = [];
  for (let e: unknown = error; e && typeof e === 'object' && chain.length < 5; e = (e as SdkError).cause) {
    chain.push(e as SdkError);
  }
  for (const e of chain) {
    const explanation = explanations[e.code ?? ''] ?? explanations[e.name ?? ''];
    if (explanation) return `${explanation} (${rawText(e)})`;
  }
  const first = chain[0];
  if (!first) return String(error);
  return rawText(first);
}

function rawText(e: SdkError): string {
  const status = e.$metadata?.httpStatusCode;
  const name = e.code ?? e.name ?? 'Error';
  const message = e.message && e.message !== name && e.message !== 'UnknownError' ? `: ${e.message}` : '';
  return `${name}${message}${status ? `, HTTP ${status}` : ''}`;
}
