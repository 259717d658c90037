// The credentials an S3 client of ours takes: static keys, or a provider of them (the SDK's own type).
import type { S3ClientConfig } from '@aws-sdk/client-s3';

export type S3ClientCredentials = NonNullable<S3ClientConfig['credentials']>;
