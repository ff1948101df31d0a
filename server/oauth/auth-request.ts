// The state of the sign-in page. The authorization request, once validated, travels in the
// form as a signed 10-minute `auth_request` token (no server-side session), and the form is
// CSRF-protected by a double-submit cookie: `csrf_token` must equal the cookie, and the
// auth_request is bound to that same value, so a form can only be posted with the cookie of the
// browser that loaded it. Each token also carries a random id, so the one decision it allows
// (approve or deny) can be recorded and a second one refused (authorize.ts, consumeAuthRequest).
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { open, seal } from '../domain/signed-token.ts';

export const AUTH_REQUEST_TTL_MS = 10 * 60 * 1000;
export const CSRF_COOKIE = 'ds_csrf';
const CSRF_FORM = /^[A-Za-z0-9_-]{16,256}$/;
const PURPOSE = 'oauth-auth-request';
const PREFIX = 'ar_';

/** A validated authorization request, as the consent form carries it. */
export interface AuthRequest {
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  state: string | undefined;
  scope: string;
  resource: string;
}

interface Payload {
  /** A random id: the request's single decision is recorded under it. */
  i: string;
  c: string;
  r: string;
  cc: string;
  s?: string;
  sc: string;
  rs: string;
  /** Binding to the CSRF value. */
  x: string;
  /** Expiry, epoch ms. */
  e: number;
}

export const newCsrfToken = () => randomBytes(24).toString('base64url');
export const isCsrfToken = (value: string | undefined): value is string => value !== undefined && CSRF_FORM.test(value);

const binding = (key: Uint8Array, csrf: string) =>
  createHmac('sha256', key).update(`oauth-csrf\0${csrf}`).digest('base64url').slice(0, 22);

export function sealAuthRequest(key: Uint8Array, request: AuthRequest, csrf: string, now: number): string {
  const payload: Payload = {
    i: randomBytes(16).toString('base64url'),
    c: request.clientId,
    r: request.redirectUri,
    cc: request.codeChallenge,
    ...(request.state !== undefined ? { s: request.state } : {}),
    sc: request.scope,
    rs: request.resource,
    x: binding(key, csrf),
    e: now + AUTH_REQUEST_TTL_MS,
  };
  return seal(key, PURPOSE, PREFIX, JSON.stringify(payload));
}

export type OpenedAuthRequest =
  | {
      ok: true;
      request: AuthRequest;
      /** The token's own id and expiry (epoch ms): what its single decision is recorded under, and until when. */
      id: string;
      expiresAt: number;
    }
  | { ok: false; problem: 'csrf' | 'invalid' | 'expired' };

/** Checks the CSRF pair and the token; the request it carries, or why the form cannot be used. */
export function openAuthRequest(
  key: Uint8Array,
  token: string,
  csrfCookie: string | undefined,
  csrfField: string | undefined,
  now: number,
): OpenedAuthRequest {
  if (!isCsrfToken(csrfCookie) || !isCsrfToken(csrfField) || csrfCookie.length !== csrfField.length)
    return { ok: false, problem: 'csrf' };
  if (!timingSafeEqual(Buffer.from(csrfCookie), Buffer.from(csrfField))) return { ok: false, problem: 'csrf' };
  const opened = open(key, PURPOSE, PREFIX, token);
  if (!opened.ok) return { ok: false, problem: 'invalid' };
  const p = opened.payload as Partial<Payload>;
  if (
    typeof p.i !== 'string' ||
    typeof p.c !== 'string' ||
    typeof p.r !== 'string' ||
    typeof p.cc !== 'string' ||
    typeof p.sc !== 'string' ||
    typeof p.rs !== 'string' ||
    typeof p.x !== 'string' ||
    typeof p.e !== 'number'
  ) {
    return { ok: false, problem: 'invalid' };
  }
  if (p.x !== binding(key, csrfCookie)) return { ok: false, problem: 'csrf' };
  if (now >= p.e) return { ok: false, problem: 'expired' };
  return {
    ok: true,
    id: p.i,
    expiresAt: p.e,
    request: {
      clientId: p.c,
      redirectUri: p.r,
      codeChallenge: p.cc,
      state: typeof p.s === 'string' ? p.s : undefined,
      scope: p.sc,
      resource: p.rs,
    },
  };
}
