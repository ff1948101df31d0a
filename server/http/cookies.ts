// The one home of the cookies the server sets (the public document: `ds_csrf` of the sign-in page,
// `ds_ref` of referral links) and of reading them back. Every cookie is `HttpOnly` and
// `SameSite=Lax`, and `Secure` exactly when the deployment's base URL is https: decided by the
// base every absolute URL is built on (PUBLIC_BASE_URL), never by the `Host` a request names,
// which behind a proxy is an internal name.
import type { Request, Response } from 'express';

export interface Cookie {
  name: string;
  /** A value of cookie-octets only (RFC 6265 §4.1.1): the server's own ids and tokens. */
  value: string;
  path: string;
  maxAgeSeconds: number;
}

const COOKIE_OCTETS = /^[\x21\x23-\x2B\x2D-\x3A\x3C-\x5B\x5D-\x7E]*$/;
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** The Set-Cookie value of a cookie on the deployment whose base URL is `baseUrl`. */
export function cookieHeader(cookie: Cookie, baseUrl: string): string {
  if (!TOKEN.test(cookie.name) || !COOKIE_OCTETS.test(cookie.value) || !/^\/[\x21-\x3A\x3C-\x7E]*$/.test(cookie.path))
    throw new Error(`cookie ${cookie.name} has a name, value or path outside RFC 6265`);
  const secure = baseUrl.startsWith('https:') ? '; Secure' : '';
  return `${cookie.name}=${cookie.value}; Max-Age=${cookie.maxAgeSeconds}; Path=${cookie.path}; HttpOnly; SameSite=Lax${secure}`;
}

/** Adds the cookie to the answer (beside any other Set-Cookie already set). */
export function setCookie(res: Response, cookie: Cookie, baseUrl: string): void {
  const existing = res.getHeader('Set-Cookie');
  const others = existing === undefined ? [] : Array.isArray(existing) ? existing : [String(existing)];
  res.setHeader('Set-Cookie', [...others, cookieHeader(cookie, baseUrl)]);
}

/** The value of the request's cookie `name`, if it sent one. */
export function readCookie(req: Request, name: string): string | undefined {
  for (const part of (req.get('cookie') ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}
