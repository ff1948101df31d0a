// The signature covers the raw body bytes, so the body is read as bytes first (every content
// type, at most 1 MiB) and parsed as JSON only once authentication has passed.
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
