// What the partner route modules share: their dependencies and the request's caller.
import type { Request, Response } from 'express';
import type { Clock } from '../clock.ts';
import type { Faults } from '../faults.ts';
import { cursorList, type CursorList } from '../http/cursor-list.ts';
import { isDateTime, isFullDate } from '../domain/calendar.ts';
import { ApiError } from '../http/errors.ts';
import type { Credential, Partner } from '../store/credentials.ts';
import type { Store } from '../store/index.ts';

export interface PartnerDeps {
  store: Store;
  clock: Clock;
  keys: { quotes: Buffer; cursors: Buffer };
  /** Tells the webhook dispatcher that new deliveries are waiting. */
  notifyOutbox: () => void;
  /** Test-only breakage for the conformance suite's proof of power (server/faults.ts). */
  faults?: Faults;
  /** Base of the absolute URLs handed out (server/http/trusted-host.ts). */
  baseUrl(req: Request): string;
}

export interface Caller {
  credential: Credential;
  /** The caller's partner: its id and its test clock. */
  partner: Pick<Partner, 'id' | 'clockOffsetMs'>;
  /** Real time, ms. */
  now: number;
  /** The partner's business time (its sandbox test clock), ms. */
  businessNow: number;
}

/** The request's authenticated credential (partner-auth put it there). */
export function credentialOf(res: Response): Credential {
  const credential = res.locals.credential;
  if (!credential) throw new Error('route reached without an authenticated credential');
  return credential;
}

/** The caller at `now`, from its credential and its partner as read (undefined: it no longer exists). */
export function callerFrom(
  credential: Credential,
  partner: Pick<Partner, 'clockOffsetMs'> | undefined,
  now: number,
): Caller {
  if (!partner) throw new ApiError('forbidden', 'The partner of this credential no longer exists');
  return {
    credential,
    partner: { id: credential.partnerId, clockOffsetMs: partner.clockOffsetMs },
    now,
    businessNow: now + partner.clockOffsetMs,
  };
}

export async function callerOf(deps: PartnerDeps, res: Response): Promise<Caller> {
  const credential = credentialOf(res);
  const partner = await deps.store.credentials.findPartner(credential.partnerId, res.locals.readMark);
  return callerFrom(credential, partner, deps.clock.now());
}

/** A single query parameter as a string (the validator has checked its form). */
export function queryString(req: Request, name: string): string | undefined {
  const value = req.query[name];
  return typeof value === 'string' ? value : undefined;
}

/**
 * An integer query parameter. The validator has checked its form and, coercing types, may have
 * turned it into a number already, so both forms are read.
 */
export function queryInteger(req: Request, name: string): number | undefined {
  const value = req.query[name];
  if (typeof value === 'number') return value;
  return typeof value === 'string' && value !== '' ? Number(value) : undefined;
}

/** A partner list's cursor list (http/cursor-list.ts): `limit` (default 50) and the cursor, bound to these filters. */
export function partnerCursorList(
  deps: PartnerDeps,
  req: Request,
  scope: string,
  filters: readonly string[],
): CursorList {
  return cursorList(deps.keys.cursors, {
    scope,
    binding: Object.fromEntries(filters.map((f) => [f, queryString(req, f) ?? null])),
    limit: queryInteger(req, 'limit') ?? 50,
    cursor: queryString(req, 'cursor'),
  });
}

/** `from`/`to` accept an RFC 3339 date-time or a full-date (midnight UTC). */
export function parseInstant(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const date = isFullDate(value);
  const ms = date || isDateTime(value) ? Date.parse(date ? `${value}T00:00:00Z` : value) : Number.NaN;
  if (Number.isNaN(ms)) throw new ApiError('validation_error', `"${value}" is not an RFC 3339 date-time or full-date`);
  return ms;
}

/** A date window: `from` inclusive, `to` exclusive, each absent when not sent (ms). */
export interface DateWindow {
  from: number | undefined;
  to: number | undefined;
}

/**
 * The date window of every operation that takes `from` and `to` (the From and To parameters):
 * each an instant (parseInstant), and `to` later than `from` when both are sent. An empty or
 * inverted window would answer an empty list (or reversed analytics) that looks like "nothing
 * happened"; it is the caller's mistake, so it is refused.
 */
export function dateWindow(req: Request): DateWindow {
  const from = parseInstant(queryString(req, 'from'));
  const to = parseInstant(queryString(req, 'to'));
  if (from !== undefined && to !== undefined && to <= from) {
    const message = 'must be later than from (the window is from inclusive to to exclusive)';
    throw new ApiError(
      'validation_error',
      `to "${queryString(req, 'to') ?? ''}" ${message}: from is "${queryString(req, 'from') ?? ''}"`,
      [{ path: '/query/to', message }],
    );
  }
  return { from, to };
}
