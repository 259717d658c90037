// `--max-age` values: `30d`, `12h`, `90m`, `3600s`, or combinations such as `1d12h`.

const unitMs: Record<string, number> = { d: 86_400_000, h: 3_600_000, m: 60_000, s: 1_000 };

/** Milliseconds of a duration such as `7d` or `1d12h`; throws naming the value and the allowed form. */
export function parseDuration(text: string): number {
  const parts = [...text.matchAll(/(\d+)([dhms])/g)];
  const rebuilt = parts.map((part) => part[0]).join('');
  if (parts.length === 0 || rebuilt !== text) {
    throw new Error(`'${text}' is not a duration; use digits with d, h, m or s, e.g. 30d, 12h, 1d12h`);
  }
  const ms = parts.reduce((sum, [, count, unit]) => sum + Number(count) * (unitMs[unit ?? 's'] ?? 0), 0);
  if (ms <= 0) throw new Error(`duration '${text}' must be longer than zero`);
  return ms;
}
