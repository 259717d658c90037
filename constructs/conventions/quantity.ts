// Kubernetes resource quantities: the grammar the CRD accepts, parsed to numbers (storage sizes compared, the
// backend quota derived). One grammar for the schema, the constructs and the controller.

/** Kubernetes resource quantity grammar (as in the Kubernetes OpenAPI): `1Gi`, `500m`, `1e9`, `+.5Gi`. */
export const QUANTITY_PATTERN =
  '^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$';

/** What a resource request or limit may be, in the words of the constructs and admission. */
export const POSITIVE_QUANTITY_ALLOWED = 'a Kubernetes quantity such as 1Gi, 512Mi or 10G greater than zero';

/** What a limit may be beside the request `request` of the same resource (`requestField`). */
export const limitAllowed = (requestField: string, request: string): string =>
  `at least ${requestField} (${request}): Kubernetes refuses a limit below its request`;

const QUANTITY = new RegExp(QUANTITY_PATTERN);
const NUMBER = /^[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)/;

const SUFFIX: Record<string, number> = {
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  '': 1,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};

/** The amount of a quantity such as `1Gi`, `500M`, `1e9`, `.5Gi` or `1073741824`; `undefined` when it is not one. */
export function quantityBytes(quantity: string | number): number | undefined {
  if (typeof quantity === 'number') return Number.isFinite(quantity) ? quantity : undefined;
  const text = quantity.trim();
  if (!QUANTITY.test(text)) return undefined;
  const number = NUMBER.exec(text)?.[0] ?? '';
  const suffix = text.slice(number.length);
  const amount = Number(number);
  if (/^[eE]/.test(suffix)) return amount * 10 ** Number(suffix.slice(1));
  const factor = SUFFIX[suffix];
  return factor === undefined ? undefined : amount * factor;
}

/** Two quantities are the same amount (`1Gi` equals `1073741824`). */
export function sameQuantity(a: string | number, b: string | number): boolean {
  const left = quantityBytes(a);
  return left !== undefined && left === quantityBytes(b);
}
