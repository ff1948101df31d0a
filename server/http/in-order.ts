// Several middlewares run as one, in order. Express's router does the same for a list of
// `router.use(...)` layers, but pays per layer for path matching, parameter processing and
// bookkeeping that middlewares mounted without a path never need; the partner pipeline has
// sixteen of them on every request (seventeen in the sandbox profile).
//
// Same contract as Express 5's router for such layers: `next()` runs the next middleware,
// `next(err)` skips the rest and hands `err` on, and a middleware that throws or returns a
// rejected promise is `next(err)` (a rejection without a reason becomes an Error, as Express
// does). There are no error-handling middlewares (four arguments) in the list.
import type { NextFunction, Request, RequestHandler, Response } from 'express';

export function inOrder(...steps: RequestHandler[]): RequestHandler {
  for (const step of steps)
    if (step.length > 3)
      throw new TypeError(`inOrder runs request middlewares only; ${step.name || 'a middleware'} takes an error`);
  return (req: Request, res: Response, done: NextFunction) => {
    let index = 0;
    const next: NextFunction = continuation((err?: unknown): void => {
      if (err) return done(err);
      const step = steps[index++];
      if (!step) return done();
      try {
        const out: unknown = step(req, res, next);
        if (isThenable(out)) out.then(undefined, (reason: unknown) => next(reason || new Error('Rejected promise')));
      } catch (thrown) {
        next(thrown);
      }
    });
    next();
  };
}

/**
 * Gives its argument back. `next` is made once per request, and under tsx (esbuild's `keepNames`,
 * how `npm start` runs the server) a function given a name by its declaration is renamed through
 * `Object.defineProperty` each time it is made, which also gives each one a map of its own; a
 * function passed as an argument has no such name, so it is made as a plain closure.
 */
const continuation = (step: (err?: unknown) => void): NextFunction => step as NextFunction;

const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  value !== null &&
  (typeof value === 'object' || typeof value === 'function') &&
  typeof (value as { then?: unknown }).then === 'function';
