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

/** 2^53 − 1: the bound of every amount and every total (the shared `Cents` schema). */
export const MAX_CENTS = Number.MAX_SAFE_INTEGER;

/**
 * A total the store summed, exactly: SQL sums are read as text (`cast(sum(x) as text)`), since a
 * driver hands a large integer back as a double and rounds it (27021597764222977 became …976).
 * Throws rather than report a total the contract's number cannot carry exactly (past 2^53 − 1).
 */
export function exactCents(value: string | number | bigint | null | undefined): number {
  if (value === null || value === undefined) return 0;
  if (typeof value === 'number' && !Number.isSafeInteger(value))
    throw new RangeError(`not an exact integer number of cents: ${value}`);
  const exact = BigInt(value);
  if (exact > BigInt(MAX_CENTS) || exact < -BigInt(MAX_CENTS))
    throw new RangeError(`a total of ${exact} cents is past 2^53 - 1: it cannot be reported exactly`);
  return Number(exact);
}

/**
 * `1,234,567.89`: cents written from integers, never through a float (`cents / 100` rounded
 * 9007199254740991 to …409.90, a cent off).
 */
export function formatCents(cents: number): string {
  assertCents(cents, 'cents');
  const fraction = cents % 100;
  const whole = (cents - fraction) / 100;
  return `${whole.toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',')}.${String(fraction).padStart(2, '0')}`;
}
