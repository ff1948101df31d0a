// Middlewares run as one (server/http/in-order.ts), with Express 5's router semantics for
// middlewares mounted without a path: order, next(err), throws and rejected promises.
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { describe, expect, it } from 'vitest';
import { inOrder } from '../../server/http/in-order.ts';

const req = {} as Request;
const res = {} as Response;

/** Runs the composed middleware; resolves with what it handed on (undefined: all ran). */
const run = (handler: RequestHandler) =>
  new Promise<{ err: unknown }>((resolve) => {
    void handler(req, res, ((err?: unknown) => resolve({ err })) as NextFunction);
  });

describe('inOrder', () => {
  it('runs every middleware in order, synchronous or not, then hands on with nothing', async () => {
    const seen: string[] = [];
    const out = await run(
      inOrder(
        (_q, _s, next) => {
          seen.push('a');
          next();
        },
        async (_q, _s, next) => {
          await new Promise((resolve) => setTimeout(resolve, 5));
          seen.push('b');
          next();
        },
        (_q, _s, next) => {
          seen.push('c');
          next();
        },
      ),
    );
    expect(seen).toEqual(['a', 'b', 'c']);
    expect(out.err).toBeUndefined();
  });

  it('next(err), a throw and a rejection each skip the rest and hand the error on', async () => {
    for (const failing of [
      ((_q, _s, next) => next(new Error('passed'))) as RequestHandler,
      (() => {
        throw new Error('thrown');
      }) as RequestHandler,
      (async () => {
        throw new Error('rejected');
      }) as RequestHandler,
    ]) {
      let after = false;
      const out = await run(
        inOrder(
          (_q, _s, next) => next(),
          failing,
          () => void (after = true),
        ),
      );
      expect(out.err).toBeInstanceOf(Error);
      expect(['passed', 'thrown', 'rejected']).toContain((out.err as Error).message);
      expect(after).toBe(false);
    }
  });

  it('a rejection without a reason becomes an Error, as in Express', async () => {
    const out = await run(inOrder(() => Promise.reject(undefined)));
    expect((out.err as Error).message).toBe('Rejected promise');
  });

  it('a middleware that answers and does not call next ends the chain', async () => {
    let after = false;
    let answered = false;
    const handler = inOrder(
      () => void (answered = true),
      () => void (after = true),
    );
    void handler(req, res, (() => {
      throw new Error('must not be handed on');
    }) as NextFunction);
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(answered).toBe(true);
    expect(after).toBe(false);
  });

  it('refuses an error-handling middleware (four arguments), which Express would skip on the way', () => {
    const errorHandler = ((_err: unknown, _q: Request, _s: Response, next: NextFunction) =>
      next()) as unknown as RequestHandler;
    expect(() => inOrder(errorHandler)).toThrow(/request middlewares only/);
  });
});
