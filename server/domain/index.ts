/** The pure domain rules of the reference server: no I/O, time passed in. */
export * from './canonical-json.ts';
export * from './idempotency.ts';
export * from './order-state.ts';
export * from './environment.ts';
export * from './quote-token.ts';
export * from './quote-reservation.ts';
export * from './cursor.ts';
export * from './money.ts';
export * from './webhook-url.ts';
export * from './webhook-schedule.ts';
export * from './rate-limit.ts';
export * from './nonce.ts';
export { rfc3339 } from './rfc3339.ts';
