// Assertions of the OAuth families: RFC 6749 / 7591 error answers, never cached.
import { CheckFailure, expect } from '../context.ts';
import { jsonOf, type Exchange } from '../http.ts';

export function noStore(e: Exchange, why: string): void {
  const cc = e.responseHeaders['cache-control'] ?? '';
  expect(
    /(^|,)\s*no-store\s*(,|$)/i.test(cc),
    `${why}: Cache-Control must be no-store, got ${cc ? `"${cc}"` : 'none'}`,
    [e],
  );
}

/** Fails unless the answer is an RFC 6749 / 7591 error: status 400, the `error`, a description, no-store. */
export function expectOAuthError(e: Exchange, error: string, why: string): void {
  const body = jsonOf(e) as { error?: unknown; error_description?: unknown } | undefined;
  if (e.status !== 400 || body?.error !== error)
    throw new CheckFailure(
      `${why}: expected 400 {"error": "${error}"}, got ${e.status} ${e.responseBody.slice(0, 200)}`,
      [e],
    );
  expect(
    typeof body.error_description === 'string' && body.error_description !== '',
    `${why}: the ${error} answer has no error_description`,
    [e],
  );
  noStore(e, why);
}
