// Whether a JSON merge patch (RFC 7386) would change an object: a pass whose status patch changes nothing skips the
// write (at rest, every steady pass would otherwise PATCH an identical status).
import { isDeepStrictEqual } from 'node:util';

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * True when applying `patch` to `current` gives something other than `current`: a `null` removes a key that is
 * there, an object merges key by key, anything else (arrays included) replaces the value unless equal. `undefined`
 * values are left out of a serialized patch, so they change nothing.
 */
export function mergePatchChanges(current: unknown, patch: Record<string, unknown>): boolean {
  const base = isObject(current) ? current : undefined;
  if (!base) return Object.values(patch).some((value) => value !== undefined);
  return Object.entries(patch).some(([key, value]) => {
    if (value === undefined) return false;
    if (value === null) return key in base;
    if (isObject(value)) return isObject(base[key]) ? mergePatchChanges(base[key], value) : true;
    return !isDeepStrictEqual(base[key], value);
  });
}
