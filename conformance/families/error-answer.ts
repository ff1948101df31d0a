// The contract's answer for an error code, as every family checks it: the status `x-status-of-code`
// gives the code, an Error body with that code and a non-empty message, and the request's id.
import { CheckFailure, type Context } from '../context.ts';
import { jsonOf, type Exchange } from '../http.ts';

/**
 * Fails unless the exchange is the contract's answer for `code`: the status `x-status-of-code`
 * gives it, an Error body with that code and a non-empty message, and `request_id` equal to the
 * X-Request-Id header (which every response carries).
 */
export function expectCode(
  ctx: Context,
  exchange: Exchange,
  code: string,
  why: string,
  api: 'partner' | 'public' = 'partner',
): void {
  const status = ctx.spec.errorStatuses(api)[code];
  if (status === undefined) throw new Error(`the ${api} ErrorCode has no code ${code}`);
  const body = jsonOf(exchange) as { code?: unknown; message?: unknown; request_id?: unknown } | undefined;
  const got = `${exchange.status} ${typeof body?.code === 'string' ? body.code : '(no Error body)'}`;
  if (exchange.status !== status || body?.code !== code)
    throw new CheckFailure(`${why}: expected ${status} ${code}, got ${got}`, [exchange]);
  if (typeof body.message !== 'string' || body.message.trim() === '')
    throw new CheckFailure(`${why}: the ${code} answer has no (non-empty) message`, [exchange]);
  const header = exchange.responseHeaders['x-request-id'];
  if (!header) throw new CheckFailure(`${why}: the ${code} answer has no X-Request-Id header`, [exchange]);
  // The partner surface always names the request in the body; on the public one it is optional.
  if ((api === 'partner' || body.request_id !== undefined) && body.request_id !== header) {
    throw new CheckFailure(
      `${why}: the ${code} body's request_id ${JSON.stringify(body.request_id)} differs from the X-Request-Id header "${header}"`,
      [exchange],
    );
  }
}
