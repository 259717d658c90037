// Cron schedules as the Kubernetes CronJob controller accepts them (robfig/cron standard parser), and the longest
// gap between their runs: read by the constructs (validation, the EtcdBackupTooOld alert) and the controller
// (BackupReady, docs/design/backup-status.md) alike.

const MACROS = ['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly'];
const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const DAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];

interface Field {
  readonly name: string;
  readonly min: number;
  readonly max: number;
  readonly names?: readonly string[];
}

const FIELDS: readonly Field[] = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day of month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12, names: MONTHS },
  { name: 'day of week', min: 0, max: 6, names: DAYS },
];

function value(text: string, field: Field): number | undefined {
  const named = field.names?.indexOf(text.toLowerCase()) ?? -1;
  if (named >= 0) return named + (field.name === 'month' ? 1 : 0);
  if (!/^[0-9]+$/.test(text)) return undefined;
  const n = Number(text);
  // robfig/cron accepts 7 as Sunday.
  const max = field.name === 'day of week' ? 7 : field.max;
  return n >= field.min && n <= max ? n : undefined;
}

function validRange(range: string, field: Field): boolean {
  if (range === '*' || range === '?') return true;
  const [low, high, ...rest] = range.split('-');
  if (rest.length > 0 || low === undefined) return false;
  const from = value(low, field);
  if (from === undefined) return false;
  if (high === undefined) return true;
  const to = value(high, field);
  return to !== undefined && from <= to;
}

function validPart(part: string, field: Field): boolean {
  const [range, step, ...rest] = part.split('/');
  if (rest.length > 0 || range === undefined) return false;
  if (step !== undefined && !(/^[0-9]+$/.test(step) && Number(step) > 0)) return false;
  return validRange(range, field);
}

/** Why `schedule` is not a valid cron schedule, or undefined when it is. */
export function cronProblem(schedule: string): string | undefined {
  const trimmed = schedule.trim();
  if (trimmed.startsWith('@')) return MACROS.includes(trimmed) ? undefined : `unknown macro ${trimmed}`;
  if (/^(TZ|CRON_TZ)=/.test(trimmed))
    return 'set the time zone with the timeZone prop, not TZ= in the schedule';
  const parts = trimmed.split(/\s+/);
  if (parts.length !== 5)
    return `expected 5 fields (minute hour day-of-month month day-of-week), got ${parts.length}`;
  for (const [i, field] of FIELDS.entries()) {
    const text = parts[i] as string;
    if (!text.split(',').every((part) => validPart(part, field))) {
      return `${field.name} field '${text}' is not a value in ${field.min}-${field.max}, a range, a list or a step`;
    }
  }
  return undefined;
}

const MACRO_SCHEDULES: Readonly<Record<string, string>> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

/** The values a field's text selects (the text is valid: {@link cronProblem} first). */
function fieldValues(text: string, field: Field): Set<number> {
  const values = new Set<number>();
  for (const part of text.split(',')) {
    const [range = '*', step = '1'] = part.split('/');
    const [low, high] = range === '*' || range === '?' ? [undefined, undefined] : range.split('-');
    const from = low === undefined ? field.min : (value(low, field) as number);
    const to =
      high !== undefined
        ? (value(high, field) as number)
        : low === undefined || part.includes('/')
          ? field.max
          : from;
    for (let v = from; v <= to; v += Number(step)) values.add(field.name === 'day of week' ? v % 7 : v);
  }
  return values;
}

/**
 * The longest time in seconds between two runs of a valid schedule, over two years from 2025-01-01 (UTC; day of
 * month and day of week both restricted match either, as robfig/cron does). For alerts on a job that has not
 * succeeded for too long.
 *
 * Every matching day runs at the same minutes, so the gaps are those within one day and those from the last run of
 * a matching day to the first run of the next: one look per day, not per minute (a scan of every minute of the
 * two years was 89% of a CPU profile of synthesizing an app with 100 clusters).
 */
export function longestCronGapSeconds(schedule: string): number {
  const trimmed = schedule.trim();
  const parts = (MACRO_SCHEDULES[trimmed] ?? trimmed).split(/\s+/);
  const sets = FIELDS.map((field, i) => fieldValues(parts[i] as string, field));
  const [minutes, hours, days, months, weekdays] = sets as [
    Set<number>,
    Set<number>,
    Set<number>,
    Set<number>,
    Set<number>,
  ];
  const domRestricted = !['*', '?'].includes(parts[2] as string);
  const dowRestricted = !['*', '?'].includes(parts[4] as string);
  const ascending = (values: Set<number>) => [...values].sort((a, b) => a - b);
  // The minutes of the day it runs at, in order.
  const times = ascending(hours).flatMap((hour) => ascending(minutes).map((minute) => hour * 60 + minute));
  const withinDay = times.reduce(
    (max, time, i) => (i === 0 ? max : Math.max(max, time - (times[i - 1] as number))),
    0,
  );
  const firstOfDay = times[0] ?? 0;
  const lastOfDay = times[times.length - 1] ?? 0;
  const windowDays = 2 * 366;
  const start = Date.UTC(2025, 0, 1);
  let previousDay: number | undefined;
  let runs = 0;
  let longest = 0;
  for (let day = 0; day < windowDays; day++) {
    const date = new Date(start + day * 86_400_000);
    if (!months.has(date.getUTCMonth() + 1)) continue;
    const dom = days.has(date.getUTCDate());
    const dow = weekdays.has(date.getUTCDay());
    const dayMatches = domRestricted && dowRestricted ? dom || dow : dom && dow;
    if (!dayMatches) continue;
    longest = Math.max(longest, withinDay);
    if (previousDay !== undefined)
      longest = Math.max(longest, (day - previousDay) * 1440 - lastOfDay + firstOfDay);
    previousDay = day;
    runs += times.length;
  }
  // Runs once in two years or never (such as 31 February): the window itself is the gap.
  if (runs <= 1) return windowDays * 86_400;
  return longest * 60;
}
