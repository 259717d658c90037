// Pure arithmetic of the scale bench (scale.ts): a quantile from a Prometheus histogram between two scrapes (the API
// requests an audit log records in a window are counted by test/env/audit-log.ts).

/** Cumulative bucket counts of one histogram, by upper bound (`le`, +Inf as Infinity), summed over its series. */
export type Buckets = ReadonlyMap<number, number>;

/** The `<name>_bucket` samples of a /metrics text whose labels include `labels`, summed per `le`. */
export function parseBuckets(text: string, name: string, labels: Record<string, string>): Buckets {
  const sums = new Map<number, number>();
  const wanted = Object.entries(labels);
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)\{(.*)\} (\S+)$/.exec(line);
    if (!match || match[1] !== `${name}_bucket`) continue;
    const found = new Map([...(match[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((p) => [p[1], p[2]]));
    if (!wanted.every(([key, value]) => found.get(key) === value)) continue;
    const le = found.get('le') === '+Inf' ? Number.POSITIVE_INFINITY : Number(found.get('le'));
    sums.set(le, (sums.get(le) ?? 0) + Number(match[3]));
  }
  return sums;
}

/**
 * The upper bound of the bucket holding quantile `q` of the observations made between `before` and `after` (two
 * scrapes of the same histogram): "p99 ≤ this". Undefined when nothing was observed in between.
 */
export function quantileBound(before: Buckets, after: Buckets, q: number): number | undefined {
  const bounds = [...after.keys()].sort((a, b) => a - b);
  const delta = (le: number) => (after.get(le) ?? 0) - (before.get(le) ?? 0);
  const total = delta(Number.POSITIVE_INFINITY);
  if (!(total > 0)) return undefined;
  return bounds.find((le) => delta(le) >= q * total);
}
