import { describe, expect, it } from 'vitest';
import { parseRateLimit } from '../../client/rate-limit.ts';

describe('parseRateLimit', () => {
  it('reads the IETF draft fields (spec/shared/headers.yaml example)', () => {
    const headers = new Headers({ 'RateLimit-Policy': '"search";q=60;w=60', RateLimit: '"search";r=59;t=60' });
    expect(parseRateLimit(headers)).toEqual({
      policy: 'search',
      limit: 60,
      remaining: 59,
      resetSeconds: 60,
      windowSeconds: 60,
    });
  });
  it('falls back to the older trio', () => {
    const headers = new Headers({ 'RateLimit-Limit': '20', 'RateLimit-Remaining': '0', 'RateLimit-Reset': '17' });
    expect(parseRateLimit(headers)).toEqual({
      policy: undefined,
      limit: 20,
      remaining: 0,
      resetSeconds: 17,
      windowSeconds: undefined,
    });
  });
  it('is undefined without the fields or with garbage', () => {
    expect(parseRateLimit(new Headers())).toBeUndefined();
    expect(parseRateLimit(new Headers({ RateLimit: 'lots', 'RateLimit-Policy': 'many' }))).toBeUndefined();
  });
});
