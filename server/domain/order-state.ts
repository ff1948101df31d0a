/**
 * The order state machine of the spec: the operator moves of the admin API (its
 * `x-transitions`, reproduced in OPERATOR_TRANSITIONS so tests can compare the two), the
 * partner's own refund (POST /refunds) and the settlement run.
 */

export const ORDER_STATUSES = [
  'EXTERNALLY_PAID',
  'PAID',
  'MANUAL_REVIEW',
  'TRANSFER_IN_PROGRESS',
  'TRANSFER_COMPLETED',
  'SETTLED',
  'REFUNDED',
  'CANCELLED',
] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

export const PAYMENT_MODELS = ['partner_collected', 'service_collected'] as const;
export type PaymentModel = (typeof PAYMENT_MODELS)[number];

export const OPERATOR_ACTIONS = [
  'hold',
  'clear-hold',
  'start-transfer',
  'confirm-delivery',
  'cancel',
  'refund',
] as const;
export type OperatorAction = (typeof OPERATOR_ACTIONS)[number];

/** Every move: the operator's, the partner's refund, and the settlement run's. */
export type OrderMove = OperatorAction | 'partner-refund' | 'settle';
export const ORDER_MOVES: readonly OrderMove[] = [...OPERATOR_ACTIONS, 'partner-refund', 'settle'];

export const FINAL_STATUSES: readonly OrderStatus[] = ['SETTLED', 'REFUNDED', 'CANCELLED'];

export type OrderEventType =
  | 'order.recorded'
  | 'order.held'
  | 'order.manual_review_cleared'
  | 'order.transfer_started'
  | 'order.transfer_completed'
  | 'order.settled'
  | 'order.refunded'
  | 'order.cancelled'
  | 'transfer.started'
  | 'transfer.completed';

/** One event a move writes; `delivered` means it also goes to the webhook outbox. */
export interface WrittenEvent {
  readonly type: OrderEventType;
  readonly delivered: boolean;
}

/** One row of the spec's `x-transitions`, in its own spelling. */
export interface TransitionRule {
  readonly from: readonly OrderStatus[];
  readonly to: OrderStatus | Readonly<Record<PaymentModel, OrderStatus>>;
  readonly event: OrderEventType;
  readonly webhook: boolean;
  readonly 'also-writes': ReadonlyArray<{ readonly event: OrderEventType; readonly webhook: boolean }>;
}

const BEFORE_TRANSFER_COMPLETED: readonly OrderStatus[] = [
  'EXTERNALLY_PAID',
  'PAID',
  'MANUAL_REVIEW',
  'TRANSFER_IN_PROGRESS',
];

/** The admin spec's `x-transitions` of POST /orders/{public_id}/{action}. */
export const OPERATOR_TRANSITIONS: Readonly<Record<OperatorAction, TransitionRule>> = {
  hold: {
    from: ['EXTERNALLY_PAID', 'PAID'],
    to: 'MANUAL_REVIEW',
    event: 'order.held',
    webhook: false,
    'also-writes': [],
  },
  'clear-hold': {
    from: ['MANUAL_REVIEW'],
    to: { partner_collected: 'EXTERNALLY_PAID', service_collected: 'PAID' },
    event: 'order.manual_review_cleared',
    webhook: true,
    'also-writes': [],
  },
  'start-transfer': {
    from: ['EXTERNALLY_PAID', 'PAID'],
    to: 'TRANSFER_IN_PROGRESS',
    event: 'order.transfer_started',
    webhook: true,
    'also-writes': [{ event: 'transfer.started', webhook: false }],
  },
  'confirm-delivery': {
    from: ['TRANSFER_IN_PROGRESS'],
    to: 'TRANSFER_COMPLETED',
    event: 'order.transfer_completed',
    webhook: true,
    'also-writes': [{ event: 'transfer.completed', webhook: false }],
  },
  cancel: {
    from: BEFORE_TRANSFER_COMPLETED,
    to: 'CANCELLED',
    event: 'order.cancelled',
    webhook: false,
    // order.refunded is the one delivered signal of a refunded or cancelled order.
    'also-writes': [{ event: 'order.refunded', webhook: true }],
  },
  refund: {
    from: BEFORE_TRANSFER_COMPLETED,
    to: 'REFUNDED',
    event: 'order.refunded',
    webhook: true,
    'also-writes': [],
  },
};

/**
 * POST /refunds: partner-collected orders only, and never PAID (that status is service-collected
 * by definition), so the allowed sources are the refund's minus PAID.
 */
export const PARTNER_REFUND_TRANSITION: TransitionRule & { readonly payment_model: PaymentModel } = {
  payment_model: 'partner_collected',
  from: ['EXTERNALLY_PAID', 'MANUAL_REVIEW', 'TRANSFER_IN_PROGRESS'],
  to: 'REFUNDED',
  event: 'order.refunded',
  webhook: true,
  'also-writes': [],
};

/** The settlement run's move (POST /settlements/run and the scheduled run). */
export const SETTLE_TRANSITION: TransitionRule = {
  from: ['TRANSFER_COMPLETED'],
  to: 'SETTLED',
  event: 'order.settled',
  webhook: true,
  'also-writes': [],
};

export function ruleOf(move: OrderMove): TransitionRule {
  if (move === 'partner-refund') return PARTNER_REFUND_TRANSITION;
  if (move === 'settle') return SETTLE_TRANSITION;
  return OPERATOR_TRANSITIONS[move];
}

/** The status an order of this payment model starts in, and returns to when a hold is cleared. */
export function paidStatusOf(paymentModel: PaymentModel): 'EXTERNALLY_PAID' | 'PAID' {
  return paymentModel === 'partner_collected' ? 'EXTERNALLY_PAID' : 'PAID';
}

/**
 * The first timeline step of a new order. A partner-collected order is recorded by POST /orders
 * with `order.recorded`; a service-collected one is created by a paid checkout and writes no
 * event (its timeline entry has a null event_type).
 */
export function initialState(paymentModel: PaymentModel): { status: OrderStatus; events: WrittenEvent[] } {
  return paymentModel === 'partner_collected'
    ? { status: paidStatusOf(paymentModel), events: [{ type: 'order.recorded', delivered: true }] }
    : { status: paidStatusOf(paymentModel), events: [] };
}

export interface OrderState {
  readonly public_id?: string;
  readonly status: OrderStatus;
  readonly payment_model: PaymentModel;
  /** As stored; informative only, since clear-hold follows the payment model (see targetOf). */
  readonly held_from?: OrderStatus | null;
}

export type TransitionResult =
  | { ok: true; status: OrderStatus; held_from: OrderStatus | null; events: WrittenEvent[] }
  | { ok: false; code: 'invalid_state'; message: string };

function refuse(order: OrderState, reason: string): TransitionResult {
  const name = order.public_id === undefined ? 'Order' : `Order ${order.public_id}`;
  return { ok: false, code: 'invalid_state', message: `${name} is ${order.status}${reason}` };
}

function targetOf(rule: TransitionRule, order: OrderState): OrderStatus {
  // The spec maps clear-hold by payment model; held_from, which a hold records, always agrees
  // with it for a consistent order, so the table alone decides.
  return typeof rule.to === 'string' ? rule.to : rule.to[order.payment_model];
}

/**
 * One move of the state machine. Pure: the caller applies the result (status, held_from, a
 * timeline entry, the events) in one transaction. A refusal names the current status, as
 * 409 `invalid_state` requires; nothing is to change then. Repeating a move is such a refusal.
 */
export function transition(order: OrderState, move: OrderMove): TransitionResult {
  const rule = ruleOf(move);
  if (move === 'partner-refund' && order.payment_model !== PARTNER_REFUND_TRANSITION.payment_model) {
    return refuse(
      order,
      ' through hosted checkout (service_collected); only partner-collected orders can be refunded by the partner',
    );
  }
  if (!rule.from.includes(order.status)) {
    if (move === 'partner-refund') return refuse(order, '; a refund is possible only before TRANSFER_COMPLETED');
    return refuse(order, `; ${move} is allowed only from ${rule.from.join(', ')}`);
  }
  const status = targetOf(rule, order);
  const events: WrittenEvent[] = [
    { type: rule.event, delivered: rule.webhook },
    ...rule['also-writes'].map((w) => ({ type: w.event, delivered: w.webhook })),
  ];
  return { ok: true, status, held_from: status === 'MANUAL_REVIEW' ? order.status : null, events };
}

/** The statuses reachable in one move from each status (the spec's OrderStatus `x-transitions`). */
export function reachableStatuses(): Record<OrderStatus, OrderStatus[]> {
  const out = Object.fromEntries(ORDER_STATUSES.map((s) => [s, [] as OrderStatus[]])) as Record<
    OrderStatus,
    OrderStatus[]
  >;
  for (const move of ORDER_MOVES) {
    const rule = ruleOf(move);
    const targets = typeof rule.to === 'string' ? [rule.to] : Object.values(rule.to);
    for (const from of rule.from) {
      for (const to of targets) if (!out[from].includes(to)) out[from].push(to);
    }
  }
  return out;
}
