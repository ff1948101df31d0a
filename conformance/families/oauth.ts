// The OAuth 2.1 authorization server (the public document's "Authentication" paragraph; RFC 8414, 7591, 7636, 9207, 9728, 6749 §5.2):
// the metadata documents, dynamic registration, the PKCE flow driven by oauth4webapi through the
// server-rendered sign-in and consent form, single-use codes whose replay revokes the tokens,
// PKCE verification, refresh rotation with reuse detection, redirect URIs shown not redirected,
// token endpoint errors, and what a token is for: real prices on POST /api/domain/search.
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import * as oauth from 'oauth4webapi';
import { CheckFailure, expect, property, type Context, type Family } from '../context.ts';
import {
  authorizationCode,
  authorizeTarget,
  discover,
  discovered,
  exchangeCode,
  oauthError,
  parseForms,
  REDIRECT_URI,
  refresh,
  register,
  signInAndConsent,
  tokenRequest,
} from '../oauth-flow.ts';
import { callPublic, expectPublicCode, okJson } from './public-support.ts';
import { codeLifetimeChecks } from './oauth-lifetimes.ts';
import { pkcePlainChecks } from './oauth-pkce.ts';
import { expectOAuthError, noStore } from './oauth-support.ts';

type Json = Record<string, unknown>;

const sameSet = (a: unknown, b: string[]) => Array.isArray(a) && a.length === b.length && b.every((x) => a.includes(x));

/** A search answer's prices: every result and alternative, masked or real. */
function prices(
  body: unknown,
): Array<{ domain: string; price: unknown; price_masked: unknown; available: unknown; status: unknown }> {
  const b = body as { result?: Json; alternatives?: Json[] } | undefined;
  return [b?.result, ...(b?.alternatives ?? [])]
    .filter((x): x is Json => !!x)
    .map((x) => ({
      domain: String(x.domain),
      price: x.price,
      price_masked: x.price_masked,
      available: x.available,
      status: x.status,
    }));
}

/** A listed domain (its price is real with a token), from the listings. */
async function listedDomain(ctx: Context): Promise<string> {
  const e = await callPublic(ctx, 'listMarketListings', { query: { limit: 1, sort: 'price_desc' } });
  const domain = okJson<{ data: Array<{ domain: string }> }>(e, 'GET /api/market/listings?limit=1').data[0]?.domain;
  if (!domain) throw new CheckFailure('the marketplace lists nothing; the pricing check needs a listed domain', [e]);
  return domain;
}

/** Fails unless POST /api/domain/search with this token answers real prices (and without it, masked ones). */
export async function expectUnmasked(ctx: Context, accessToken: string, domain: string, why: string): Promise<void> {
  const anonymous = await callPublic(ctx, 'searchDomain', { json: { q: domain } });
  const masked = prices(okJson(anonymous, `POST /api/domain/search {q: ${domain}} without a token`));
  const leaked = masked.find((p) => p.price !== null || (p.available === true && p.price_masked !== true));
  if (leaked)
    throw new CheckFailure(
      `without a token prices are masked (price null, price_masked true for what is for sale); ${leaked.domain} answers price ${JSON.stringify(leaked.price)}, price_masked ${JSON.stringify(leaked.price_masked)}`,
      [anonymous],
    );
  const authed = await callPublic(ctx, 'searchDomain', { json: { q: domain }, bearer: accessToken });
  const real = prices(okJson(authed, `${why}: POST /api/domain/search {q: ${domain}} with the access token`));
  const head = real[0];
  if (!head || head.domain !== domain || typeof head.price !== 'number' || head.price_masked !== false) {
    throw new CheckFailure(
      `${why}: with a valid pricing:read token the listed ${domain} must have its real price (a number, price_masked false), got price ${JSON.stringify(head?.price)}, price_masked ${JSON.stringify(head?.price_masked)}`,
      [anonymous, authed],
    );
  }
  const stillMasked = real.find((p) => p.price_masked === true);
  if (stillMasked) throw new CheckFailure(`${why}: with a valid token ${stillMasked.domain} is still masked`, [authed]);
}

async function expectTokenDead(ctx: Context, accessToken: string, why: string): Promise<void> {
  const e = await callPublic(ctx, 'searchDomain', {
    json: { q: 'bestcoffeebeans.com' },
    bearer: accessToken,
    deliberate: true,
  });
  expectPublicCode(ctx, e, 'invalid_token', why);
}

const scope = 'pricing:read';

export const oauthFamily: Family = {
  name: 'oauth',
  surface: 'public',
  description:
    'Metadata documents, registration, the PKCE flow through the sign-in form, single-use codes, refresh rotation and reuse, redirect mismatch, token errors, unmasked prices',
  // Metadata, registration and the error answers need no sign-in: only the flows do (per check).
  needs: [],
  checks: [
    {
      id: 'public.oauth.metadata-rfc8414',
      rules: [
        'spec:public:getAuthorizationServerMetadata#/description',
        'seed:public › Endpoints › OAuth 2.1 endpoints',
      ],
      name: 'metadata: RFC 8414 members, issuer = base URL, S256 only, iss advertised; no OpenID discovery (404); protected-resource documents (root and /mcp)',
      async run(ctx) {
        const base = ctx.http.baseUrl;
        const asMeta = await callPublic(ctx, 'getAuthorizationServerMetadata');
        const m = okJson<Json>(asMeta, 'GET /.well-known/oauth-authorization-server');
        expect(
          m.issuer === base,
          `issuer is ${JSON.stringify(m.issuer)}; it must be the deployment's base URL ${base} (RFC 8414 §3.3)`,
          [asMeta],
        );
        for (const member of ['authorization_endpoint', 'token_endpoint', 'registration_endpoint']) {
          expect(
            typeof m[member] === 'string' && String(m[member]).startsWith(`${base}/`),
            `${member} ${JSON.stringify(m[member])} is not an absolute URL on ${base}`,
            [asMeta],
          );
        }
        expect(
          sameSet(m.response_types_supported, ['code']),
          `response_types_supported ${JSON.stringify(m.response_types_supported)}; only ["code"]`,
          [asMeta],
        );
        expect(
          sameSet(m.code_challenge_methods_supported, ['S256']),
          `code_challenge_methods_supported ${JSON.stringify(m.code_challenge_methods_supported)}; PKCE is S256 only`,
          [asMeta],
        );
        expect(
          sameSet(m.token_endpoint_auth_methods_supported, ['none']),
          `token_endpoint_auth_methods_supported ${JSON.stringify(m.token_endpoint_auth_methods_supported)}; every client is public (["none"])`,
          [asMeta],
        );
        expect(
          Array.isArray(m.grant_types_supported) &&
            ['authorization_code', 'refresh_token'].every((g) => (m.grant_types_supported as unknown[]).includes(g)),
          `grant_types_supported ${JSON.stringify(m.grant_types_supported)} must list authorization_code and refresh_token`,
          [asMeta],
        );
        expect(
          Array.isArray(m.scopes_supported) &&
            ['pricing:read', 'domains:manage'].every((s) => (m.scopes_supported as unknown[]).includes(s)),
          `scopes_supported ${JSON.stringify(m.scopes_supported)} must list pricing:read and domains:manage`,
          [asMeta],
        );
        expect(
          m.authorization_response_iss_parameter_supported === true,
          'authorization_response_iss_parameter_supported must be true (RFC 9207: iss is added to every authorization response)',
          [asMeta],
        );

        expect(
          !(m.scopes_supported as unknown[]).includes('openid'),
          'scopes_supported must not list openid: no ID token is issued (scope=openid is invalid_scope)',
          [asMeta],
        );
        // RFC 8414 metadata is the one discovery document: an OpenID Connect one would promise
        // ID tokens (RS256) the service never issues, so the path is unknown (404).
        const oidc = await ctx.http.send({ target: '/.well-known/openid-configuration' });
        expect(
          oidc.status === 404,
          `GET /.well-known/openid-configuration answered ${oidc.status}; it is not served (404): the service is no OpenID Provider`,
          [oidc],
        );

        for (const [operationId, resource] of [
          ['getProtectedResourceMetadata', base],
          ['getMcpProtectedResourceMetadata', `${base}/mcp`],
        ] as const) {
          const e = await callPublic(ctx, operationId);
          const r = okJson<Json>(e, operationId);
          expect(
            r.resource === resource,
            `${operationId}: resource is ${JSON.stringify(r.resource)}, expected ${resource} (RFC 9728 §3.3: it must equal the resource the document was fetched for)`,
            [e],
          );
          expect(
            Array.isArray(r.authorization_servers) && (r.authorization_servers as unknown[]).includes(m.issuer),
            `${operationId}: authorization_servers ${JSON.stringify(r.authorization_servers)} must name the issuer ${String(m.issuer)}`,
            [e],
          );
          expect(
            Array.isArray(r.scopes_supported) && (r.scopes_supported as unknown[]).includes('pricing:read'),
            `${operationId}: scopes_supported must list pricing:read`,
            [e],
          );
          expect(
            Array.isArray(r.bearer_methods_supported) && (r.bearer_methods_supported as unknown[]).includes('header'),
            `${operationId}: bearer_methods_supported must list header`,
            [e],
          );
        }
        // A strict client library accepts the metadata too.
        await discover(ctx);
      },
    },
    {
      id: 'public.oauth.registration',
      rules: ['spec:public:registerOAuthClient#/description', 'seed:public › Endpoints › OAuth 2.1 endpoints'],
      name: 'registration: 201, no-store, the metadata echoed with token_endpoint_auth_method none and no secret; bad redirect_uris and metadata refused RFC 7591-style',
      async run(ctx) {
        const send = (body: unknown, raw?: string) =>
          callPublic(
            ctx,
            'registerOAuthClient',
            raw !== undefined ? { raw, deliberate: true } : { json: body, deliberate: true },
          );
        const good = fc.record({
          client_name: fc.constantFrom('Conformance kit', 'Client ü 😀', 'x'),
          redirect_uris: fc.uniqueArray(
            fc.constantFrom(
              REDIRECT_URI,
              'http://localhost:8123/cb',
              'https://app.example.net/oauth/callback',
              'http://[::1]/cb',
              'com.example.app:/oauth',
            ),
            { minLength: 1, maxLength: 3 },
          ),
          scope: fc.constantFrom('pricing:read', 'pricing:read domains:manage'),
          software_id: fc.constant('unknown-member-is-ignored'),
        });
        await property(
          ctx,
          good,
          async (metadata) => {
            const e = await send(metadata);
            const body = okJson<Json>(e, `POST /api/oauth/register ${JSON.stringify(metadata)}`, 201);
            noStore(e, 'a registration answer');
            expect(
              typeof body.client_id === 'string' && body.client_id !== '',
              'the registration answer has no client_id',
              [e],
            );
            expect(
              body.token_endpoint_auth_method === 'none' && body.client_secret === undefined,
              `every client is public: token_endpoint_auth_method must be "none" and no client_secret issued, got ${JSON.stringify(body.token_endpoint_auth_method)}${body.client_secret !== undefined ? ' and a secret' : ''}`,
              [e],
            );
            expect(
              body.client_name === metadata.client_name &&
                JSON.stringify(body.redirect_uris) === JSON.stringify(metadata.redirect_uris),
              'the registration answer must echo client_name and redirect_uris as sent',
              [e],
            );
          },
          Math.min(ctx.fc.numRuns, 6),
          { cost: { registration: 1 } },
        );
        const badRedirects = fc.constantFrom<unknown>(
          ['not a uri'],
          ['https://app.example.net/cb#fragment'],
          ['http://app.example.net/cb'],
          ['/relative/cb'],
          [],
        );
        await property(
          ctx,
          badRedirects,
          async (redirect_uris) => {
            const e = await send({ client_name: 'bad', redirect_uris });
            const error = oauthError(e);
            expect(
              error === 'invalid_redirect_uri' ||
                (error === 'invalid_client_metadata' && Array.isArray(redirect_uris) && redirect_uris.length === 0),
              `redirect_uris ${JSON.stringify(redirect_uris)} must be refused with 400 invalid_redirect_uri, got ${e.status} ${e.responseBody.slice(0, 200)}`,
              [e],
            );
            expectOAuthError(
              e,
              String(error),
              `POST /api/oauth/register with redirect_uris ${JSON.stringify(redirect_uris)}`,
            );
          },
          5,
          { cost: { registration: 1 } },
        );
        for (const [what, body, raw] of [
          [
            'token_endpoint_auth_method client_secret_basic',
            { client_name: 'x', redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'client_secret_basic' },
            undefined,
          ],
          [
            'grant_types [client_credentials]',
            { client_name: 'x', redirect_uris: [REDIRECT_URI], grant_types: ['client_credentials'] },
            undefined,
          ],
          ['a body that is not JSON', undefined, '{"client_name": '],
        ] as const) {
          expectOAuthError(await send(body, raw), 'invalid_client_metadata', `POST /api/oauth/register with ${what}`);
        }
      },
    },
    {
      id: 'public.oauth.flow',
      rules: [
        'spec:public:getAuthorizePage#/x-pkce',
        'spec:public:requestToken#/x-token-lifetimes',
        'seed:public › Authentication',
      ],
      needs: ['oauth-user'],
      name: 'the PKCE flow (oauth4webapi, state and iss checked) through the sign-in form: Bearer tokens, pricing:read, no-store; the token unmasks search prices',
      async run(ctx) {
        const grant = await authorizationCode(ctx, { scope });
        expect(
          grant.location.searchParams.get('iss') === ctx.http.baseUrl,
          `the authorization response's iss is ${JSON.stringify(grant.location.searchParams.get('iss'))}, expected the issuer ${ctx.http.baseUrl}`,
        );
        const tokens = await exchangeCode(ctx, grant);
        const tokenExchange = ctx.http.exchanges[ctx.http.exchanges.length - 1]!;
        noStore(tokenExchange, 'the token response');
        expect(
          tokens.response.token_type.toLowerCase() === 'bearer',
          `token_type is ${tokens.response.token_type}, expected Bearer`,
          [tokenExchange],
        );
        expect(
          tokens.scope.split(' ').includes('pricing:read'),
          `the token response's scope is "${tokens.scope}", expected pricing:read`,
          [tokenExchange],
        );
        const expiresIn = tokens.response.expires_in;
        expect(
          typeof expiresIn === 'number' && expiresIn > 0 && expiresIn <= 1800,
          `expires_in ${String(expiresIn)}: access tokens live 30 minutes`,
          [tokenExchange],
        );
        await expectUnmasked(ctx, tokens.accessToken, await listedDomain(ctx), 'the access token of the flow');
        // Consent is asked every time, and a denial goes back to the client with access_denied.
        const again = await discovered(ctx);
        const verifier = oauth.generateRandomCodeVerifier();
        const target = authorizeTarget(ctx, again, grant.client, {
          scope,
          state: 'deny-me',
          codeChallenge: await oauth.calculatePKCECodeChallenge(verifier),
        });
        const denied = await signInAndConsent(
          ctx,
          target,
          { email: ctx.options.oauthUser ?? '', password: ctx.options.oauthPassword ?? '' },
          'deny',
        );
        expect(
          denied.location.searchParams.get('error') === 'access_denied' &&
            denied.location.searchParams.get('state') === 'deny-me' &&
            denied.location.searchParams.get('iss') === ctx.http.baseUrl,
          `a denial must send the browser to the client with error=access_denied, the state and iss; went to ${denied.location.href}`,
          [denied.submitted],
        );
      },
    },
    {
      id: 'public.oauth.code-single-use',
      rules: ['spec:public:requestToken#/x-token-rules', 'seed:public › Authentication'],
      needs: ['oauth-user'],
      name: 'codes are single-use: a replay is invalid_grant (no-store) and revokes the tokens issued from the code',
      async run(ctx) {
        const grant = await authorizationCode(ctx, { scope });
        const tokens = await exchangeCode(ctx, grant);
        const replay = await tokenRequest(ctx, grant.as, {
          grant_type: 'authorization_code',
          code: grant.code,
          redirect_uri: grant.redirectUri,
          client_id: grant.client.client_id,
          code_verifier: grant.verifier,
        });
        expectOAuthError(replay, 'invalid_grant', 'the same code exchanged a second time');
        await expectTokenDead(
          ctx,
          tokens.accessToken,
          'the access token issued from a code that was then replayed (it must be revoked)',
        );
        const refreshed = await tokenRequest(ctx, grant.as, {
          grant_type: 'refresh_token',
          refresh_token: tokens.refreshToken,
          client_id: grant.client.client_id,
        });
        expectOAuthError(
          refreshed,
          'invalid_grant',
          'the refresh token issued from a replayed code (it must be revoked)',
        );
      },
    },
    {
      id: 'public.oauth.pkce-verified',
      rules: ['spec:public:getAuthorizePage#/x-pkce', 'spec:public:getAuthorizePage#/x-redirect-uri-matching'],
      needs: ['oauth-user'],
      name: 'PKCE and redirect_uri are verified at the token endpoint: a wrong code_verifier or redirect_uri is invalid_grant',
      async run(ctx) {
        const as = await discovered(ctx);
        const client = await register(ctx, as, scope);
        const unreserved = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~'.split('');
        const wrong = fc.oneof(
          fc
            .array(fc.constantFrom(...unreserved), { minLength: 43, maxLength: 128 })
            .map((cs) => ({ code_verifier: cs.join('') })),
          fc.constantFrom(
            { redirect_uri: 'http://127.0.0.1:47913/other' },
            { redirect_uri: 'https://app.example.net/callback' },
          ),
        );
        await property(
          ctx,
          wrong,
          async (change) => {
            const grant = await authorizationCode(ctx, { scope, as, client });
            fc.pre(!('code_verifier' in change) || change.code_verifier !== grant.verifier);
            const e = await tokenRequest(ctx, as, {
              grant_type: 'authorization_code',
              code: grant.code,
              redirect_uri: grant.redirectUri,
              client_id: client.client_id,
              code_verifier: grant.verifier,
              ...change,
            });
            expectOAuthError(e, 'invalid_grant', `a code exchange with ${JSON.stringify(change)}`);
          },
          Math.min(ctx.fc.numRuns, 4),
          { cost: { public: 6 } },
        );
      },
    },
    {
      id: 'public.oauth.refresh-rotation',
      rules: ['spec:public:requestToken#/x-token-rules', 'seed:public › Authentication'],
      needs: ['oauth-user'],
      name: 'refresh tokens rotate; presenting a rotated one is invalid_grant and revokes the grant (the latest refresh and access tokens die too)',
      async run(ctx) {
        await property(
          ctx,
          fc.integer({ min: 1, max: 3 }),
          async (rotations) => {
            const first = await exchangeCode(ctx, await authorizationCode(ctx, { scope }));
            let current = first;
            const used: string[] = [];
            for (let i = 0; i < rotations; i++) {
              const next = await refresh(ctx, current, current.refreshToken);
              expect(
                next.refreshToken !== current.refreshToken,
                'a refresh answered the same refresh token; they rotate on every use',
                ctx.http.exchanges.slice(-1),
              );
              used.push(current.refreshToken);
              current = next;
            }
            await expectUnmasked(
              ctx,
              current.accessToken,
              await listedDomain(ctx),
              `the access token after ${rotations} refreshes`,
            );
            const stale = used[used.length - 1]!;
            const reuse = await tokenRequest(ctx, first.as, {
              grant_type: 'refresh_token',
              refresh_token: stale,
              client_id: first.client.client_id,
            });
            expectOAuthError(
              reuse,
              'invalid_grant',
              `an already-rotated refresh token presented again (after ${rotations} rotations)`,
            );
            const latest = await tokenRequest(ctx, first.as, {
              grant_type: 'refresh_token',
              refresh_token: current.refreshToken,
              client_id: first.client.client_id,
            });
            expectOAuthError(
              latest,
              'invalid_grant',
              'the latest refresh token after the reuse was detected (the whole grant is revoked)',
            );
            await expectTokenDead(
              ctx,
              current.accessToken,
              'the latest access token after refresh-token reuse (the whole grant is revoked)',
            );
          },
          Math.min(ctx.fc.numRuns, 3),
          { cost: { public: 6 } },
        );
      },
    },
    {
      id: 'public.oauth.authorize-errors',
      rules: ['spec:public:getAuthorizePage#/x-redirect-uri-matching', 'spec:public:getAuthorizePage#/x-error-format'],
      name: 'a bad redirect_uri or client_id is shown to the user (400, no Location), never redirected; other errors go back with error, state and iss',
      async run(ctx) {
        const as = await discovered(ctx);
        const client = await register(ctx, as, scope);
        const challenge = await oauth.calculatePKCECodeChallenge(oauth.generateRandomCodeVerifier());
        const bad = fc.oneof(
          fc
            .constantFrom(
              'https://evil.example.net/callback',
              'http://127.0.0.1:47913/callback/extra',
              'http://127.0.0.1:47913/Callback',
              `${REDIRECT_URI}?x=1`,
              'http://127.0.0.2:47913/callback',
            )
            .map((redirectUri) => ({ redirectUri, clientId: client.client_id, code: 'invalid_redirect_uri' })),
          fc
            .constantFrom(`cli_${randomBytes(8).toString('hex')}`, 'unknown')
            .map((clientId) => ({ redirectUri: REDIRECT_URI, clientId, code: 'validation_error' })),
        );
        await property(
          ctx,
          bad,
          async ({ redirectUri, clientId, code }) => {
            const target = authorizeTarget(
              ctx,
              as,
              { ...client, client_id: clientId },
              { scope, state: 's1', codeChallenge: challenge, redirectUri },
            );
            const page = await ctx.http.send({ target, headers: { accept: 'text/html' }, deliberate: true });
            expect(
              page.status === 400,
              `GET /oauth/authorize with redirect_uri ${redirectUri} and client_id ${clientId} must show a 400 page, got ${page.status}`,
              [page],
            );
            const location = page.responseHeaders.location;
            expect(
              location === undefined,
              `the error for redirect_uri ${redirectUri} must be shown, not redirected; the answer carries Location: ${location}`,
              [page],
            );
            const json = await ctx.http.send({ target, headers: { accept: 'application/json' }, deliberate: true });
            expectPublicCode(
              ctx,
              json,
              code,
              `GET /oauth/authorize with redirect_uri ${redirectUri}, client_id ${clientId} (Accept: application/json)`,
            );
          },
          Math.min(ctx.fc.numRuns, 6),
          { cost: { public: 2 } },
        );
        // Loopback redirects match on any port (RFC 8252 §7.3).
        const otherPort = await ctx.http.send({
          target: authorizeTarget(ctx, as, client, {
            scope,
            state: 's2',
            codeChallenge: challenge,
            redirectUri: 'http://127.0.0.1:5999/callback',
          }),
          headers: { accept: 'text/html' },
        });
        expect(
          otherPort.status === 200,
          `the registered loopback redirect on another port must be accepted (200 sign-in page), got ${otherPort.status}`,
          [otherPort],
        );
        // A missing code_challenge is redirected back with invalid_request, state and iss.
        const target = authorizeTarget(ctx, as, client, { scope, state: 'st-3', codeChallenge: challenge }).replace(
          /&code_challenge=[^&]*/,
          '',
        );
        const noPkce = await ctx.http.send({ target, deliberate: true });
        const back = noPkce.responseHeaders.location
          ? new URL(noPkce.responseHeaders.location, ctx.http.baseUrl)
          : undefined;
        expect(
          noPkce.status === 302 &&
            back?.href.startsWith(REDIRECT_URI) &&
            back.searchParams.get('error') === 'invalid_request' &&
            back.searchParams.get('state') === 'st-3' &&
            back.searchParams.get('iss') === ctx.http.baseUrl,
          `an authorization request without code_challenge must be redirected (302) to the client with error=invalid_request, state and iss; got ${noPkce.status} ${back?.href ?? '(no Location)'}`,
          [noPkce],
        );
      },
    },
    {
      id: 'public.oauth.no-open-redirect',
      rules: ['spec:public:getAuthorizePage#/description', 'spec:public:getAuthorizePage#/responses/400'],
      name: 'not an open redirector (RFC 9700 §4.11.2): an error for a self-registered https redirect_uri is a 400 page with a link to it, never a redirect',
      async run(ctx) {
        const as = await discovered(ctx);
        const https = 'https://app.example.net/oauth/callback';
        const client = await register(ctx, as, scope, https);
        const challenge = await oauth.calculatePKCECodeChallenge(oauth.generateRandomCodeVerifier());
        const target = authorizeTarget(ctx, as, client, {
          scope,
          state: 'st-4',
          codeChallenge: challenge,
          redirectUri: https,
        }).replace('response_type=code', 'response_type=x');
        const page = await ctx.http.send({ target, headers: { accept: 'text/html' }, deliberate: true });
        expect(
          page.status === 400 && page.responseHeaders.location === undefined,
          `GET /oauth/authorize with response_type=x for the https redirect_uri ${https} must show a 400 page, not send the browser there; got ${page.status}${page.responseHeaders.location ? ` to ${page.responseHeaders.location}` : ''}`,
          [page],
        );
        const link = /<a [^>]*href="([^"]*)"/.exec(page.responseBody)?.[1]?.replace(/&amp;/g, '&');
        const back = link?.startsWith(https)
          ? new URL(link.replace(/&#(\d+);/g, (_, c: string) => String.fromCharCode(Number(c))))
          : undefined;
        expect(
          back?.searchParams.get('error') === 'unsupported_response_type' && back.searchParams.get('state') === 'st-4',
          `the page must offer a link to ${https} with error=unsupported_response_type and the state; found ${link ?? 'no link to it'}`,
          [page],
        );
      },
    },
    {
      id: 'public.oauth.csrf',
      rules: ['spec:public:submitAuthorizeForm#/description'],
      needs: ['oauth-user'],
      name: 'the sign-in form is CSRF-protected: without the cookie, or with another csrf_token, it is a 400 and issues nothing; it takes one decision: approving after "Deny" is a 400 and issues nothing',
      async run(ctx) {
        const as = await discovered(ctx);
        const client = await register(ctx, as, scope);
        const target = authorizeTarget(ctx, as, client, {
          scope,
          state: 'csrf',
          codeChallenge: await oauth.calculatePKCECodeChallenge(oauth.generateRandomCodeVerifier()),
        });
        const page = await ctx.http.send({ target, headers: { accept: 'text/html' } });
        const form = parseForms(page.responseBody).find((f) => 'csrf_token' in f.fields);
        if (!form) throw new CheckFailure('the authorization page has no form with csrf_token', [page]);
        const cookie = (page.setCookies ?? []).map((c) => c.split(';')[0]).join('; ');
        const post = (fields: Record<string, string>, withCookie: boolean, decision = 'approve') =>
          ctx.http.send({
            method: 'POST',
            target: new URL(form.action || target, `${ctx.http.baseUrl}${target}`).pathname,
            headers: {
              'content-type': 'application/x-www-form-urlencoded',
              accept: 'text/html',
              ...(withCookie ? { cookie } : {}),
            },
            body: new URLSearchParams({
              ...fields,
              email: ctx.options.oauthUser ?? '',
              password: ctx.options.oauthPassword ?? '',
              decision,
            }).toString(),
            deliberate: true,
          });
        const refusedAlready = [
          ['without the CSRF cookie', await post(form.fields, false)],
          [
            'with another csrf_token',
            await post({ ...form.fields, csrf_token: randomBytes(16).toString('hex') }, true),
          ],
        ] as const;
        // The refusals above were no decision: the form is still good for one, "Deny"...
        const denied = await post(form.fields, true, 'deny');
        expect(
          denied.status === 303 && (denied.responseHeaders.location ?? '').includes('error=access_denied'),
          `the untouched form with "Deny" must send the browser back with error=access_denied, got ${denied.status} ${denied.responseHeaders.location ?? ''}`,
          [denied],
        );
        // ...and only one: the same form approved afterwards (submitAuthorizeForm, one decision per request).
        const afterDeny = await post(form.fields, true);
        for (const [what, e] of [...refusedAlready, ['approved after it was denied', afterDeny]] as const) {
          expect(
            e.status === 400 && e.responseHeaders.location === undefined,
            `the consent form posted ${what} must be refused with 400 (no redirect, no code), got ${e.status}${e.responseHeaders.location ? ` to ${e.responseHeaders.location}` : ''}`,
            [e],
          );
        }
      },
    },
    {
      id: 'public.oauth.token-errors',
      rules: ['spec:public:requestToken#/x-error-format', 'seed:public › Errors'],
      name: 'token endpoint errors are RFC 6749 JSON (error, error_description), status 400, Cache-Control: no-store',
      async run(ctx) {
        const as = await discovered(ctx);
        const client = await register(ctx, as, scope);
        const cases: Array<[string, Record<string, string>, string, { contentType?: string; body?: string }?]> = [
          ['grant_type=password', { grant_type: 'password', username: 'a', password: 'b' }, 'unsupported_grant_type'],
          [
            'grant_type=client_credentials',
            { grant_type: 'client_credentials', client_id: client.client_id },
            'unsupported_grant_type',
          ],
          [
            'a code exchange without the code',
            {
              grant_type: 'authorization_code',
              redirect_uri: REDIRECT_URI,
              client_id: client.client_id,
              code_verifier: 'x'.repeat(43),
            },
            'invalid_request',
          ],
          [
            'a made-up code',
            {
              grant_type: 'authorization_code',
              code: `ac_${randomBytes(12).toString('hex')}`,
              redirect_uri: REDIRECT_URI,
              client_id: client.client_id,
              code_verifier: oauth.generateRandomCodeVerifier(),
            },
            'invalid_grant',
          ],
          [
            'a made-up refresh token',
            {
              grant_type: 'refresh_token',
              refresh_token: `rt_${randomBytes(12).toString('hex')}`,
              client_id: client.client_id,
            },
            'invalid_grant',
          ],
          [
            'a JSON body',
            {},
            'invalid_request',
            {
              contentType: 'application/json',
              body: JSON.stringify({ grant_type: 'refresh_token', refresh_token: 'x' }),
            },
          ],
        ];
        for (const [what, form, error, extra] of cases)
          expectOAuthError(await tokenRequest(ctx, as, form, extra), error, `POST /api/oauth/token with ${what}`);
      },
    },
    ...pkcePlainChecks,
    ...codeLifetimeChecks,
  ],
};
