// Synth-time check of a duration, with the one duration grammar (conventions/duration.ts).
import { positiveDurationMs } from '../conventions/duration.js';

/** Throws unless `value` is a positive duration such as `30d`, `12h` or `1d12h`. */
export function validateDuration(prop: string, value: string): string {
  positiveDurationMs(`'${prop}'`, value);
  return value;
}
