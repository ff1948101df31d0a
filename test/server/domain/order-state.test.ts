import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  FINAL_STATUSES,
  OPERATOR_ACTIONS,
  OPERATOR_TRANSITIONS,
  ORDER_MOVES,
  ORDER_STATUSES,
  PARTNER_REFUND_TRANSITION,
  PAYMENT_MODELS,
  SETTLE_TRANSITION,
  initialState,
  reachableStatuses,
  transition,
  type OrderMove,
  type OrderState,
  type OrderStatus,
  type PaymentModel,
} from '../../../server/domain/order-state.ts';
import { ADMIN_ORDER_ACTION, at, loadYaml, partnerSchema } from './spec.ts';

interface SpecRule {
  from: string[];
  to: string | Record<string, string>;
  event: string;
  webhook: boolean;
  'also-writes': Array<{ event: string; webhook: boolean }>;
}

const adminOp = at(loadYaml(ADMIN_ORDER_ACTION), 'post');
const specTransitions = at(adminOp, 'x-transitions') as Record<string, SpecRule>;
const orderStatus = partnerSchema('OrderStatus') as {
  enum: string[];
  'x-transitions': Record<string, string[]>;
  'x-final-states': string[];
};
const eventType = partnerSchema('EventType') as { 'x-delivered': string[]; 'x-history-only': string[] };
const refundDescription = at(loadYaml('spec/partner/paths/refunds.yaml'), 'post', 'description') as string;

// "(from `EXTERNALLY_PAID`, `MANUAL_REVIEW` or `TRANSFER_IN_PROGRESS`)" in POST /refunds.
const partnerRefundFrom = [...(/\(from ([^)]*)\)/.exec(refundDescription)?.[1] ?? '').matchAll(/`([A-Z_]+)`/g)].map(
  (m) => m[1],
);

/** What the spec says a move does, independently of the code under test. */
function specOutcome(
  move: OrderMove,
  status: OrderStatus,
  model: PaymentModel,
): { to: string; events: Array<{ type: string; delivered: boolean }> } | undefined {
  if (move === 'settle') {
    // The only move out of TRANSFER_COMPLETED is the settlement run; its event is order.settled.
    return orderStatus['x-transitions'][status]?.includes('SETTLED')
      ? {
          to: 'SETTLED',
          events: [{ type: 'order.settled', delivered: eventType['x-delivered'].includes('order.settled') }],
        }
      : undefined;
  }
  if (move === 'partner-refund') {
    return model === 'partner_collected' && partnerRefundFrom.includes(status)
      ? { to: 'REFUNDED', events: [{ type: 'order.refunded', delivered: true }] }
      : undefined;
  }
  const rule = specTransitions[move] as SpecRule;
  if (!rule.from.includes(status)) return undefined;
  return {
    to: typeof rule.to === 'string' ? rule.to : (rule.to[model] as string),
    events: [
      { type: rule.event, delivered: rule.webhook },
      ...rule['also-writes'].map((w) => ({ type: w.event, delivered: w.webhook })),
    ],
  };
}

const sorted = (xs: readonly string[]): string[] => [...xs].sort();

describe('the table is the spec', () => {
  it('OPERATOR_TRANSITIONS equals the admin x-transitions', () => {
    expect(JSON.parse(JSON.stringify(OPERATOR_TRANSITIONS))).toEqual(specTransitions);
  });

  it('has the statuses, payment models and actions of the spec', () => {
    expect([...ORDER_STATUSES]).toEqual(orderStatus.enum);
    expect([...PAYMENT_MODELS]).toEqual((partnerSchema('PaymentModel') as { enum: string[] }).enum);
    const actionParam = at(
      loadYaml('spec/admin/components/parameters.yaml'),
      'components',
      'parameters',
      'OrderActionPath',
      'schema',
      'enum',
    );
    expect([...OPERATOR_ACTIONS]).toEqual(actionParam);
    expect(sorted(FINAL_STATUSES)).toEqual(sorted(orderStatus['x-final-states']));
  });

  it('reaches from each status exactly the statuses of OrderStatus x-transitions', () => {
    const reachable = reachableStatuses();
    for (const status of ORDER_STATUSES) {
      expect(sorted(reachable[status]), status).toEqual(sorted(orderStatus['x-transitions'][status] ?? []));
    }
  });

  it('marks as delivered exactly the x-delivered events', () => {
    for (const move of ORDER_MOVES) {
      const rule =
        move === 'partner-refund'
          ? PARTNER_REFUND_TRANSITION
          : move === 'settle'
            ? SETTLE_TRANSITION
            : OPERATOR_TRANSITIONS[move];
      for (const w of [{ event: rule.event, webhook: rule.webhook }, ...rule['also-writes']]) {
        expect(eventType['x-delivered'].includes(w.event), `${move}: ${w.event}`).toBe(w.webhook);
        expect(eventType['x-history-only'].includes(w.event), `${move}: ${w.event}`).toBe(!w.webhook);
      }
    }
  });

  it('lets the partner refund from the statuses POST /refunds names', () => {
    expect(partnerRefundFrom.length).toBeGreaterThan(0);
    expect(sorted(PARTNER_REFUND_TRANSITION.from)).toEqual(sorted(partnerRefundFrom as string[]));
  });
});

describe('transition', () => {
  const cases = ORDER_STATUSES.flatMap((status) =>
    PAYMENT_MODELS.flatMap((model) => ORDER_MOVES.map((move) => [status, model, move] as const)),
  );

  it.each(cases)('%s (%s) + %s follows the spec', (status, model, move) => {
    const result = transition({ public_id: 'ord_7QK2M9XB4T', status, payment_model: model }, move);
    const expected = specOutcome(move, status, model);
    if (expected === undefined) {
      expect(result).toMatchObject({ ok: false, code: 'invalid_state' });
      if (!result.ok) expect(result.message).toMatch(new RegExp(`^Order ord_7QK2M9XB4T is ${status}[ ;]`));
    } else {
      expect(result).toEqual({
        ok: true,
        status: expected.to,
        held_from: expected.to === 'MANUAL_REVIEW' ? status : null,
        events: expected.events,
      });
    }
  });

  it('accepts nothing in a final state, whatever the move', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...FINAL_STATUSES),
        fc.constantFrom(...PAYMENT_MODELS),
        fc.constantFrom(...ORDER_MOVES),
        (status, model, move) => {
          const result = transition({ status, payment_model: model }, move);
          expect(result.ok).toBe(false);
          if (!result.ok) expect(result.message).toContain(status);
        },
      ),
    );
  });

  it('refuses a repeated move (moves are not idempotent)', () => {
    for (const move of ORDER_MOVES) {
      for (const model of PAYMENT_MODELS) {
        for (const status of ORDER_STATUSES) {
          const first = transition({ status, payment_model: model }, move);
          if (!first.ok || first.status === status) continue;
          expect(transition({ status: first.status, payment_model: model }, move).ok, `${status} ${move} twice`).toBe(
            false,
          );
        }
      }
    }
  });

  it('words refusals as the spec examples do', () => {
    const admin = at(
      loadYaml('spec/admin/components/responses.yaml'),
      'components',
      'responses',
      'Conflict',
      'content',
      'application/json',
      'examples',
    );
    const partner = at(
      loadYaml('spec/partner/components/responses.yaml'),
      'components',
      'responses',
      'InvalidState',
      'content',
      'application/json',
      'examples',
    );
    const message = (o: OrderState, m: OrderMove): string => {
      const r = transition(o, m);
      return r.ok ? '' : r.message;
    };
    expect(
      message(
        { public_id: 'ord_7QK2M9XB4T', status: 'TRANSFER_COMPLETED', payment_model: 'partner_collected' },
        'refund',
      ),
    ).toBe(at(admin, 'order_invalid_state', 'value', 'message'));
    expect(
      message(
        { public_id: 'ord_7QK2M9XB4T', status: 'TRANSFER_COMPLETED', payment_model: 'partner_collected' },
        'partner-refund',
      ),
    ).toBe(at(partner, 'too_late', 'value', 'message'));
    expect(
      message({ public_id: 'ord_3HV8N2RC6L', status: 'PAID', payment_model: 'service_collected' }, 'partner-refund'),
    ).toBe(at(partner, 'service_collected', 'value', 'message'));
  });

  it('walks the life of a held partner-collected order', () => {
    let order: OrderState = { status: initialState('partner_collected').status, payment_model: 'partner_collected' };
    const step = (move: OrderMove): OrderStatus => {
      const r = transition(order, move);
      if (!r.ok) throw new Error(r.message);
      order = { ...order, status: r.status, held_from: r.held_from };
      return r.status;
    };
    expect(step('hold')).toBe('MANUAL_REVIEW');
    expect(order.held_from).toBe('EXTERNALLY_PAID');
    // "A held order must be cleared before its transfer starts."
    expect(transition(order, 'start-transfer').ok).toBe(false);
    expect(step('clear-hold')).toBe('EXTERNALLY_PAID');
    expect(step('start-transfer')).toBe('TRANSFER_IN_PROGRESS');
    expect(step('confirm-delivery')).toBe('TRANSFER_COMPLETED');
    expect(transition(order, 'refund').ok).toBe(false);
    expect(transition(order, 'cancel').ok).toBe(false);
    expect(step('settle')).toBe('SETTLED');
  });

  it('returns a cleared service-collected order to PAID', () => {
    const held = transition({ status: 'PAID', payment_model: 'service_collected' }, 'hold');
    expect(held).toMatchObject({ ok: true, status: 'MANUAL_REVIEW', held_from: 'PAID' });
    expect(
      transition({ status: 'MANUAL_REVIEW', payment_model: 'service_collected', held_from: 'PAID' }, 'clear-hold'),
    ).toMatchObject({
      ok: true,
      status: 'PAID',
      held_from: null,
    });
  });
});

describe('initialState', () => {
  it('records a partner-collected sale as EXTERNALLY_PAID with order.recorded, delivered', () => {
    expect(initialState('partner_collected')).toEqual({
      status: 'EXTERNALLY_PAID',
      events: [{ type: 'order.recorded', delivered: eventType['x-delivered'].includes('order.recorded') }],
    });
  });

  it('starts a service-collected order as PAID with no event (TimelineEntry: null event_type)', () => {
    const timelineEntry = partnerSchema('TimelineEntry') as { properties: { event_type: { description: string } } };
    expect(timelineEntry.properties.event_type.description).toContain(
      'creates a service-collected order, which writes no event',
    );
    expect(initialState('service_collected')).toEqual({ status: 'PAID', events: [] });
  });
});
