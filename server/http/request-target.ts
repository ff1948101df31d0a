// The request target, made safe for Express's router before it sees it (each document's
// `x-request-target`). Express's router parses `req.url` itself, before any middleware: a target
// it cannot parse (`http://[`, `http://`, `http://xn--/…`) skips every middleware and gets
// finalhandler's HTML 404 (no Host check, no request id, no log line), and a target with an
// invalid port (`http://127.0.0.1:-1/…`) goes to Node's legacy url.parse, which warns (DEP0170)
// and will one day throw. So the target is read here first, with the WHATWG parser:
// - the origin form (`/path?query`) and the asterisk form (`*`) are left as they are;
// - the absolute form (`http://host/path`) is routed on its path and query; its authority must
//   pass the Host check too (trusted-host.ts), and `sentTarget` keeps it for the partner surface,
//   which refuses that form (x-signing `request-target`);
// - anything else is routed as `/` and refused by `refuseMalformedTarget` with 400
//   `validation_error` once the request id, the log line, the security headers and the Host check
//   have run.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Express, RequestHandler } from 'express';
import { ApiError } from './errors.ts';

/** Targets found malformed at the app's entry, with the target as sent. */
const malformed = new WeakMap<IncomingMessage, string>();
/** Absolute-form targets, as sent (`req.originalUrl` holds their path and query). */
const absolute = new WeakMap<IncomingMessage, string>();

/** The request target as the client sent it (the absolute form included), for the steps that judge its form. */
export function sentTarget(req: IncomingMessage & { originalUrl?: string }): string {
  return absolute.get(req) ?? req.originalUrl ?? req.url ?? '';
}

/** The authority of a URL as its text has it, before a parser rewrites it (`0x7f.1` into `127.0.0.1`). */
const AUTHORITY = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)/i;

/** The authority (`host[:port]`) of an absolute-form target, as sent; undefined for any other form. */
export function targetAuthority(req: IncomingMessage): string | undefined {
  const sent = absolute.get(req);
  return sent === undefined ? undefined : AUTHORITY.exec(sent)?.[1]?.toLowerCase();
}

/** What Express's router should route `target` on; undefined when the target is malformed. */
export function routableTarget(target: string): string | undefined {
  // A fragment is the client's own business and never sent (RFC 9112 §3.2).
  if (target.includes('#')) return undefined;
  if (target.startsWith('/') || target === '*') return target;
  // Userinfo in a request target is an error (RFC 9110 §4.2.4): `http://evil.com@host/`.
  if (AUTHORITY.exec(target)?.[1]?.includes('@')) return undefined;
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  // `pathname` and `search` as the WHATWG parser serialises them (already percent-encoded).
  return `${url.pathname}${url.search}`;
}

/**
 * Reads each request's target before Express's router does (see the top of this file). Express
 * calls `app.handle` for every request and gives no middleware a turn before its router parses
 * the target, so this is the one place it can be done inside the app itself.
 */
export function acceptEveryRequestTarget(
  app: Express,
  /** Test-only (server/faults.ts `absolute-target-path-signed`): route the absolute form as if its path had been sent. */
  options: { forgetAbsoluteForm?: boolean } = {},
): void {
  type Handle = (req: IncomingMessage, res: ServerResponse, done?: (err?: unknown) => void) => void;
  const target = app as unknown as { handle: Handle };
  const handle = target.handle.bind(app);
  target.handle = (req, res, done) => {
    const sent = req.url ?? '';
    const routable = routableTarget(sent);
    if (routable === undefined) {
      malformed.set(req, sent);
      req.url = '/';
    } else if (routable !== sent) {
      // Every step routes on the path and query; `sentTarget` keeps the form the client chose.
      if (!options.forgetAbsoluteForm) absolute.set(req, sent);
      req.url = routable;
    }
    handle(req, res, done);
  };
}

/** 400 `validation_error` for a target `acceptEveryRequestTarget` found malformed. */
export function refuseMalformedTarget(): RequestHandler {
  return (req, _res, next) => {
    const sent = malformed.get(req);
    if (sent === undefined) return next();
    next(
      new ApiError(
        'validation_error',
        `The request target ${JSON.stringify(sent.slice(0, 200))} is malformed: send a path starting with "/", without a fragment or userinfo (RFC 9112 §3.2)`,
        [{ path: '/request-target', message: 'is not a valid origin-form or absolute-form target' }],
      ),
    );
  };
}
