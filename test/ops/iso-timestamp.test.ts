// pino's "time" field (server/ops/logger.ts isoTimestamp): the text Date#toISOString gives, for
// any sequence of clock readings, forwards, backwards or within one second, since the formatted
// second is reused.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isoTimestamp } from '../../server/ops/logger.ts';

const field = (ms: number) => `,"time":"${new Date(ms).toISOString()}"`;

describe('isoTimestamp', () => {
  it('gives Date#toISOString for any sequence of readings', () => {
    const instant = fc.integer({ min: 0, max: 8_640_000_000_000_000 });
    const nearby = (base: number) =>
      fc.integer({ min: -1500, max: 1500 }).map((d) => Math.min(8_640_000_000_000_000, Math.max(0, base + d)));
    fc.assert(
      fc.property(
        instant.chain((base) => fc.array(fc.oneof(nearby(base), instant), { minLength: 1, maxLength: 40 })),
        (readings) => {
          let i = 0;
          const stamp = isoTimestamp(() => readings[i] ?? 0);
          for (; i < readings.length; i++) expect(stamp()).toBe(field(readings[i] ?? 0));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('pads milliseconds below 100 and below 10', () => {
    const readings = [1_764_134_868_000, 1_764_134_868_007, 1_764_134_868_042, 1_764_134_868_999];
    let i = 0;
    const stamp = isoTimestamp(() => readings[i++] ?? 0);
    expect(readings.map(() => stamp())).toEqual([
      ',"time":"2025-11-26T05:27:48.000Z"',
      ',"time":"2025-11-26T05:27:48.007Z"',
      ',"time":"2025-11-26T05:27:48.042Z"',
      ',"time":"2025-11-26T05:27:48.999Z"',
    ]);
  });
});
