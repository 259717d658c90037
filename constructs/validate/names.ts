// Kubernetes object names and other small prop checks.
import {
  DNS_1035_LABEL_PATTERN,
  DNS_1123_SUBDOMAIN_PATTERN,
  LABEL_VALUE_ALLOWED,
  LABEL_VALUE_PATTERN,
  MAX_LABEL_VALUE_LENGTH,
  QUALIFIED_NAME_ALLOWED,
  QUALIFIED_NAME_PATTERN,
} from '../conventions/name-patterns.js';

const DNS_1035_LABEL = new RegExp(DNS_1035_LABEL_PATTERN);
const DNS_1123_SUBDOMAIN = new RegExp(DNS_1123_SUBDOMAIN_PATTERN);
const QUALIFIED_NAME = new RegExp(QUALIFIED_NAME_PATTERN);
const LABEL_VALUE = new RegExp(LABEL_VALUE_PATTERN);

/** Throws unless every key of `map` is a qualified name and, with `labelValues`, every value a label value. */
export function validateLabelMap(
  prop: string,
  map: Readonly<Record<string, string>> | undefined,
  labelValues: boolean,
): void {
  for (const [key, value] of Object.entries(map ?? {})) {
    if (!QUALIFIED_NAME.test(key))
      throw new Error(`'${prop}' keys must be ${QUALIFIED_NAME_ALLOWED}, got '${key}'`);
    if (labelValues && (value.length > MAX_LABEL_VALUE_LENGTH || !LABEL_VALUE.test(value))) {
      throw new Error(`'${prop}.${key}' must be ${LABEL_VALUE_ALLOWED}, got '${value}'`);
    }
  }
}

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
