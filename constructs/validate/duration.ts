// Synth-time check of a duration, with the one duration grammar (conventions/duration.ts).
import { Duration } from 'cdk8s';
import { formatDuration, positiveDurationMs } from '../conventions/duration.js';

/** A duration as a prop takes it: `'30d'`, `'1d12h'` or `Duration.days(30)`. */
export type DurationInput = string | Duration;

/** Throws unless `value` is a positive duration such as `30d`, `12h` or `1d12h`. */
export function validateDuration(prop: string, value: string): string {
  positiveDurationMs(`'${prop}'`, value);
  return value;
}

/** The duration text of a string or Duration (e.g. `Duration.hours(36)` → `1d12h`); throws unless positive. */
export function durationOf(prop: string, value: DurationInput): string {
  if (value instanceof Duration) {
    const ms = value.toMilliseconds({ integral: false });
    if (!Number.isInteger(ms) || ms <= 0) {
      throw new Error(
        `'${prop}' must be a positive duration of whole milliseconds, got ${value.toHumanString()}`,
      );
    }
    return formatDuration(ms);
  }
  return validateDuration(prop, value);
}
