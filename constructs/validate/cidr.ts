// CIDR blocks (NetworkPolicy ipBlock peers).
import { isIP } from 'node:net';

/** Throws unless `value` is an IPv4 or IPv6 CIDR block such as `10.0.0.0/8` or `fd00::/64`. */
export function validateCidr(prop: string, value: string): string {
  const [address, prefix, ...rest] = String(value).split('/');
  const family = isIP(address ?? '');
  const bits = family === 4 ? 32 : 128;
  const length = Number(prefix);
  if (family === 0 || rest.length > 0 || prefix === undefined || !/^\d{1,3}$/.test(prefix) || length > bits) {
    throw new Error(
      `'${prop}' must be a CIDR block: an IPv4 or IPv6 address, '/' and a prefix length (e.g. '10.0.0.0/8', '192.0.2.7/32', 'fd00::/64'), got '${value}'`,
    );
  }
  return value;
}
