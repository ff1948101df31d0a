// The signature covers the raw body bytes, so the body is read as bytes first (every content
// type, at most 1 MiB) and parsed as JSON only once authentication has passed.
import { isUtf8 } from 'node:buffer';
import express, { type RequestHandler } from 'express';
import { ApiError } from './errors.ts';

export const BODY_LIMIT_BYTES = 1024 * 1024;

declare module 'express-serve-static-core' {
  interface Request {
    /** The body exactly as received; empty when there was none. */
    rawBody: Buffer;
  }
}

declare module 'express-serve-static-core' {
  interface Locals {
    /** Why the body could not be read (over the limit, aborted); raised by `bodyReadError()`. */
    bodyError?: unknown;
  }
}

/**
 * Reads the body as bytes. A failure (413 over the limit, say) is kept, not raised: each surface
 * raises it where its answers are complete, so a public 413 still carries the rate-limit headers.
 */
export function rawBody(): RequestHandler {
  const read = express.raw({ type: () => true, limit: BODY_LIMIT_BYTES });
  const empty = Buffer.alloc(0);
  return (req, res, next) => {
    // No body announced (most GETs): nothing to read, and body-parser's checks cost a request
    // several microseconds.
    if (req.headers['content-length'] === undefined && req.headers['transfer-encoding'] === undefined) {
      req.rawBody = empty;
      return next();
    }
    read(req, res, (err?: unknown) => {
      if (err) res.locals.bodyError = err;
      req.rawBody = !err && Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      req.body = undefined;
      next();
    });
  };
}

/** Raises a body-read failure kept by `rawBody()`. */
export function bodyReadError(): RequestHandler {
  return (_req, res, next) => next(res.locals.bodyError);
}

/** The detail of a body that is not JSON at all (the MCP endpoint answers it as a JSON-RPC parse error). */
export const MALFORMED_JSON_DETAIL = { path: '/body', message: 'must be valid JSON' } as const;

/**
 * The `charset` parameter of a Content-Type, lower-cased and unquoted; undefined when absent.
 * JSON and forms are read as UTF-8 only (RFC 8259 §8.1; the WHATWG urlencoded parser): any other
 * charset named is refused with 415 rather than its bytes read as UTF-8.
 */
export function charsetOf(contentType: string): string | undefined {
  for (const param of contentType.split(';').slice(1)) {
    const eq = param.indexOf('=');
    if (eq < 0 || param.slice(0, eq).trim().toLowerCase() !== 'charset') continue;
    return param
      .slice(eq + 1)
      .trim()
      .replace(/^"(.*)"$/, '$1')
      .toLowerCase();
  }
  return undefined;
}

/** A 415 for a body whose Content-Type names a charset other than UTF-8, or undefined. */
export function foreignCharset(contentType: string): ApiError | undefined {
  const charset = charsetOf(contentType);
  if (charset === undefined || charset === 'utf-8' || charset === 'utf8') return undefined;
  return new ApiError(
    'unsupported_media_type',
    `charset=${JSON.stringify(charset.slice(0, 40))} is not supported: send the body as UTF-8 (charset=utf-8, or no charset)`,
  );
}

/** The detail of a body whose bytes are not UTF-8 (RFC 8259 §8.1): refused, never read with U+FFFD in their place. */
export const NOT_UTF8_MESSAGE = 'Request body is not valid UTF-8 (RFC 8259 §8.1)';

/** Parses the raw body as JSON for the validator and the handlers; malformed JSON is a validation_error. */
export function jsonBody(): RequestHandler {
  return (req, _res, next) => {
    if (req.rawBody.length === 0) return next();
    const type = req.get('content-type') ?? '';
    if (!/^application\/([\w.+-]*\+)?json\b/i.test(type)) {
      // Left as bytes; the validator answers 415 where the operation expects JSON.
      req.body = req.rawBody;
      return next();
    }
    const foreign = foreignCharset(type);
    if (foreign) return next(foreign);
    // toString would put U+FFFD in place of each invalid sequence, and the body would be taken
    // as something the client never sent: invalid UTF-8 is malformed JSON (RFC 8259 §8.1).
    if (!isUtf8(req.rawBody))
      return next(new ApiError('validation_error', NOT_UTF8_MESSAGE, [{ ...MALFORMED_JSON_DETAIL }]));
    try {
      req.body = JSON.parse(req.rawBody.toString('utf8')) as unknown;
      // Every JSON body of the partner and admin documents is an object. A `null` one is refused
      // here: the validator reads a oneOf's discriminator straight off the body and would crash
      // on it (POST /links answered 500).
      if (req.body === null)
        return next(
          new ApiError('validation_error', 'Request is invalid: /body must be object', [
            { path: '/body', message: 'must be object' },
          ]),
        );
      next();
    } catch (err) {
      next(
        new ApiError('validation_error', `Request body is not valid JSON: ${(err as Error).message}`, [
          { ...MALFORMED_JSON_DETAIL },
        ]),
      );
    }
  };
}
