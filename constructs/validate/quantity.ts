// Kubernetes resource quantities (`1Gi`, `500m`, `1e3`).
import { QUANTITY_PATTERN } from '../api/common-schemas.js';

const QUANTITY = new RegExp(QUANTITY_PATTERN);

/** Throws unless `value` is a Kubernetes quantity; `positive` also refuses zero and negatives. */
export function validateQuantity(prop: string, value: string, positive = true): string {
  const allowed = 'a Kubernetes quantity such as 1Gi, 512Mi or 10G';
  if (!QUANTITY.test(value)) throw new Error(`'${prop}' must be ${allowed}, got '${value}'`);
  if (positive && (value.startsWith('-') || /^\+?0*\.?0*([a-zA-Z]*|[eE].*)$/.test(value))) {
    throw new Error(`'${prop}' must be ${allowed} greater than zero, got '${value}'`);
  }
  return value;
}
