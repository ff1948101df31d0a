import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  decideRateLimit,
  rateLimitClassOf,
  rateLimitClasses,
  rateLimitHeaders,
} from '../../../server/domain/rate-limit.ts';
import { PARTNER_ROOT, at, loadYaml } from './spec.ts';

const partner = loadYaml(PARTNER_ROOT);
const headerSpecs = at(loadYaml('spec/shared/headers.yaml'), 'components', 'headers') as Record<
  string,
  { schema: { pattern?: string } }
>;
const T0 = 1_795_833_600_000;

describe('rateLimitClasses', () => {
  it('reads the classes of x-rate-limit-classes from the partner document: 60, 20 and 30 per minute', () => {
    const classes = rateLimitClasses(partner);
    expect(Object.keys(classes).sort()).toEqual(['reporting', 'search', 'write']);
    expect(classes.search).toMatchObject({ quota: 60, windowSeconds: 60 });
    expect(classes.write).toMatchObject({ quota: 20, windowSeconds: 60 });
    expect(classes.reporting).toMatchObject({ quota: 30, windowSeconds: 60 });
  });

  it('refuses a document without usable classes', () => {
    expect(() => rateLimitClasses({})).toThrow(TypeError);
    expect(() => rateLimitClasses(null)).toThrow(TypeError);
    expect(() =>
      rateLimitClasses({ 'x-rate-limit-classes': { search: { quota: '60', 'window-seconds': 60 } } }),
    ).toThrow(TypeError);
    expect(() =>
      rateLimitClasses({ 'x-rate-limit-classes': { 'Search!': { quota: 60, 'window-seconds': 60 } } }),
    ).toThrow(TypeError);
  });
});

describe('decideRateLimit', () => {
  it('gives the first request of a window the headers of the RateLimit example', () => {
    const d = decideRateLimit({ limit: 60, windowSeconds: 60, now: T0, count: 0, windowStart: undefined });
    expect(d).toMatchObject({ allowed: true, count: 1, windowStart: T0, remaining: 59, resetSeconds: 60 });
    const headers = rateLimitHeaders('search', { limit: 60, windowSeconds: 60 }, d);
    expect(headers['RateLimit-Policy']).toBe('"search";q=60;w=60');
    expect(headers.RateLimit).toBe('"search";r=59;t=60');
    expect(headers['RateLimit-Limit']).toBe('60');
    expect(headers['RateLimit-Remaining']).toBe('59');
    expect(headers['RateLimit-Reset']).toBe('60');
    expect(headers['Retry-After']).toBeUndefined();
  });

  it('admits exactly the quota in a window, then refuses with Retry-After', () => {
    let state = { count: 0, windowStart: undefined as number | undefined };
    const allowed: boolean[] = [];
    for (let i = 0; i < 25; i++) {
      const d = decideRateLimit({ limit: 20, windowSeconds: 60, now: T0 + i * 1000, ...state });
      allowed.push(d.allowed);
      state = { count: d.count, windowStart: d.windowStart };
      if (!d.allowed) {
        expect(d.remaining).toBe(0);
        expect(d.retryAfterSeconds).toBe(60 - i);
        const h = rateLimitHeaders('write', { limit: 20, windowSeconds: 60 }, d);
        expect(h['Retry-After']).toBe(String(60 - i));
      }
    }
    expect(allowed.filter(Boolean)).toHaveLength(20);
    expect(allowed.indexOf(false)).toBe(20);
  });

  it('opens a new window once the old one ends, not a millisecond before', () => {
    const full = { limit: 1, windowSeconds: 60, count: 1, windowStart: T0 };
    expect(decideRateLimit({ ...full, now: T0 + 59_999 })).toMatchObject({
      allowed: false,
      retryAfterSeconds: 1,
      resetSeconds: 1,
    });
    expect(decideRateLimit({ ...full, now: T0 + 60_000 })).toMatchObject({
      allowed: true,
      windowStart: T0 + 60_000,
      remaining: 0,
      resetSeconds: 60,
    });
  });

  it('keeps every number within its bounds', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1000 }),
        fc.integer({ min: 1, max: 3600 }),
        fc.integer({ min: 0, max: 1100 }),
        fc.option(fc.integer({ min: -(10 ** 7), max: 10 ** 7 }), { nil: undefined }),
        fc.integer({ min: 0, max: 10 ** 7 }),
        (limit, windowSeconds, count, startOffset, elapsed) => {
          const windowStart = startOffset === undefined ? undefined : T0 + startOffset;
          const now = T0 + elapsed;
          const d = decideRateLimit({ limit, windowSeconds, now, count: Math.min(count, limit), windowStart });
          expect(d.remaining).toBeGreaterThanOrEqual(0);
          expect(d.remaining).toBeLessThanOrEqual(limit);
          expect(d.count).toBeLessThanOrEqual(limit);
          expect(Number.isInteger(d.resetSeconds)).toBe(true);
          expect(d.resetSeconds).toBeGreaterThanOrEqual(1);
          expect(d.resetSeconds).toBeLessThanOrEqual(windowSeconds);
          expect(d.allowed).toBe(d.retryAfterSeconds === undefined);
          if (!d.allowed) {
            expect(Number.isInteger(d.retryAfterSeconds)).toBe(true);
            expect(d.retryAfterSeconds).toBeGreaterThanOrEqual(1);
          }
          const inWindow = windowStart !== undefined && now < windowStart + windowSeconds * 1000;
          expect(d.allowed).toBe((inWindow ? Math.min(count, limit) : 0) < limit);
        },
      ),
    );
  });

  it('formats headers that match the patterns of the spec', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('search', 'write', 'reporting', 'public_api'),
        fc.nat(500),
        fc.integer({ min: 1, max: 3600 }),
        fc.nat(10_000),
        (name, limit, windowSeconds, t) => {
          const d = decideRateLimit({ limit, windowSeconds, now: T0 + t, count: limit, windowStart: T0 });
          const h = rateLimitHeaders(name, { limit, windowSeconds }, d);
          for (const header of ['RateLimit-Policy', 'RateLimit']) {
            expect(h[header]).toMatch(new RegExp(headerSpecs[header]?.schema.pattern as string));
          }
          for (const header of ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'Retry-After']) {
            if (h[header] !== undefined) expect(h[header]).toMatch(/^\d+$/);
          }
          if (h['Retry-After'] !== undefined) expect(Number(h['Retry-After'])).toBeGreaterThanOrEqual(1);
        },
      ),
    );
  });

  it('refuses class names the header pattern cannot carry', () => {
    const d = decideRateLimit({ limit: 1, windowSeconds: 1, now: T0, count: 0, windowStart: undefined });
    for (const bad of ['Search', 'se"arch', 'a;b', ''])
      expect(() => rateLimitHeaders(bad, { limit: 1, windowSeconds: 1 }, d)).toThrow(RangeError);
  });
});

describe('rateLimitClassOf', () => {
  it('gives each class with its name, made once and frozen, and the fallback for an unknown path', () => {
    const classes = rateLimitClasses(partner);
    const search = rateLimitClassOf(classes, 'search', undefined);
    expect(search).toEqual({ ...classes.search, name: 'search' });
    // Looked up on every counted request: the same object each time, which no caller may change.
    expect(rateLimitClassOf(classes, 'search', 'write')).toBe(search);
    expect(Object.isFrozen(search)).toBe(true);
    expect(rateLimitClassOf(classes, undefined, 'write')).toEqual({ ...classes.write, name: 'write' });
    // Another document's classes are other objects, even under the same name.
    const other = { search: { quota: 1, windowSeconds: 1 } };
    expect(rateLimitClassOf(other, 'search', undefined)).toEqual({ quota: 1, windowSeconds: 1, name: 'search' });
  });

  it('throws for a class the document lacks, an inherited name included, and for none at all', () => {
    const classes = rateLimitClasses(partner);
    for (const name of ['nope', 'toString', '__proto__'])
      expect(() => rateLimitClassOf(classes, name, undefined), name).toThrow(/Unknown rate-limit class/);
    expect(() => rateLimitClassOf(classes, undefined, undefined)).toThrow(/No rate-limit class/);
  });
});
