// Flags of `restore fetch` → FetchOptions (docs/design/restore.md, "restore fetch flags"). The flags are the table
// in constructs/conventions/cli/restore-fetch.ts, the same the seed's init container args are written from;
// credentials come only from the standard AWS environment.
import { FlagError } from '../../constructs/conventions/cli/flag-table.js';
import { type RestoreFetchArgs, restoreFetch } from '../../constructs/conventions/cli/restore-fetch.js';
import {
  type RestoreFromMemberArgs,
  restoreFromMember,
} from '../../constructs/conventions/cli/restore-from-member.js';
import { DATA_DIR } from '../../constructs/conventions/images.js';
import { backupSourceOf } from '../../constructs/conventions/s3.js';
import { s3Options } from '../backup/cli-args.js';
import { restoreToolPath } from './etcd-version.js';
import { RestoreError } from './exit-codes.js';
import type { FetchOptions } from './fetch.js';
import type { FromMemberOptions } from './from-member.js';

/** Where our image keeps the restore tools: `<dir>/v<major.minor>/etcdutl` (3.4: `etcdctl`). */
export const defaultToolsDir = '/app/etcd';
export const toolsDirEnv = 'ETCD_GITOPS_ETCD_TOOLS';

function usage(message: string): RestoreError {
  return new RestoreError('InvalidArguments', message);
}

/** The fetch options decoded `restore fetch` flags describe, with the documented defaults. */
export function fetchOptionsOf(args: RestoreFetchArgs, env: NodeJS.ProcessEnv = process.env): FetchOptions {
  return {
    source: backupSourceOf(args),
    s3: s3Options(args),
    dataDir: args.dataDir ?? DATA_DIR,
    clusterVersion: args.etcdVersion,
    seed: {
      name: args.name,
      peerURL: args.initialAdvertisePeerUrls,
      token: args.initialClusterToken,
      ...(args.initialCluster ? { initialCluster: args.initialCluster } : {}),
    },
    restoreTool: args.etcdutl || restoreToolPath(env[toolsDirEnv] || defaultToolsDir, args.etcdVersion),
    ...(args.revisionFloor ? { revisionFloor: args.revisionFloor } : {}),
  };
}

export function parseFetchArgs(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): FetchOptions {
  try {
    return fetchOptionsOf(restoreFetch.decode(argv), env);
  } catch (error) {
    if (error instanceof FlagError) throw usage(error.message);
    throw error;
  }
}

/** The options of `restore from-member` flags, with the same defaults as `restore fetch`. */
export function fromMemberOptionsOf(
  args: RestoreFromMemberArgs,
  env: NodeJS.ProcessEnv = process.env,
): FromMemberOptions {
  return {
    memberUrl: args.memberUrl,
    memberId: args.memberId,
    tls: {
      ...(args.cacert ? { caFile: args.cacert } : {}),
      ...(args.cert ? { certFile: args.cert } : {}),
      ...(args.key ? { keyFile: args.key } : {}),
    },
    dataDir: args.dataDir ?? DATA_DIR,
    clusterVersion: args.etcdVersion,
    seed: { name: args.name, peerURL: args.initialAdvertisePeerUrls, token: args.initialClusterToken },
    restoreTool: args.etcdutl || restoreToolPath(env[toolsDirEnv] || defaultToolsDir, args.etcdVersion),
    ...(args.revisionFloor ? { revisionFloor: args.revisionFloor } : {}),
  };
}

export function parseFromMemberArgs(
  argv: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): FromMemberOptions {
  try {
    return fromMemberOptionsOf(restoreFromMember.decode(argv), env);
  } catch (error) {
    if (error instanceof FlagError) throw usage(error.message);
    throw error;
  }
}
