// The duration grammar of every flag and prop that takes one: amounts with units d, h, m, s or ms, written
// together (`30d`, `12h`, `90m`, `1d12h`, `1m30s`, `500ms`, `1.5s`). One parser for constructs and controller.

const UNIT_MS = { d: 86_400_000, h: 3_600_000, m: 60_000, s: 1_000, ms: 1 } as const;
type Unit = keyof typeof UNIT_MS;
const PART = /([0-9]+(?:\.[0-9]+)?)(ms|d|h|m|s)/g;

/** The grammar as one anchored pattern (CRD schemas, CEL). */
export const DURATION_PATTERN = '^([0-9]+([.][0-9]+)?(ms|d|h|m|s))+$';

/** What the grammar looks like, for messages. */
export const DURATION_EXAMPLES = '30d, 12h, 90m, 1d12h, 30s or 500ms';

/** Milliseconds of a duration such as `1d12h` or `500ms`, or undefined when the text is not one. */
export function parseDuration(text: string): number | undefined {
  const parts = [...text.matchAll(PART)];
  if (parts.length === 0 || parts.map((part) => part[0]).join('') !== text) return undefined;
  return parts.reduce((ms, [, amount, unit]) => ms + Number(amount) * UNIT_MS[unit as Unit], 0);
}

/** Milliseconds of a duration; throws naming `what`, the value and the grammar unless it is a positive one. */
export function positiveDurationMs(what: string, text: string): number {
  const ms = parseDuration(text);
  if (ms === undefined || ms <= 0) {
    throw new Error(`${what} must be a positive duration such as ${DURATION_EXAMPLES}, got '${text}'`);
  }
  return ms;
}

/** The shortest text of the grammar for `ms` whole milliseconds, e.g. `1d12h`, `1m30s`, `500ms`. */
export function formatDuration(ms: number): string {
  if (!Number.isInteger(ms) || ms < 0) throw new Error(`a duration must be whole milliseconds, got ${ms}`);
  if (ms === 0) return '0s';
  let rest = ms;
  let text = '';
  for (const unit of Object.keys(UNIT_MS) as Unit[]) {
    const count = Math.floor(rest / UNIT_MS[unit]);
    if (count > 0) text += `${count}${unit}`;
    rest -= count * UNIT_MS[unit];
  }
  return text;
}
