/**
 * Integer-cent arithmetic. Money never passes through a float: commissions are computed per
 * order with the spec's formula and totals are sums of those cents, so a statement always
 * reconciles to its rows (x-commission-defaults).
 */

/** Basis points per whole (100 %). */
export const BPS_SCALE = 10_000;

/** The defaults of `x-commission-defaults`, in basis points; per-partner settings override them. */
export const COMMISSION_DEFAULTS_BPS = {
  partnerCollected: 1000,
  serviceCollected: 1000,
  referral: 500,
  brokerage: 1000,
} as const;

export function isCents(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

function assertCents(value: number, name: string): void {
  if (!isCents(value)) throw new RangeError(`${name} must be a non-negative integer number of cents, got ${value}`);
}

/**
 * `(sale_price_cents * bps + 5000) / 10000`, truncated: half up to a whole cent. Computed in
 * BigInt because the product leaves the exact range of a double above about 9e11 dollars.
 */
export function commissionCents(priceCents: number, bps: number): number {
  assertCents(priceCents, 'priceCents');
  if (!Number.isSafeInteger(bps) || bps < 0) throw new RangeError(`bps must be a non-negative integer, got ${bps}`);
  const half = BigInt(BPS_SCALE / 2);
  const result = (BigInt(priceCents) * BigInt(bps) + half) / BigInt(BPS_SCALE);
  if (result > BigInt(Number.MAX_SAFE_INTEGER)) throw new RangeError('commission exceeds the safe integer range');
  return Number(result);
}

/** Exact sum; throws rather than lose a cent past 2^53. Amounts may be negative (reversals). */
export function sumCents(values: Iterable<number>): number {
  let total = 0;
  for (const v of values) {
    if (!Number.isSafeInteger(v)) throw new RangeError(`not an integer number of cents: ${v}`);
    total += v;
    if (!Number.isSafeInteger(total)) throw new RangeError('sum exceeds the safe integer range');
  }
  return total;
}
