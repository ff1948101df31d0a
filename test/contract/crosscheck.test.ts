// The independent cross-check (scripts/crosscheck.ts): Prism's validating proxy, a second
// validator that shares no code with ours, finds no answer of the reference server that violates
// the partner document, and it does find them when the server is broken on purpose.
import { describe, expect, it } from 'vitest';
import { crosscheck, parseViolations } from '../../scripts/crosscheck.ts';

describe('conformance traffic through prism proxy', () => {
  it('reports no response violation of the reference server (schema, idempotency)', async () => {
    const result = await crosscheck({ only: ['schema', 'idempotency'], seed: 20261122, numRuns: 5 });
    expect(result.exchanges.length).toBeGreaterThan(50);
    expect(result.responseViolations.map((v) => `${v.exchange.operation} ${v.location} ${v.message}`)).toEqual([]);
    // The suite's deliberately invalid requests are seen by Prism too: it is really validating.
    expect(result.requestViolations.some((v) => v.exchange.deliberate)).toBe(true);
    expect(result.requestViolations.filter((v) => !v.exchange.deliberate)).toEqual([]);
  }, 120_000);

  it('reports response violations when the server drops a documented field (remove-response-field)', async () => {
    const result = await crosscheck({
      only: ['schema'],
      seed: 20261122,
      numRuns: 3,
      faults: new Set(['remove-response-field']),
    });
    expect(result.responseViolations.length).toBeGreaterThan(0);
    expect(result.responseViolations.some((v) => /currency/.test(v.message))).toBe(true);
  }, 120_000);

  it('reads a header Prism cut short', () => {
    const full = JSON.stringify([
      {
        location: ['response', 'body'],
        severity: 'Error',
        code: 'required',
        message: "must have required property 'currency'",
      },
      {
        location: ['request', 'query'],
        severity: 'Error',
        code: 'required',
        message: "must have required property 'q'",
      },
    ]);
    expect(parseViolations(full).violations.map((v) => [v.side, v.location])).toEqual([
      ['response', 'body'],
      ['request', 'query'],
    ]);
    const cut = parseViolations(`Too many violations! ${full.slice(0, full.length - 40)}`);
    expect(cut.truncated).toBe(true);
    expect(cut.violations.map((v) => v.side)).toEqual(['response', 'request']);
  });
});
