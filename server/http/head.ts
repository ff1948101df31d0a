// HEAD answered as the GET it stands for (each document's `x-head`, RFC 9110 §9.3.2): routing
// maps HEAD to the GET operation (server/contract/index.ts), Express drops the body and keeps
// the GET's Content-Length. Express's res.send ends a HEAD answer with an empty end(), so the
// steps that derive a header from the body at end() (the HTML pages' CSP hashes of their inline
// styles: security-headers.ts) would see none; this step hands the body that was sent on to
// end(), where Node writes the headers and, for HEAD, no body bytes (RFC 9110 §9.3.2).
import type { RequestHandler, Response } from 'express';

export function headAsGet(): RequestHandler {
  return (req, res, next) => {
    if (req.method !== 'HEAD') return next();
    let sent: unknown;
    const send = res.send;
    const end = res.end;
    res.send = function (this: Response, body?: unknown) {
      sent = body;
      return send.call(this, body);
    } as Response['send'];
    res.end = function (this: Response, ...args: unknown[]) {
      const given = args.length === 0 && (typeof sent === 'string' || Buffer.isBuffer(sent)) ? [sent] : args;
      return (end as (...a: unknown[]) => Response).apply(this, given);
    } as Response['end'];
    next();
  };
}
