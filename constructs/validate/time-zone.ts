// IANA time zone names (CronJob `timeZone`).

/** An IANA zone name: `Europe/Berlin`, `America/Argentina/Buenos_Aires`, `UTC`, `Etc/GMT+5`, `EST5EDT`. */
const ZONE_NAME = /^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/;

/**
 * Throws unless `zone` is an IANA time zone name that Node's time zone database knows (the API server checks it
 * against Go's copy of the same database).
 */
export function validateTimeZone(zone: string, prop = 'timeZone'): string {
  let known = false;
  if (typeof zone === 'string' && ZONE_NAME.test(zone)) {
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: zone });
      known = true;
    } catch {
      known = false;
    }
  }
  if (!known) {
    throw new Error(
      `'${prop}' must be an IANA time zone name such as 'Europe/Berlin', 'America/New_York' or 'UTC', got ${typeof zone === 'string' ? `'${zone}'` : String(zone)}`,
    );
  }
  return zone;
}
