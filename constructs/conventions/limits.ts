// Defaults and limits of an etcd cluster, as the constructs, the CRD schema and the controller apply them.
import { quantityBytes } from './quantity.js';

/** Voting members unless `size` says otherwise. */
export const DEFAULT_SIZE = 3;
export const MIN_SIZE = 1;
/** Above 9 members etcd spends more on replication than it gains. */
export const MAX_SIZE = 9;

/** Longest EtcdCluster name: `<name>-backup` must fit a CronJob name (52) and member names a DNS label. */
export const MAX_CLUSTER_NAME_LENGTH = 45;

/** PVC request per member unless `storage.size` says otherwise. */
export const DEFAULT_STORAGE_SIZE = '1Gi';
/** The smallest member volume the constructs write: etcd preallocates its write-ahead log in 64 MB files. */
export const MIN_STORAGE_SIZE = '128Mi';
/** What `storage.size` may be, in the words of the constructs and admission. */
export const STORAGE_SIZE_ALLOWED = `a quantity of at least ${MIN_STORAGE_SIZE} (etcd preallocates its write-ahead log in 64 MB files)`;

/** Resources of the etcd container unless `resources` says otherwise. */
export const DEFAULT_MEMBER_RESOURCES: {
  readonly requests?: Readonly<Record<string, string>>;
  readonly limits?: Readonly<Record<string, string>>;
} = { requests: { cpu: '100m', memory: '256Mi' } };

/**
 * Resources of the controller container unless `EtcdOperator`'s `resources` says otherwise, set from `npm run bench
 * scale` on the real nodes (bench/results/scale.json; a unit test checks them against it): the memory request covers
 * the controller at rest with one cluster, the limit leaves at least 1.5× over its peak with 50 clusters Ready. With
 * `--no-opt` (controller/runtime/v8-flags.ts) one cluster at rest took 102 MiB on Node.js 20 (2026-11-28), and 89 MiB
 * bundled as the image ships it (2026-12-03; image/bundle.ts). Since 2026-12-05 the bench runs the controller on the
 * image's Node.js 22: 86 MiB at rest with one cluster, 104 MiB with 10 and with 50, 104 MiB at its peak.
 */
export const DEFAULT_CONTROLLER_RESOURCES = {
  requests: { cpu: '50m', memory: '128Mi' },
  limits: { memory: '256Mi' },
} as const;

/**
 * The controller's young-generation semi-space, in MiB, under a memory limit. V8's default (16 MiB on 64-bit) lets
 * each semi-space fill with garbage before a scavenge, and those pages stay resident: a Node.js process that only
 * imports the controller's clients idles at 133 MiB with it and 105–115 MiB with 1 or 2 MiB (measured 2026-11-28 with
 * `--max-old-space-size=128`). A controller pass keeps little alive across a scavenge, so the smaller space costs
 * scavenges, not promotions.
 */
export const CONTROLLER_SEMI_SPACE_MIB = 2;

/**
 * The semi-space of a maintenance Job's process (backup, defrag), in MiB. A backup streams the snapshot through
 * short-lived buffers, which stay resident until a scavenge. Measured 2026-11-28 (`backup save` against etcd 3.6 and
 * MinIO on loopback, three rounds of each option in turn): peak RSS 155–184 MiB with V8's defaults, 119–127 MiB with
 * 1 MiB and the old space capped at half the limit (2 MiB: 134–144 MiB), for 64 MiB, 256 MiB and 1 GiB databases;
 * the save took 7–13% longer (1 GiB: 20.5 s against 19.2 s, medians). A scheduled backup pays seconds; its request is
 * what every node must hold free.
 */
export const JOB_SEMI_SPACE_MIB = 1;

/**
 * `NODE_OPTIONS` of a process of our image under a container memory limit of `limitBytes`: V8's old space capped at
 * half the limit, so garbage is collected before the kernel's OOM killer acts (V8 otherwise sizes its heap from the
 * node's memory, not the container's, and collects lazily: 266 MiB RSS was seen on a 24 GiB machine after a busy
 * minute), and the young generation's semi-spaces at `semiSpaceMiB`. The other half holds code, buffers and the young
 * generation. None without a limit.
 */
export function nodeOptionsForLimit(
  limitBytes: number | undefined,
  semiSpaceMiB: number,
): string | undefined {
  if (limitBytes === undefined || !(limitBytes > 0)) return undefined;
  const oldSpace = Math.max(16, Math.floor(limitBytes / 2 / 2 ** 20));
  return `--max-old-space-size=${oldSpace} --max-semi-space-size=${semiSpaceMiB}`;
}

/** `NODE_OPTIONS` of the controller for a container memory limit of `limitBytes` (`nodeOptionsForLimit`). */
export function controllerNodeOptions(limitBytes: number | undefined): string | undefined {
  return nodeOptionsForLimit(limitBytes, CONTROLLER_SEMI_SPACE_MIB);
}

/** `NODE_OPTIONS` of a backup or defrag Job for a container memory limit of `limitBytes` (`nodeOptionsForLimit`). */
export function jobNodeOptions(limitBytes: number | undefined): string | undefined {
  return nodeOptionsForLimit(limitBytes, JOB_SEMI_SPACE_MIB);
}

/**
 * Resources of a backup Job unless its schedule's `resources` say otherwise. A backup streams the snapshot into a
 * multipart upload, so its memory does not grow with the database (`npm run bench backup`, run with
 * `DEFAULT_BACKUP_NODE_OPTIONS`; a unit test checks the request against bench/results/backup.json).
 */
export const DEFAULT_BACKUP_RESOURCES = {
  requests: { cpu: '50m', memory: '160Mi' },
  limits: { memory: '256Mi' },
} as const;

/**
 * Resources of a defrag Job unless its schedule's `resources` say otherwise. A defrag run holds one connection per
 * member and little else: it peaked at 73–77 MiB RSS against one member (`/usr/bin/time` of three runs, 2026-11-27,
 * before `JOB_SEMI_SPACE_MIB`); the request covers that.
 */
export const DEFAULT_DEFRAG_RESOURCES = {
  requests: { cpu: '50m', memory: '96Mi' },
  limits: { memory: '256Mi' },
} as const;

/** The controller's `NODE_OPTIONS` under the default memory limit (what dist/ ships; tests run the controller so). */
export const DEFAULT_CONTROLLER_NODE_OPTIONS = controllerNodeOptions(
  quantityBytes(DEFAULT_CONTROLLER_RESOURCES.limits.memory),
) as string;

/** A backup Job's `NODE_OPTIONS` under the default memory limit (what the schedule writes; the backup bench runs so). */
export const DEFAULT_BACKUP_NODE_OPTIONS = jobNodeOptions(
  quantityBytes(DEFAULT_BACKUP_RESOURCES.limits.memory),
) as string;
