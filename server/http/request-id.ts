// Every answer carries X-Request-Id: the caller's own when it is usable, else a fresh one.
import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';

const USABLE = /^[\x21-\x7e]{1,128}$/;

export function requestId(): RequestHandler {
  return (req, res, next) => {
    const given = req.get('x-request-id');
    // randomUUID draws from a buffered pool of entropy; randomBytes asks the system every time.
    const id = given && USABLE.test(given) ? given : `req_${randomUUID()}`;
    res.locals.requestId = id;
    res.setHeader('X-Request-Id', id);
    next();
  };
}
