// Cron schedules as the Kubernetes CronJob controller accepts them (robfig/cron standard parser).

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

/** Throws unless `schedule` is a valid 5-field cron schedule or macro such as `@daily`. */
export function validateCron(schedule: string, prop = 'schedule'): string {
  const problem = cronProblem(schedule);
  if (problem) {
    throw new Error(
      `'${prop}' must be a cron schedule of 5 fields such as '0 */6 * * *' or a macro such as @daily, got '${schedule}': ${problem}`,
    );
  }
  return schedule;
}
