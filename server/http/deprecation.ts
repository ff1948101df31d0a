// Answers of a deprecated operation announce it (each document's "Versioning" paragraph, the operation's `x-deprecation`): `Deprecation: @<unix-seconds>`
// (RFC 9745), `Sunset: <IMF-fixdate>` (RFC 8594) and `Link: <notice>; rel="deprecation"`. The
// dates come from the operation's `x-deprecation` in the spec.
import type { RequestHandler } from 'express';

export function deprecationHeaders(): RequestHandler {
  return (_req, res, next) => {
    const deprecation = res.locals.operation?.deprecation;
    if (deprecation) {
      res.setHeader('Deprecation', `@${Math.floor(deprecation.at / 1000)}`);
      res.setHeader('Sunset', new Date(deprecation.sunset).toUTCString());
      res.setHeader('Link', `<${deprecation.link}>; rel="deprecation"`);
    }
    next();
  };
}
