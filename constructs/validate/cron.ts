// A schedule prop checked at synth time, with the message naming the prop and the value.
import { cronProblem } from '../conventions/cron.js';

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
