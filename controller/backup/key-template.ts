// Object keys of backups, rendered from a template such as `{namespace}/{cluster}/{timestamp}-rev{revision}.db`.
// The template grammar is shared with the constructs (constructs/conventions/backup.ts).
import {
  DEFAULT_KEY_TEMPLATE,
  type KeyTemplatePlaceholder,
  keyTemplateProblem,
} from '../../constructs/conventions/backup.js';

/** The default `--key-template`. */
export const defaultKeyTemplate = DEFAULT_KEY_TEMPLATE;

/** Values a key template can refer to. */
export interface KeyFields {
  readonly namespace: string;
  readonly cluster: string;
  /** When the snapshot was requested. */
  readonly time: Date;
  /** Decimal etcd revision (see docs/design/backup.md for its exact meaning). */
  readonly revision: string;
}

const placeholderPattern = /\{([^{}]*)\}/g;

/** Throws a message naming the template and what is allowed unless the template can make unique keys. */
export function validateKeyTemplate(template: string): void {
  const problem = keyTemplateProblem(template);
  if (problem) throw new Error(`key template '${template}' ${problem}`);
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
  const values: Record<KeyTemplatePlaceholder, string> = {
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
