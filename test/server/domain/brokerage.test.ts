// The brokerage case state machine and eligibility rules against the contract's own tables.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ACTIVE_SITE_DOMAINS,
  BROKERAGE_ACTIONS,
  BROKERAGE_STATUSES,
  BROKERAGE_TRANSITIONS,
  bodyProblem,
  eligibility,
  FINAL_STATUSES,
  moveCase,
  OPEN_STATUSES,
  type BrokerageStatus,
} from '../../../server/domain/brokerage.ts';
import { at, loadYaml, PARTNER_SCHEMAS } from './spec.ts';

const ADMIN_BROKERAGE_ACTION = 'spec/admin/paths/brokerage_{case_id}_{action}.yaml';
const adminTransitions = at(loadYaml(ADMIN_BROKERAGE_ACTION), 'post', 'x-transitions') as Record<string, unknown>;
const statusSchema = at(loadYaml(PARTNER_SCHEMAS), 'components', 'schemas', 'BrokerageStatus') as {
  enum: string[];
  'x-transitions': Record<string, string[]>;
  'x-final-states': string[];
};

describe('brokerage case state machine', () => {
  it('is the admin contract’s x-transitions, member for member', () => {
    expect(JSON.parse(JSON.stringify(BROKERAGE_TRANSITIONS))).toEqual(adminTransitions);
  });

  it('has the partner contract’s statuses, final states and status graph', () => {
    expect([...BROKERAGE_STATUSES]).toEqual(statusSchema.enum);
    expect([...FINAL_STATUSES].sort()).toEqual([...statusSchema['x-final-states']].sort());
    expect([...OPEN_STATUSES].sort()).toEqual(
      BROKERAGE_STATUSES.filter((s) => !statusSchema['x-final-states'].includes(s)).sort(),
    );
    const graph = Object.fromEntries(
      BROKERAGE_STATUSES.map((s) => [
        s,
        Object.values(BROKERAGE_TRANSITIONS)
          .filter((t) => t.from.includes(s))
          .map((t) => t.to)
          .sort(),
      ]),
    );
    const expected = Object.fromEntries(
      Object.entries(statusSchema['x-transitions']).map(([s, to]) => [s, [...to].sort()]),
    );
    expect(graph).toEqual(expected);
  });

  it('allows exactly the moves of the table, and only close-deal sets the price', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...BROKERAGE_STATUSES),
        fc.constantFrom(...BROKERAGE_ACTIONS),
        fc.integer({ min: 1, max: 1e9 }),
        (status: BrokerageStatus, action, price) => {
          const t = BROKERAGE_TRANSITIONS[action];
          const result = moveCase(
            { case_id: 'brk_TEST01', status, final_price_cents: null },
            action,
            action === 'close-deal' ? price : undefined,
          );
          expect(result.ok).toBe(t.from.includes(status));
          if (result.ok) {
            expect(result.status).toBe(t.to);
            expect(result.finalPriceCents).toBe(action === 'close-deal' ? price : null);
            expect(result.webhook).toBe(result.event === 'brokerage.case_completed');
          } else {
            expect(result.message).toContain(`is ${status}`);
          }
        },
      ),
    );
  });

  it('refuses a body that does not fit the action', () => {
    expect(bodyProblem('close-deal', undefined)?.path).toBe('/body/final_price_cents');
    expect(bodyProblem('close-deal', 100)).toBeUndefined();
    for (const action of BROKERAGE_ACTIONS.filter((a) => a !== 'close-deal')) {
      expect(bodyProblem(action, 100)?.path).toBe('/body/final_price_cents');
      expect(bodyProblem(action, undefined)).toBeUndefined();
    }
  });
});

describe('brokerage eligibility', () => {
  it('names active_site first, then open_case', () => {
    expect(eligibility('dailygrind.com', true)).toEqual({
      domain: 'dailygrind.com',
      eligible: false,
      reason: 'active_site',
    });
    expect(eligibility('dailygrind.com', false).reason).toBe('active_site');
    expect(eligibility('coffeeroasters.io', true)).toEqual({
      domain: 'coffeeroasters.io',
      eligible: false,
      reason: 'open_case',
    });
    expect(eligibility('darkroastcoffee.com', false)).toEqual({
      domain: 'darkroastcoffee.com',
      eligible: true,
      reason: null,
    });
  });

  it('agrees with the contract’s eligibility examples', () => {
    const examples = at(
      loadYaml('spec/partner/paths/brokerage_eligibility.yaml'),
      'get',
      'responses',
      '200',
      'content',
      'application/json',
      'examples',
    ) as Record<string, { value: { domain: string; reason: string | null } }>;
    expect(ACTIVE_SITE_DOMAINS.has(examples.active_site!.value.domain)).toBe(true);
    expect(ACTIVE_SITE_DOMAINS.has(examples.eligible!.value.domain)).toBe(false);
    expect(ACTIVE_SITE_DOMAINS.has(examples.open_case!.value.domain)).toBe(false);
  });
});
