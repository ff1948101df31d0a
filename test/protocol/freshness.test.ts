import { describe, expect, it } from 'vitest';
import {
  NONCE_MAX_LENGTH,
  TIMESTAMP_SKEW_SECONDS,
  checkTimestamp,
  isValidNonce,
  isValidTimestamp,
  timestampFromMillis,
} from '../../client/protocol/index.ts';

const NOW = 1_735_689_600;

describe('checkTimestamp', () => {
  it.each([
    [-301, 'skewed'],
    [-300, 'ok'],
    [-299, 'ok'],
    [0, 'ok'],
    [299, 'ok'],
    [300, 'ok'],
    [301, 'skewed'],
  ] as const)('drift %i s is %s', (drift, expected) => {
    expect(checkTimestamp(String(NOW + drift), NOW)).toBe(expected);
    expect(isValidTimestamp(String(NOW + drift), NOW)).toBe(expected === 'ok');
  });

  it('defaults to a 300 s window and honours another', () => {
    expect(TIMESTAMP_SKEW_SECONDS).toBe(300);
    expect(checkTimestamp(String(NOW + 10), NOW, 10)).toBe('ok');
    expect(checkTimestamp(String(NOW + 11), NOW, 10)).toBe('skewed');
  });

  it('truncates a fractional server clock to whole seconds', () => {
    expect(checkTimestamp(String(NOW - 300), NOW + 0.999)).toBe('ok');
    expect(checkTimestamp(String(NOW + 301), NOW + 0.999)).toBe('skewed');
  });

  it.each([
    ['eleven digits', '17356896000'],
    ['milliseconds', String(NOW * 1000)],
    ['milliseconds of a moment near now', String(Date.UTC(2025, 0, 1))],
    ['negative', '-1'],
    ['explicit plus', '+1735689600'],
    ['fraction', '1.5'],
    ['fraction of now', `${NOW}.0`],
    ['leading space', ' 1'],
    ['trailing space', `${NOW} `],
    ['trailing newline', `${NOW}\n`],
    ['empty', ''],
    ['exponent', '1.7e9'],
    ['hex', '0x10'],
    ['ISO date', '2025-01-01T00:00:00Z'],
    ['full-width digits', '１７３５６８９６００'],
    ['Arabic-Indic digits', '١٧٣٥٦٨٩٦٠٠'],
  ])('%s is malformed', (_what, header) => {
    expect(checkTimestamp(header, NOW)).toBe('malformed');
    expect(isValidTimestamp(header, NOW)).toBe(false);
  });

  it('accepts ten digits with leading zeros as a number (then judged by skew)', () => {
    expect(checkTimestamp('0000000001', NOW)).toBe('skewed');
    expect(checkTimestamp('0000000001', 1)).toBe('ok');
    expect(checkTimestamp('9999999999', 9_999_999_999)).toBe('ok');
    expect(checkTimestamp('1', 301)).toBe('ok');
    expect(checkTimestamp('1', 302)).toBe('skewed');
  });

  it('refuses a non-finite clock (a programming error, not a client error)', () => {
    expect(() => checkTimestamp('1', Number.NaN)).toThrow(RangeError);
  });
});

describe('timestampFromMillis', () => {
  it('gives whole seconds', () => {
    expect(timestampFromMillis(1_735_689_600_999)).toBe('1735689600');
    expect(checkTimestamp(timestampFromMillis(Date.now()), Date.now() / 1000)).toBe('ok');
  });
});

describe('isValidNonce', () => {
  it.each([
    ['0 characters', '', false],
    ['1 character', 'a', true],
    ['128 characters', 'x'.repeat(128), true],
    ['129 characters', 'x'.repeat(129), false],
    ['a UUID', '3f1c2a9e-7b4d-4e8a-9c61-2d5e8f0a1b7c', true],
    ['all printable ASCII', Array.from({ length: 95 }, (_, i) => String.fromCharCode(0x20 + i)).join(''), true],
    ['space', ' ', true],
    ['NUL', 'a\u0000', false],
    ['tab', 'a\tb', false],
    ['newline', 'a\nb', false],
    ['carriage return', 'a\r', false],
    ['DEL', 'a\u007f', false],
    ['é', 'nonce-é', false],
    ['U+1F600', 'nonce-😀', false],
    ['U+0080', '\u0080', false],
  ])('%s: %s', (_what, nonce, expected) => {
    expect(isValidNonce(nonce)).toBe(expected);
  });

  it('limit is 128', () => {
    expect(NONCE_MAX_LENGTH).toBe(128);
  });
});
