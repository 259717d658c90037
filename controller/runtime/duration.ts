// Go-style durations (`500ms`, `30s`, `5m`, `1h30m`), as controller-runtime's flags take them.

const unitMs: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Milliseconds of a duration like `1m30s`; throws naming the flag and the value. */
export function parseDuration(flag: string, value: string): number {
  const parts = [...value.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)];
  const consumed = parts.map((part) => part[0]).join('');
  if (parts.length === 0 || consumed !== value) {
    throw new Error(`'${flag}' must be a duration like '500ms', '30s', '5m' or '1h30m', got '${value}'`);
  }
  return parts.reduce(
    (total, [, amount, unit]) => total + Number(amount) * (unitMs[unit as string] as number),
    0,
  );
}
