// Form-encoded bodies (the token endpoint, the sign-in form) become an object of strings for the
// validator and the handlers. A repeated field is refused (RFC 6749 §3.1: parameters must not be
// included more than once), never silently merged or truncated.
//
// Forms are UTF-8 (the WHATWG urlencoded parser): a Content-Type naming another charset is 415,
// and bytes that are not UTF-8, sent raw or percent-encoded (`%FF`), are a 400 instead of being
// read with U+FFFD in their place (as JSON bodies, server/http/raw-body.ts).
import { isUtf8 } from 'node:buffer';
import type { RequestHandler } from 'express';
import { ApiError } from '../http/errors.ts';
import { foreignCharset } from '../http/raw-body.ts';

const hex = (byte: number | undefined) =>
  byte !== undefined && ((byte >= 0x30 && byte <= 0x39) || ((byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x66));

/** The form's bytes with every `%XX` escape decoded, as URLSearchParams decodes them before reading UTF-8. */
function percentDecoded(raw: Buffer): Buffer {
  if (!raw.includes(0x25)) return raw;
  const out = Buffer.allocUnsafe(raw.length);
  let n = 0;
  for (let i = 0; i < raw.length; i++) {
    const byte = raw[i] as number;
    if (byte === 0x25 && hex(raw[i + 1]) && hex(raw[i + 2])) {
      out[n++] = Number.parseInt(raw.toString('latin1', i + 1, i + 3), 16);
      i += 2;
    } else out[n++] = byte;
  }
  return out.subarray(0, n);
}

export function formBody(): RequestHandler {
  return (req, _res, next) => {
    if (req.rawBody.length === 0 || !/^application\/x-www-form-urlencoded\b/i.test(req.get('content-type') ?? ''))
      return next();
    const foreign = foreignCharset(req.get('content-type') ?? '');
    if (foreign) return next(foreign);
    if (!isUtf8(percentDecoded(req.rawBody)))
      return next(
        new ApiError('validation_error', 'Request body is not valid UTF-8, raw or percent-encoded', [
          { path: '/body', message: 'must be UTF-8' },
        ]),
      );
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
