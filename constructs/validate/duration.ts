// Durations for backup retention: `30d`, `12h`, `90m`, `1d12h`.

const DURATION = /^([0-9]+[dhms])+$/;

/** Throws unless `value` is a positive duration made of `<n>d`, `<n>h`, `<n>m`, `<n>s` parts. */
export function validateDuration(prop: string, value: string): string {
  if (!DURATION.test(value) || !/[1-9]/.test(value)) {
    throw new Error(`'${prop}' must be a positive duration such as 30d, 12h, 90m or 1d12h, got '${value}'`);
  }
  return value;
}
