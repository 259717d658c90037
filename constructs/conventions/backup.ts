// Backup objects: the key template grammar, compression and retention defaults (docs/design/backup.md).

/** The default `--key-template`. */
export const DEFAULT_KEY_TEMPLATE = '{namespace}/{cluster}/{timestamp}-rev{revision}.db';

/** Placeholders a key template may use. */
export const KEY_TEMPLATE_PLACEHOLDERS = ['namespace', 'cluster', 'timestamp', 'revision'] as const;
export type KeyTemplatePlaceholder = (typeof KEY_TEMPLATE_PLACEHOLDERS)[number];

/** Suffix of an object being uploaded, never a backup's own key. */
export const STAGING_SUFFIX = '.part';

const PLACEHOLDER = /\{([^{}]*)\}/g;

/** Why `template` cannot make unique backup keys, or undefined when it can. */
export function keyTemplateProblem(template: string): string | undefined {
  const allowed = KEY_TEMPLATE_PLACEHOLDERS.map((name) => `{${name}}`).join(' ');
  for (const [, name] of template.matchAll(PLACEHOLDER)) {
    if (!(KEY_TEMPLATE_PLACEHOLDERS as readonly string[]).includes(name ?? '')) {
      return `has unknown placeholder {${name}}; allowed: ${allowed}`;
    }
  }
  if (!template.includes('{timestamp}'))
    return 'must contain {timestamp}, or every backup overwrites the last';
  if (template.startsWith('/') || template.includes('//')) return "must not start with '/' or contain '//'";
  if (template.endsWith(STAGING_SUFFIX)) return `must not end in '${STAGING_SUFFIX}' (the staging suffix)`;
  return undefined;
}

/** How a backup is stored. */
export const COMPRESSIONS = ['none', 'gzip'] as const;
/** One of {@link COMPRESSIONS}. */
export type Compression = (typeof COMPRESSIONS)[number];
export const DEFAULT_COMPRESSION: Compression = 'none';

/** Backups a schedule keeps unless `keepLast` says otherwise. */
export const DEFAULT_KEEP_LAST = 7;

/**
 * A save's multipart part size in MiB (`--part-size-mib`, a schedule's `partSizeMiB`): S3 refuses parts under 5 MiB
 * but the last. A save holds `queueSize + 1` part buffers (docs/design/backup.md, step 3).
 */
export const PART_SIZE_MIB = { min: 5, max: 512, default: 8 } as const;

/** Parts a save uploads at once (`--queue-size`, a schedule's `queueSize`). */
export const QUEUE_SIZE = { min: 1, max: 16, default: 2 } as const;

/**
 * Where a backup Pod's container writes its report as it ends, for the controller to read as the container's
 * termination message (the kubelet's default `terminationMessagePath`; docs/design/backup-status.md).
 */
export const TERMINATION_LOG_PATH = '/dev/termination-log';

/** The container of a backup Job's Pod, whose termination message the controller reads. */
export const BACKUP_CONTAINER_NAME = 'backup';
