// Form-encoded bodies (the token endpoint, the sign-in form) become an object of strings for the
// validator and the handlers. A repeated field is refused (RFC 6749 §3.1: parameters must not be
// included more than once), never silently merged or truncated.
import type { RequestHandler } from 'express';
import { ApiError } from '../http/errors.ts';

export function formBody(): RequestHandler {
  return (req, _res, next) => {
    if (req.rawBody.length === 0 || !/^application\/x-www-form-urlencoded\b/i.test(req.get('content-type') ?? ''))
      return next();
    const fields: Record<string, string> = {};
    for (const [name, value] of new URLSearchParams(req.rawBody.toString('utf8'))) {
      if (Object.hasOwn(fields, name)) {
        return next(
          new ApiError('validation_error', `Request is invalid: the form field "${name}" is repeated`, [
            { path: `/body/${name}`, message: 'must not be repeated' },
          ]),
        );
      }
      fields[name] = value;
    }
    req.body = fields;
    next();
  };
}
