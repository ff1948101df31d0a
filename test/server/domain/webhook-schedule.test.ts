import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  DELIVERY_TIMEOUT_SECONDS,
  MAX_DELIVERY_ATTEMPTS,
  RETRY_SCHEDULE_SECONDS,
  isDeliverySuccess,
  nextAttemptDelayMs,
} from '../../../server/domain/webhook-schedule.ts';
import { PARTNER_ROOT, at, loadYaml, readText } from './spec.ts';

const delivery = at(loadYaml(PARTNER_ROOT), 'x-webhook-delivery') as Record<string, unknown>;
const specSchedule = delivery['retry-schedule-seconds'] as number[];
const maxAttempts = delivery['max-attempts'] as number;

// The prose of the webhook responses: "about 10 s, 30 s, 2 min, ... and 24 h after the previous
// attempt (`X-Service-Delivery-Attempt` counts 1 to 11)".
const prose = readText(PARTNER_ROOT).replace(/\s+/g, ' ');
function proseSchedule(): number[] {
  const list = /back-off, about (.*?) after the previous attempt/.exec(prose)?.[1] ?? '';
  const unit: Record<string, number> = { s: 1, min: 60, h: 3600 };
  return [...list.matchAll(/(\d+) (s|min|h)\b/g)].map((m) => Number(m[1]) * (unit[m[2] as string] as number));
}

describe('webhook retry schedule (x-webhook-delivery)', () => {
  it('agrees with the prose of the webhook descriptions', () => {
    expect(specSchedule).toEqual(proseSchedule());
    expect(prose).toContain(`counts 1 to ${maxAttempts}`);
  });

  it('waits the spec seconds after each failed attempt', () => {
    expect([...RETRY_SCHEDULE_SECONDS]).toEqual(specSchedule);
    specSchedule.forEach((seconds, i) => expect(nextAttemptDelayMs(i + 1)).toBe(seconds * 1000));
  });

  it('gives up after max-attempts', () => {
    expect(MAX_DELIVERY_ATTEMPTS).toBe(maxAttempts);
    expect(nextAttemptDelayMs(maxAttempts - 1)).toBeDefined();
    expect(nextAttemptDelayMs(maxAttempts)).toBeUndefined();
    expect(nextAttemptDelayMs(maxAttempts + 5)).toBeUndefined();
  });

  it('allows exactly max-attempts deliveries', () => {
    let attempts = 1;
    while (nextAttemptDelayMs(attempts) !== undefined) attempts += 1;
    expect(attempts).toBe(maxAttempts);
  });

  it('scales the whole schedule for tests', () => {
    expect(nextAttemptDelayMs(1, 0.001)).toBe(10);
    fc.assert(
      fc.property(fc.integer({ min: 1, max: maxAttempts - 1 }), fc.integer({ min: 1, max: 1000 }), (attempt, k) => {
        const scale = k / 1000;
        expect(nextAttemptDelayMs(attempt, scale)).toBe(
          Math.round((specSchedule[attempt - 1] as number) * 1000 * scale),
        );
      }),
    );
  });

  it('never shortens the wait from one attempt to the next', () => {
    for (let n = 2; n < maxAttempts; n++) {
      expect(nextAttemptDelayMs(n) as number).toBeGreaterThan(nextAttemptDelayMs(n - 1) as number);
    }
  });

  it('refuses nonsense attempt numbers and scales', () => {
    for (const n of [0, -1, 1.5, Number.NaN]) expect(() => nextAttemptDelayMs(n)).toThrow(RangeError);
    for (const s of [0, -1, Number.NaN, Number.POSITIVE_INFINITY])
      expect(() => nextAttemptDelayMs(1, s)).toThrow(RangeError);
  });

  it('times out after timeout-seconds and counts any 2xx as success', () => {
    expect(DELIVERY_TIMEOUT_SECONDS).toBe(delivery['timeout-seconds']);
    expect(delivery.success).toBe('any 2xx');
    expect([200, 201, 204, 299].every(isDeliverySuccess)).toBe(true);
    expect([199, 300, 301, 404, 500].some(isDeliverySuccess)).toBe(false);
  });
});
