// The grammars of Kubernetes names and label values, as the constructs check props and the CRDs check objects
// written by hand (the API server's own rules, apimachinery's validation package).

/** A DNS-1035 label (a Service name, so an etcd cluster's name): a lowercase letter first. */
export const DNS_1035_LABEL_PATTERN = '^[a-z]([-a-z0-9]*[a-z0-9])?$';
/** A DNS-1123 subdomain (names of Secrets, namespaces, classes), at most 253 characters. */
export const DNS_1123_SUBDOMAIN_PATTERN =
  '^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$';
/** A label value: empty, or at most 63 letters, digits, '-', '_' and '.', a letter or digit at both ends. */
export const LABEL_VALUE_PATTERN = '^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$';
/** The longest label value. */
export const MAX_LABEL_VALUE_LENGTH = 63;
