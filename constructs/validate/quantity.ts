// Kubernetes resource quantities (`1Gi`, `500m`, `1e3`), written as strings, numbers or cdk8s Sizes.
import { Size, SizeRoundingBehavior } from 'cdk8s';
import {
  limitAllowed,
  POSITIVE_QUANTITY_ALLOWED,
  QUANTITY_PATTERN,
  quantityBytes,
} from '../conventions/quantity.js';

const QUANTITY = new RegExp(QUANTITY_PATTERN);

/** A quantity as a prop takes it: `'1Gi'`, `0.5` (cores, or bytes), `Size.gibibytes(1)`. */
export type QuantityInput = string | number | Size;

/** Throws unless `value` is a Kubernetes quantity; `positive` also refuses zero and negatives. */
export function validateQuantity(prop: string, value: string, positive = true): string {
  const allowed = 'a Kubernetes quantity such as 1Gi, 512Mi or 10G';
  if (!QUANTITY.test(value)) throw new Error(`'${prop}' must be ${allowed}, got '${value}'`);
  if (positive && (value.startsWith('-') || /^\+?0*\.?0*([a-zA-Z]*|[eE].*)$/.test(value))) {
    throw new Error(`'${prop}' must be ${POSITIVE_QUANTITY_ALLOWED}, got '${value}'`);
  }
  return value;
}

const SIZE_UNITS = [
  ['Pi', (size: Size) => size.toPebibytes({ rounding: SizeRoundingBehavior.NONE })],
  ['Ti', (size: Size) => size.toTebibytes({ rounding: SizeRoundingBehavior.NONE })],
  ['Gi', (size: Size) => size.toGibibytes({ rounding: SizeRoundingBehavior.NONE })],
  ['Mi', (size: Size) => size.toMebibytes({ rounding: SizeRoundingBehavior.NONE })],
] as const;

/** A Size in the largest binary unit that holds it as a whole number, e.g. `1536Mi` for 1.5 GiB. */
function sizeQuantity(size: Size): string {
  for (const [unit, amount] of SIZE_UNITS) {
    const value = amount(size);
    if (Number.isInteger(value) && value > 0) return `${value}${unit}`;
  }
  return `${size.toKibibytes({ rounding: SizeRoundingBehavior.NONE })}Ki`;
}

/** The quantity text of a string, number or Size; throws naming `prop` unless it is a positive quantity. */
export function quantityOf(prop: string, value: QuantityInput): string {
  if (value instanceof Size) return validateQuantity(prop, sizeQuantity(value));
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error(`'${prop}' must be a finite number, got ${value}`);
    return validateQuantity(prop, String(value));
  }
  return validateQuantity(prop, value);
}

/** Compute resources: quantities as strings (`'500m'`, `'1Gi'`), numbers (cores, bytes) or `Size`s. */
export interface ResourceQuantities {
  /**
   * Requests, e.g. `{ cpu: '500m', memory: Size.gibibytes(1) }`.
   * @default - none
   */
  readonly requests?: Readonly<Record<string, QuantityInput>>;
  /**
   * Limits.
   * @default - none
   */
  readonly limits?: Readonly<Record<string, QuantityInput>>;
}

/** Each quantity as text, validated and named by its prop (`resources.requests.cpu`). */
export function renderQuantities(
  prop: string,
  map: Readonly<Record<string, QuantityInput>> | undefined,
): Record<string, string> | undefined {
  if (!map) return undefined;
  return Object.fromEntries(
    Object.entries(map).map(([name, value]) => [name, quantityOf(`${prop}.${name}`, value)]),
  );
}

/** Throws when a limit is below the request of the same resource: the API server refuses such a Pod. */
export function validateLimitsCoverRequests(
  prop: string,
  requests: Readonly<Record<string, string>> | undefined,
  limits: Readonly<Record<string, string>> | undefined,
): void {
  for (const [name, request] of Object.entries(requests ?? {})) {
    const limit = limits?.[name];
    if (limit === undefined) continue;
    if ((quantityBytes(limit) ?? 0) < (quantityBytes(request) ?? 0)) {
      throw new Error(
        `'${prop}.limits.${name}' must be ${limitAllowed(`'${prop}.requests.${name}'`, request)}, got ${limit}`,
      );
    }
  }
}
