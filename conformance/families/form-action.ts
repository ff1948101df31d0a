// Where a hosted page's forms may lead (`x-form-action` of each operation, the public
// document's x-security-headers `form-action` placeholder): the sign-in page's CSP names its own
// origin and the client's redirect_uri origin, the checkout page its own and the origins of the
// session's return_url and cancel_url, each written from the parsed URL (scheme, host, port);
// every other HTML page says form-action 'none'. A page that names too little blocks its own
// redirect (browsers apply form-action to a form's redirects); one that names too much lets a
// form post anywhere.
import { CheckFailure, expect, expectStatus, type Check, type Context } from '../context.ts';
import type { Exchange } from '../http.ts';
import { authorizeTarget, discovered, REDIRECT_URI, register } from '../oauth-flow.ts';
import { openCheckout, pagePath } from './checkout-support.ts';
import { operationOf } from './headers.ts';
import { listedDomain } from './orders-support.ts';
import { publicExchanges } from './public-headers.ts';
import { callPublic } from './public-support.ts';

/** The sources of a CSP's form-action directive; undefined when there is none. */
export function formActionSources(csp: string | undefined): string[] | undefined {
  for (const directive of (csp ?? '').split(';')) {
    const [name, ...sources] = directive.trim().split(/\s+/);
    if (name?.toLowerCase() === 'form-action') return sources;
  }
  return undefined;
}

/** The CSP source of a URL: its scheme, host and port as parsed (the port only when not the scheme's default). */
const originSource = (url: string) => new URL(url).origin;

function expectSources(page: Exchange, expected: string[], why: string): void {
  const got = formActionSources(page.responseHeaders['content-security-policy']);
  const same = got !== undefined && got.length === expected.length && expected.every((s) => got.includes(s));
  if (!same)
    throw new CheckFailure(
      `${why}: the CSP's form-action is ${got === undefined ? 'absent' : `"${got.join(' ')}"`}, expected exactly "${expected.join(' ')}" (x-form-action)`,
      [page],
    );
}

// Origins of the session's return_url and cancel_url, apart from each other and with a port, so
// that a page naming one of them, or dropping the port, is seen.
const RETURN_URL = 'https://return.conformance.example.net:8443/checkout/done?order=1';
const CANCEL_URL = 'https://cancel.conformance.example.org/checkout/cancelled';

export const formActionCheck: Check = {
  id: 'public.headers.form-action',
  rules: [
    'spec:public:getAuthorizePage#/x-form-action',
    'spec:public:getCheckoutPage#/x-form-action',
    'spec:public#/x-security-headers/placeholders/form-action',
  ],
  name: "each page's CSP form-action names exactly what its operation's x-form-action lists: the sign-in page 'self' and the redirect_uri's origin, the checkout page 'self' and the return_url and cancel_url origins; every other HTML page 'none'",
  needs: ['credentials', 'writes'],
  async run(ctx: Context) {
    // The sign-in and consent page of a client whose redirect_uri the kit chose.
    const as = await discovered(ctx);
    const client = await register(ctx, as, 'pricing:read');
    const signIn = await ctx.http.send({
      target: authorizeTarget(ctx, as, client, {
        scope: 'pricing:read',
        state: 'form-action',
        codeChallenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      }),
      headers: { accept: 'text/html' },
    });
    expectStatus(signIn, 200, 'the sign-in page (GET /oauth/authorize)');
    expectSources(signIn, ["'self'", originSource(REDIRECT_URI)], 'the sign-in page');

    // The checkout page of a session whose return and cancel URLs the kit chose.
    const credentials = await ctx.credentials();
    const session = await openCheckout(ctx, credentials, await listedDomain(ctx, credentials), {
      return_url: RETURN_URL,
      cancel_url: CANCEL_URL,
    });
    const checkout = await ctx.http.send({
      target: pagePath(ctx, session),
      headers: { accept: 'text/html' },
      operation: { method: 'GET', path: '/checkout' },
      rateClass: 'public',
    });
    expectStatus(checkout, 200, 'the hosted checkout page');
    expectSources(checkout, ["'self'", originSource(RETURN_URL), originSource(CANCEL_URL)], 'the checkout page');

    // Every other HTML answer of the run (a docs page at least): its operation lists no form target, so 'none'.
    await callPublic(ctx, 'getDocsIndex', { headers: { accept: 'text/html' } });
    const problems: Exchange[] = [];
    let reviewed = 0;
    for (const e of publicExchanges(ctx)) {
      if (!/^text\/html\b/i.test(e.responseHeaders['content-type'] ?? '')) continue;
      const op = operationOf(ctx, e)?.op;
      if (op?.object['x-form-action'] !== undefined) continue;
      reviewed++;
      const sources = formActionSources(e.responseHeaders['content-security-policy']);
      if (sources?.join(' ') !== "'none'") problems.push(e);
    }
    expect(
      problems.length === 0,
      `${problems.length} of ${reviewed} HTML answers of operations without x-form-action do not say form-action 'none': ${problems
        .slice(0, 5)
        .map(
          (e) =>
            `${e.method} ${e.url.slice(ctx.http.baseUrl.length)} (${JSON.stringify(formActionSources(e.responseHeaders['content-security-policy'])?.join(' ') ?? null)})`,
        )
        .join(', ')}`,
      problems.slice(0, 2),
    );
    ctx.log(`  sign-in and checkout pages name their targets; ${reviewed} other HTML answers say 'none'`);
  },
};
