// Kubernetes object names and other small prop checks.
import { DNS_1035_LABEL_PATTERN, DNS_1123_SUBDOMAIN_PATTERN } from '../conventions/name-patterns.js';

const DNS_1035_LABEL = new RegExp(DNS_1035_LABEL_PATTERN);
const DNS_1123_SUBDOMAIN = new RegExp(DNS_1123_SUBDOMAIN_PATTERN);

/** Throws unless `name` is a DNS-1035 label of at most `max` characters (Service names need this). */
export function validateDnsLabel(prop: string, name: string, max = 63): string {
  if (!DNS_1035_LABEL.test(name) || name.length > max) {
    throw new Error(
      `'${prop}' must be at most ${max} characters of lowercase letters, digits and hyphens, starting with a letter and ending with a letter or digit, got '${name}'`,
    );
  }
  return name;
}

/** Throws unless `name` is a DNS-1123 subdomain (names of Secrets, namespaces, classes). */
export function validateObjectName(prop: string, name: string): string {
  if (!DNS_1123_SUBDOMAIN.test(name) || name.length > 253) {
    throw new Error(
      `'${prop}' must be a Kubernetes object name (lowercase letters, digits, '-' and '.', at most 253 characters), got '${name}'`,
    );
  }
  return name;
}

/** Throws unless `domain` is a DNS domain such as `cluster.local` (a cluster domain, the end of DNS names). */
export function validateDomainName(prop: string, domain: string): string {
  if (!DNS_1123_SUBDOMAIN.test(domain) || domain.length > 253) {
    throw new Error(
      `'${prop}' must be a DNS domain (labels of lowercase letters, digits and '-', separated by '.'), got '${domain}'`,
    );
  }
  return domain;
}

/** Throws unless `value` is an integer in [min, max]. */
export function validateInteger(prop: string, value: number, min: number, max: number, why = ''): number {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new Error(`'${prop}' must be an integer from ${min} to ${max}${why}, got ${value}`);
  }
  return value;
}
