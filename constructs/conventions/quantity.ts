// Kubernetes resource quantities parsed to bytes: enough to compare storage sizes and derive the backend quota.

const SUFFIX: Record<string, number> = {
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

/** Bytes of a quantity such as `1Gi`, `500M` or `1073741824`; `undefined` when it is not one. */
export function quantityBytes(quantity: string | number): number | undefined {
  if (typeof quantity === 'number') return quantity;
  const match = /^([0-9]+(?:\.[0-9]+)?)([kMGTPE]i?|)$/.exec(quantity.trim());
  const factor = match ? SUFFIX[match[2] ?? ''] : undefined;
  return match && factor !== undefined ? Number(match[1]) * factor : undefined;
}

/** Two quantities are the same amount (`1Gi` equals `1073741824`). */
export function sameQuantity(a: string | number, b: string | number): boolean {
  const left = quantityBytes(a);
  return left !== undefined && left === quantityBytes(b);
}
