// Flag table ⇄ arguments. `encodeFlags` writes `--name=value` (booleans bare, lists comma-separated) in table
// order; `decodeFlags` reads `--name=value`, `--name value` and bare booleans (`--name=true|false` too), checks
// each value against its kind, allowed values and format, and names the flag, the value and what is allowed.
import { DURATION_EXAMPLES, parseDuration } from '../duration.js';
import { parseSemver } from '../version.js';
import { FlagError, type FlagFormat, type FlagSpec, type FlagTable, type FlagValues } from './flag-table.js';

const FLAG = /^--([a-z0-9][a-z0-9-]*)(?:=(.*))?$/s;

const FORMATS: Record<FlagFormat, { readonly valid: (value: string) => boolean; readonly allowed: string }> =
  {
    url: { valid: (value) => /^https?:\/\/[^/]+/.test(value), allowed: 'an http(s) URL' },
    duration: {
      valid: (value) => parseDuration(value) !== undefined,
      allowed: `a duration such as ${DURATION_EXAMPLES}`,
    },
    'positive-duration': {
      valid: (value) => (parseDuration(value) ?? 0) > 0,
      allowed: `a positive duration such as ${DURATION_EXAMPLES}`,
    },
    semver: {
      valid: (value) => parseSemver(value) !== undefined,
      allowed: 'an etcd release written X.Y.Z such as 3.6.16',
    },
  };

/** The arguments that carry `values`, in table order; unset options and `false` booleans are left out. */
export function encodeFlags<T extends FlagTable>(table: T, values: FlagValues<T>): string[] {
  const args: string[] = [];
  for (const [option, spec] of Object.entries(table)) {
    const value = (values as Record<string, unknown>)[option];
    if (value === undefined || value === false) continue;
    if (spec.kind === 'boolean') args.push(`--${spec.name}`);
    else if (spec.kind === 'list') args.push(`--${spec.name}=${(value as readonly string[]).join(',')}`);
    else args.push(`--${spec.name}=${String(value)}`);
  }
  return args;
}

const PLACEHOLDERS: Record<FlagFormat, string> = {
  url: 'URL',
  duration: 'DURATION',
  'positive-duration': 'DURATION',
  semver: 'X.Y.Z',
};

function placeholder(spec: FlagSpec): string {
  if (spec.allowed) return spec.allowed.join('|');
  const value = spec.format ? PLACEHOLDERS[spec.format] : spec.kind === 'integer' ? 'N' : 'VALUE';
  return spec.kind === 'list' ? `${value}[,${value}]` : value;
}

/** One line of usage: required flags first, then the optional ones in brackets. */
export function flagUsage(table: FlagTable): string {
  const specs = Object.values(table);
  const written = (spec: FlagSpec) =>
    spec.kind === 'boolean' ? `--${spec.name}` : `--${spec.name}=${placeholder(spec)}`;
  return [
    ...specs.filter((spec) => spec.required).map(written),
    ...specs.filter((spec) => !spec.required).map((spec) => `[${written(spec)}]`),
  ].join(' ');
}

function flagList(table: FlagTable): string {
  return Object.values(table)
    .map((spec) => `--${spec.name}`)
    .join(', ');
}

function fail(spec: FlagSpec, message: string): never {
  throw new FlagError(`--${spec.name}`, `'--${spec.name}' ${message}`);
}

function booleanValue(spec: FlagSpec, text: string | undefined): boolean {
  if (text === undefined || text === 'true') return true;
  if (text === 'false') return false;
  return fail(spec, `must be true or false, got '${text}'`);
}

/** Raw text (or boolean) of each option present in `argv`; the last occurrence of a flag wins. */
function readArgs(table: FlagTable, argv: readonly string[]): Map<string, string | boolean> {
  const byName = new Map(Object.entries(table).map(([option, spec]) => [spec.name, { option, spec }]));
  const raw = new Map<string, string | boolean>();
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] as string;
    const match = FLAG.exec(arg);
    if (!match) throw new FlagError(arg, `unexpected argument '${arg}'; flags: ${flagList(table)}`);
    const entry = byName.get(match[1] as string);
    if (!entry)
      throw new FlagError(`--${match[1]}`, `unknown flag '--${match[1]}'; flags: ${flagList(table)}`);
    const { option, spec } = entry;
    if (spec.kind === 'boolean') {
      raw.set(option, booleanValue(spec, match[2]));
      continue;
    }
    let value = match[2];
    if (value === undefined) {
      i += 1;
      value = argv[i];
      if (value === undefined) fail(spec, 'needs a value');
    }
    raw.set(option, value);
  }
  return raw;
}

function checkFormat(spec: FlagSpec, value: string): void {
  if (spec.format === undefined) return;
  const format = FORMATS[spec.format];
  if (!format.valid(value)) fail(spec, `must be ${format.allowed}, got '${value}'`);
}

function integerValue(spec: FlagSpec, text: string): number {
  const min = spec.min ?? 0;
  if (!/^[0-9]+$/.test(text) || Number(text) < min) {
    fail(spec, `must be a whole number${min > 0 ? ` of at least ${min}` : ''}, got '${text}'`);
  }
  return Number(text);
}

function stringValue(spec: FlagSpec, text: string): string {
  if (spec.allowed && !spec.allowed.includes(text)) {
    fail(spec, `must be one of ${spec.allowed.join(', ')}, got '${text}'`);
  }
  checkFormat(spec, text);
  return text;
}

function listValue(spec: FlagSpec, text: string): readonly string[] | undefined {
  const items = text
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
  for (const item of items) checkFormat(spec, item);
  return items.length > 0 ? items : undefined;
}

function typedValue(spec: FlagSpec, raw: string | boolean | undefined): unknown {
  if (typeof raw === 'boolean') return raw;
  if (raw === undefined) return undefined;
  if (spec.kind === 'integer') return integerValue(spec, raw);
  if (spec.kind === 'list') return listValue(spec, raw);
  return stringValue(spec, raw);
}

/** The options `argv` carries; throws a `FlagError` naming the flag, the value and what is allowed. */
export function decodeFlags<T extends FlagTable>(table: T, argv: readonly string[]): FlagValues<T> {
  const raw = readArgs(table, argv);
  const values: Record<string, unknown> = {};
  for (const [option, spec] of Object.entries(table)) {
    const value = typedValue(spec, raw.get(option));
    if ((value === undefined || value === '') && spec.required) fail(spec, 'is required');
    if (value !== undefined) values[option] = value;
  }
  return values as FlagValues<T>;
}
