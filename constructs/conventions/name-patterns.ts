// The grammars of Kubernetes names, label keys and label values, as the constructs check props and the CRDs check
// objects written by hand (the API server's own rules, apimachinery's validation package), with what each allows
// in words for the refusals.

// '.' written as `[.]`, not `\.`: the patterns also go into CEL string literals, where `\.` is not an escape.
const DNS_LABEL = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';

/** A DNS-1035 label (a Service name, so an etcd cluster's name): a lowercase letter first. */
export const DNS_1035_LABEL_PATTERN = '^[a-z]([-a-z0-9]*[a-z0-9])?$';
/** A DNS-1123 subdomain (names of Secrets, namespaces, classes), at most 253 characters. */
export const DNS_1123_SUBDOMAIN_PATTERN = `^${DNS_LABEL}([.]${DNS_LABEL})*$`;

/** A label value: empty, or at most 63 letters, digits, '-', '_' and '.', a letter or digit at both ends. */
export const LABEL_VALUE_PATTERN = '^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$';
/** The longest label value. */
export const MAX_LABEL_VALUE_LENGTH = 63;
/** What a label value may be, in words. */
export const LABEL_VALUE_ALLOWED =
  "empty, or at most 63 letters, digits, '-', '_' and '.', starting and ending with a letter or digit";

/** A label or annotation key (a qualified name): an optional DNS subdomain prefix and '/', then a name of at most
 *  63 letters, digits, '-', '_' and '.', a letter or digit at both ends. */
export const QUALIFIED_NAME_PATTERN = `^(${DNS_LABEL}([.]${DNS_LABEL})*/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$`;
/** What a label or annotation key may be, in words. */
export const QUALIFIED_NAME_ALLOWED =
  "a name of at most 63 letters, digits, '-', '_' and '.', starting and ending with a letter or digit, optionally after a DNS subdomain prefix and '/' (e.g. example.com/team)";
