// Object keys of backups, rendered from a template such as `{namespace}/{cluster}/{timestamp}-rev{revision}.db`.

/** The default `--key-template`. */
export const defaultKeyTemplate = '{namespace}/{cluster}/{timestamp}-rev{revision}.db';

/** Values a key template can refer to. */
export interface KeyFields {
  readonly namespace: string;
  readonly cluster: string;
  /** When the snapshot was requested. */
  readonly time: Date;
  /** Decimal etcd revision (see docs/design/backup.md for its exact meaning). */
  readonly revision: string;
}

const placeholders = ['namespace', 'cluster', 'timestamp', 'revision'] as const;
const placeholderPattern = /\{([^{}]*)\}/g;

/** Throws a message naming the template and what is allowed unless the template can make unique keys. */
export function validateKeyTemplate(template: string): void {
  const allowed = placeholders.map((name) => `{${name}}`).join(' ');
  for (const [, name] of template.matchAll(placeholderPattern)) {
    if (!(placeholders as readonly string[]).includes(name ?? '')) {
      throw new Error(`key template '${template}' has unknown placeholder {${name}}; allowed: ${allowed}`);
    }
  }
  if (!template.includes('{timestamp}')) {
    throw new Error(
      `key template '${template}' must contain {timestamp}, or every backup overwrites the last`,
    );
  }
  if (template.startsWith('/') || template.includes('//')) {
    throw new Error(`key template '${template}' must not start with '/' or contain '//'`);
  }
  if (template.endsWith('.part')) {
    throw new Error(`key template '${template}' must not end in '.part' (the staging suffix)`);
  }
}

/** `YYYYMMDDTHHMMSSZ` in UTC: sortable, no characters that need escaping in keys. */
export function keyTimestamp(time: Date): string {
  return time
    .toISOString()
    .replace(/\.\d{3}Z$/, 'Z')
    .replace(/[-:]/g, '');
}

/** The object key for one backup; `.gz` is appended for gzip-compressed backups. */
export function renderKey(
  template: string,
  fields: KeyFields,
  compression: 'none' | 'gzip' = 'none',
): string {
  validateKeyTemplate(template);
  const values: Record<(typeof placeholders)[number], string> = {
    namespace: fields.namespace,
    cluster: fields.cluster,
    timestamp: keyTimestamp(fields.time),
    revision: fields.revision,
  };
  const key = template.replace(placeholderPattern, (_, name: keyof typeof values) => values[name]);
  return compression === 'gzip' ? `${key}.gz` : key;
}

/**
 * The fixed part of the keys one cluster's template produces: everything before the first placeholder
 * that changes per backup. Status and retention list under it.
 */
export function keyPrefix(template: string, fields: Pick<KeyFields, 'namespace' | 'cluster'>): string {
  validateKeyTemplate(template);
  const first = Math.min(
    ...['{timestamp}', '{revision}'].map((p) => template.indexOf(p)).filter((index) => index >= 0),
  );
  return template
    .slice(0, first)
    .replaceAll('{namespace}', fields.namespace)
    .replaceAll('{cluster}', fields.cluster);
}
