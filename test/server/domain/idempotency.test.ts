import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  IDEMPOTENCY_RETENTION_MS,
  decideForExistingKey,
  decideIdempotency,
  requestFingerprint,
  idempotencyExpiresAt,
  isStoredOutcome,
  type IdempotencyRecord,
} from '../../../server/domain/idempotency.ts';
import { at, loadYaml } from './spec.ts';

const xIdempotency = at(loadYaml('spec/partner/paths/orders.yaml'), 'post', 'x-idempotency') as Record<string, unknown>;
const conflictExamples = at(
  loadYaml('spec/partner/components/responses.yaml'),
  'components',
  'responses',
  'OrderConflict',
  'content',
  'application/json',
  'examples',
) as Record<string, { value: { message: string } }>;

const SPEC_KEY = '5f1c0c1e-8a0e-4a55-b0f7-2d1b3c4d5e6f';
const NOW = 1_795_833_600_000;
const fp = (c: string): string => c.repeat(64);

describe('decideIdempotency (x-idempotency)', () => {
  const completed: IdempotencyRecord = { fingerprint: fp('a'), state: 'completed', expiresAt: NOW + 1 };
  const inFlight: IdempotencyRecord = { fingerprint: fp('a'), state: 'in-flight', expiresAt: NOW + 1 };

  it('executes a new key', () => {
    expect(decideIdempotency(undefined, fp('a'), SPEC_KEY, NOW)).toEqual({ action: 'execute' });
  });

  it('replays the same key with the same fingerprint', () => {
    expect(decideIdempotency(completed, fp('a'), SPEC_KEY, NOW)).toEqual({ action: 'replay' });
  });

  it('answers 409 conflict, with the spec example message, for another fingerprint', () => {
    const decision = decideIdempotency(completed, fp('b'), SPEC_KEY, NOW);
    expect(decision).toEqual({
      action: 'conflict-different-body',
      code: 'conflict',
      message: conflictExamples.conflict?.value.message,
    });
  });

  it('a call fingerprint says whether the method or path, the body, or both differed', () => {
    const body = new TextEncoder().encode('{"domains":["a.com"]}');
    const other = new TextEncoder().encode('{"domains":["b.com"]}');
    const first = requestFingerprint('POST', '/api/domains/bulk/lock', body);
    const record: IdempotencyRecord = { fingerprint: first, state: 'completed', expiresAt: NOW + 1 };
    const message = (print: string) => {
      const d = decideIdempotency(record, print, 'k1', NOW);
      return d.action === 'conflict-different-body' ? d.message : d.action;
    };
    expect(message(requestFingerprint('post', '/api/domains/bulk/lock', body))).toBe('replay');
    expect(message(requestFingerprint('POST', '/api/domains/bulk/unlock', body))).toBe(
      'Idempotency-Key "k1" was used with a different method or path',
    );
    expect(message(requestFingerprint('POST', '/api/domains/bulk/lock', other))).toBe(
      'Idempotency-Key "k1" was used with a different request body',
    );
    expect(message(requestFingerprint('POST', '/api/domains/bulk/unlock', other))).toBe(
      'Idempotency-Key "k1" was used with a different method or path and a different request body',
    );
  });

  it('answers 409 conflict with Retry-After 1 while the first request runs', () => {
    expect(at(xIdempotency, 'in-flight')).toBe('409 conflict with Retry-After 1');
    expect(decideIdempotency(inFlight, fp('a'), SPEC_KEY, NOW)).toEqual({
      action: 'conflict-in-flight',
      code: 'conflict',
      retryAfterSeconds: 1,
      message: conflictExamples.in_flight?.value.message,
    });
  });

  it('refuses another body without Retry-After even while the first runs (waiting cannot help it)', () => {
    expect(decideIdempotency(inFlight, fp('b'), SPEC_KEY, NOW).action).toBe('conflict-different-body');
  });

  it('forgets a record once it expires, and not before', () => {
    expect(decideIdempotency(completed, fp('b'), SPEC_KEY, completed.expiresAt).action).toBe('execute');
    expect(decideIdempotency(inFlight, fp('a'), SPEC_KEY, inFlight.expiresAt).action).toBe('execute');
    expect(decideIdempotency(completed, fp('b'), SPEC_KEY, completed.expiresAt - 1).action).toBe(
      'conflict-different-body',
    );
  });

  it('never executes twice under one live record', () => {
    fc.assert(
      fc.property(
        fc.constantFrom<IdempotencyRecord['state']>('in-flight', 'completed'),
        fc.boolean(),
        fc.integer({ min: 0, max: 10_000 }),
        (state, same, before) => {
          const record: IdempotencyRecord = { fingerprint: fp('a'), state, expiresAt: NOW + before + 1 };
          const decision = decideIdempotency(record, same ? fp('a') : fp('c'), SPEC_KEY, NOW);
          expect(decision.action).not.toBe('execute');
          expect(decision.action === 'replay').toBe(same && state === 'completed');
        },
      ),
    );
  });

  it('keeps keys for the retention of x-idempotency', () => {
    const hours = at(xIdempotency, 'retention-hours') as number;
    expect(IDEMPOTENCY_RETENTION_MS).toBe(hours * 3_600_000);
    expect(idempotencyExpiresAt(NOW)).toBe(NOW + hours * 3_600_000);
  });
});

describe('decideForExistingKey: a key the store would not let this request claim (both surfaces)', () => {
  const done = {
    fingerprint: fp('a'),
    state: 'done',
    expires_at: NOW + 1,
    status_code: 201,
    body: '{"ok":true}',
  } as const;
  const executing = { ...done, state: 'executing', status_code: null, body: null } as const;

  it('replays the stored answer for the same fingerprint', () => {
    expect(decideForExistingKey(done, fp('a'), SPEC_KEY, NOW)).toEqual({
      action: 'replay',
      statusCode: 201,
      body: '{"ok":true}',
    });
  });

  it('refuses another fingerprint without Retry-After', () => {
    expect(decideForExistingKey(done, fp('b'), SPEC_KEY, NOW)).toMatchObject({
      action: 'conflict-different-body',
      message: conflictExamples.conflict?.value.message,
    });
    expect(decideForExistingKey(executing, fp('b'), SPEC_KEY, NOW).action).toBe('conflict-different-body');
  });

  it('is in flight (409 with Retry-After) while executing, when done without its answer, and when expired but not taken over', () => {
    expect(decideForExistingKey(executing, fp('a'), SPEC_KEY, NOW)).toMatchObject({
      action: 'conflict-in-flight',
      retryAfterSeconds: 1,
    });
    expect(decideForExistingKey({ ...done, body: null }, fp('a'), SPEC_KEY, NOW).action).toBe('conflict-in-flight');
    expect(decideForExistingKey(done, fp('b'), SPEC_KEY, done.expires_at).action).toBe('conflict-in-flight');
  });
});

describe('which answers are stored (x-idempotency stored / not-stored)', () => {
  it('stores each listed outcome', () => {
    for (const entry of at(xIdempotency, 'stored') as string[]) {
      const [status, code] = entry.split(' ');
      expect(isStoredOutcome(Number(status), code), entry).toBe(true);
    }
  });

  it('stores none of the not-stored answers', () => {
    const codeOf: Record<string, string> = {
      '400': 'validation_error',
      '401': 'invalid_signature',
      '403': 'forbidden',
      '413': 'payload_too_large',
      '415': 'unsupported_media_type',
      '429': 'rate_limited',
    };
    for (const entry of at(xIdempotency, 'not-stored') as string[]) {
      if (entry === '5xx') {
        for (const status of [500, 502, 503, 504]) expect(isStoredOutcome(status, 'internal_error')).toBe(false);
        continue;
      }
      const [status = '', code] = entry.split(' ');
      expect(isStoredOutcome(Number(status), code ?? codeOf[status]), entry).toBe(false);
    }
  });
});
