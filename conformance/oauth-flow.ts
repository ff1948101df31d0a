// The OAuth 2.1 flow as a real client runs it (the public document's "Authentication" paragraph): discovery, dynamic registration,
// PKCE S256, the server-rendered sign-in and consent page driven like a browser without
// JavaScript (fetch the page, read its form's hidden inputs and the CSRF cookie, post it back),
// then the code exchange. oauth4webapi does the client side (it checks state, iss and the token
// response); the requests go through the suite's recorder, so every answer is schema-checked too.
import * as oauth from 'oauth4webapi';
import { CheckFailure, oncePerRun, type Context } from './context.ts';
import { jsonOf, type Exchange } from './http.ts';

/** Never followed: the suite reads the code from the redirect's Location. Loopback, so any port matches. */
export const REDIRECT_URI = 'http://127.0.0.1:47913/callback';

export interface Flow {
  as: oauth.AuthorizationServer;
  client: oauth.Client;
  redirectUri: string;
}

export interface Tokens extends Flow {
  accessToken: string;
  refreshToken: string;
  scope: string;
  response: oauth.TokenEndpointResponse;
}

export function libraryOptions(ctx: Context): {
  [oauth.customFetch]: typeof fetch;
  [oauth.allowInsecureRequests]: boolean;
} {
  return {
    [oauth.customFetch]: ctx.http.asFetch(),
    [oauth.allowInsecureRequests]: ctx.http.baseUrl.startsWith('http:'),
  };
}

/** Turns oauth4webapi's errors into failures that say what the deployment answered. */
export async function asCheck<T>(why: string, run: () => Promise<T>, ctx: Context): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof CheckFailure) throw err;
    const last = ctx.http.exchanges.slice(-1);
    const detail =
      err instanceof Error
        ? `${err.name}: ${err.message}${(err as { cause?: unknown }).cause ? ` (${JSON.stringify((err as { cause?: unknown }).cause).slice(0, 300)})` : ''}`
        : String(err);
    throw new CheckFailure(`${why}: ${detail}`, last);
  }
}

/** The authorization server's metadata, discovered once per run (the metadata check discovers it afresh). */
export function discovered(ctx: Context): Promise<oauth.AuthorizationServer> {
  return oncePerRun(ctx, 'oauth discovery', () => discover(ctx));
}

export async function discover(ctx: Context): Promise<oauth.AuthorizationServer> {
  const issuer = new URL(ctx.http.baseUrl);
  return asCheck(
    'discovery of the authorization server metadata (RFC 8414) with oauth4webapi',
    async () =>
      oauth.processDiscoveryResponse(
        issuer,
        await oauth.discoveryRequest(issuer, { ...libraryOptions(ctx), algorithm: 'oauth2' }),
      ),
    ctx,
  );
}

export async function register(
  ctx: Context,
  as: oauth.AuthorizationServer,
  scope: string,
  redirectUri = REDIRECT_URI,
): Promise<oauth.Client> {
  const metadata = {
    client_name: 'Conformance kit',
    redirect_uris: [redirectUri],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    scope,
  };
  return asCheck(
    'dynamic client registration (RFC 7591) with oauth4webapi',
    async () =>
      oauth.processDynamicClientRegistrationResponse(
        await oauth.dynamicClientRegistrationRequest(as, metadata, libraryOptions(ctx)),
      ),
    ctx,
  );
}

/** The form of an HTML page: action, method and every named input (hidden ones included). */
export interface HtmlForm {
  action: string;
  method: string;
  fields: Record<string, string>;
  buttons: Array<{ name: string; value: string }>;
}

const decode = (s: string) =>
  s.replace(/&(#x[0-9a-f]+|#\d+|amp|quot|apos|lt|gt|#39);/gi, (m, e: string) => {
    const lower = e.toLowerCase();
    if (lower.startsWith('#x')) return String.fromCodePoint(parseInt(lower.slice(2), 16));
    if (lower.startsWith('#')) return String.fromCodePoint(Number(lower.slice(1)));
    return ({ amp: '&', quot: '"', apos: "'", lt: '<', gt: '>' } as Record<string, string>)[lower] ?? m;
  });

function attributes(tag: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of tag.matchAll(/([a-zA-Z_:][-\w:.]*)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+)))?/g)) {
    out[m[1]!.toLowerCase()] = decode(m[2] ?? m[3] ?? m[4] ?? '');
  }
  return out;
}

/** Every form of a page, as a browser without JavaScript would submit it. */
export function parseForms(html: string): HtmlForm[] {
  const forms: HtmlForm[] = [];
  for (const m of html.matchAll(/<form\b([^>]*)>([\s\S]*?)<\/form>/gi)) {
    const attrs = attributes(m[1] ?? '');
    const fields: Record<string, string> = {};
    const buttons: Array<{ name: string; value: string }> = [];
    for (const input of (m[2] ?? '').matchAll(/<(input|button)\b([^>]*)>/gi)) {
      const a = attributes(input[2] ?? '');
      if (!a.name) continue;
      const type = (a.type ?? (input[1]!.toLowerCase() === 'button' ? 'submit' : 'text')).toLowerCase();
      if (type === 'submit') buttons.push({ name: a.name, value: a.value ?? '' });
      else fields[a.name] = a.value ?? '';
    }
    forms.push({ action: attrs.action ?? '', method: (attrs.method ?? 'get').toLowerCase(), fields, buttons });
  }
  return forms;
}

/** `name=value` of each Set-Cookie, for a Cookie header. */
export function cookieHeader(exchange: Exchange): string {
  return (exchange.setCookies ?? [])
    .map((c) => c.split(';')[0]?.trim() ?? '')
    .filter((c) => c.includes('='))
    .join('; ');
}

export interface AuthorizeRequest {
  scope?: string;
  state?: string;
  resource?: string;
  codeChallenge: string;
  redirectUri?: string;
}

/** The authorization request's target on the deployment (path and query). */
export function authorizeTarget(
  ctx: Context,
  as: oauth.AuthorizationServer,
  client: oauth.Client,
  r: AuthorizeRequest,
): string {
  const endpoint = new URL(as.authorization_endpoint ?? `${ctx.http.baseUrl}/oauth/authorize`);
  const url = new URL(endpoint.href);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', client.client_id);
  url.searchParams.set('redirect_uri', r.redirectUri ?? REDIRECT_URI);
  url.searchParams.set('code_challenge', r.codeChallenge);
  url.searchParams.set('code_challenge_method', 'S256');
  if (r.state !== undefined) url.searchParams.set('state', r.state);
  if (r.scope !== undefined) url.searchParams.set('scope', r.scope);
  if (r.resource !== undefined) url.searchParams.set('resource', r.resource);
  if (!url.href.startsWith(ctx.http.baseUrl))
    throw new CheckFailure(`authorization_endpoint ${endpoint.href} is not on the deployment ${ctx.http.baseUrl}`);
  return url.href.slice(ctx.http.baseUrl.length);
}

/**
 * Opens the authorization page, signs in and approves (or denies) like a browser without
 * JavaScript. Returns the redirect's Location (the client's callback with code or error).
 */
export async function signInAndConsent(
  ctx: Context,
  target: string,
  user: { email: string; password: string },
  decision: 'approve' | 'deny' = 'approve',
): Promise<{ location: URL; page: Exchange; submitted: Exchange }> {
  const page = await ctx.http.send({ target, headers: { accept: 'text/html' } });
  if (page.status !== 200)
    throw new CheckFailure(
      `the authorization page answered ${page.status}, expected 200 with the sign-in and consent form`,
      [page],
    );
  const form = parseForms(page.responseBody).find((f) => f.method === 'post' && 'csrf_token' in f.fields);
  if (!form)
    throw new CheckFailure(
      'the authorization page has no POST form with a csrf_token field (a browser without JavaScript could not sign in)',
      [page],
    );
  const cookie = cookieHeader(page);
  if (!cookie)
    throw new CheckFailure(
      "the authorization page set no cookie; the form's csrf_token is checked against one (Set-Cookie is required)",
      [page],
    );
  const action = new URL(form.action || target, `${ctx.http.baseUrl}${target}`);
  if (!action.href.startsWith(ctx.http.baseUrl))
    throw new CheckFailure(`the form posts to ${action.href}, not to the deployment`, [page]);
  const button = form.buttons.find((b) => b.value === decision);
  const body = new URLSearchParams({
    ...form.fields,
    email: user.email,
    password: user.password,
    [button?.name ?? 'decision']: decision,
  });
  if (decision === 'deny') {
    body.delete('email');
    body.delete('password');
  }
  const submitted = await ctx.http.send({
    method: 'POST',
    target: action.href.slice(ctx.http.baseUrl.length),
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie, accept: 'text/html' },
    body: body.toString(),
  });
  if (submitted.status === 200)
    throw new CheckFailure(
      `signing in as ${user.email} was refused (the page came back): check --oauth-user/--oauth-password`,
      [submitted],
    );
  if (submitted.status !== 303 && submitted.status !== 302)
    throw new CheckFailure(
      `submitting the consent form answered ${submitted.status}; expected 303 to the client's redirect_uri`,
      [submitted],
    );
  const location = submitted.responseHeaders.location;
  if (!location) throw new CheckFailure(`the ${submitted.status} after consent has no Location`, [submitted]);
  return { location: new URL(location, ctx.http.baseUrl), page, submitted };
}

/** A raw token request (form-encoded), for the checks that want the exact error. */
export function tokenRequest(
  ctx: Context,
  as: oauth.AuthorizationServer,
  form: Record<string, string>,
  extra: { contentType?: string; body?: string } = {},
): Promise<Exchange> {
  const endpoint = as.token_endpoint ?? `${ctx.http.baseUrl}/api/oauth/token`;
  if (!endpoint.startsWith(ctx.http.baseUrl))
    throw new CheckFailure(`token_endpoint ${endpoint} is not on the deployment ${ctx.http.baseUrl}`);
  return ctx.http.send({
    method: 'POST',
    target: endpoint.slice(ctx.http.baseUrl.length),
    headers: { 'content-type': extra.contentType ?? 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: extra.body ?? new URLSearchParams(form).toString(),
    rateClass: 'public',
  });
}

export interface CodeGrant extends Flow {
  code: string;
  verifier: string;
  callback: URLSearchParams;
  location: URL;
}

/** Discovery (or the given server), registration, PKCE and consent: a fresh code. */
export async function authorizationCode(
  ctx: Context,
  o: { scope: string; resource?: string; as?: oauth.AuthorizationServer; client?: oauth.Client },
): Promise<CodeGrant> {
  const user = { email: ctx.options.oauthUser ?? '', password: ctx.options.oauthPassword ?? '' };
  const as = o.as ?? (await discovered(ctx));
  const client = o.client ?? (await register(ctx, as, o.scope));
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const target = authorizeTarget(ctx, as, client, {
    scope: o.scope,
    state,
    codeChallenge: await oauth.calculatePKCECodeChallenge(verifier),
    ...(o.resource ? { resource: o.resource } : {}),
  });
  const { location, submitted } = await signInAndConsent(ctx, target, user);
  if (!location.href.startsWith(REDIRECT_URI))
    throw new CheckFailure(
      `after consent the browser is sent to ${location.href}, not to the registered redirect_uri ${REDIRECT_URI}`,
      [submitted],
    );
  // Checks state and iss (RFC 9207) as a careful client does.
  const callback = await asCheck(
    'the authorization response (state and iss checked by oauth4webapi)',
    async () => oauth.validateAuthResponse(as, client, location, state),
    ctx,
  ).catch((err: unknown) => {
    if (err instanceof CheckFailure) throw new CheckFailure(err.message, [submitted]);
    throw err;
  });
  const code = callback.get('code');
  if (!code) throw new CheckFailure('the authorization response has no code', [submitted]);
  return { as, client, redirectUri: REDIRECT_URI, code, verifier, callback, location };
}

export async function exchangeCode(ctx: Context, grant: CodeGrant): Promise<Tokens> {
  const response = await asCheck(
    'the code exchange at the token endpoint (oauth4webapi)',
    async () =>
      oauth.processAuthorizationCodeResponse(
        grant.as,
        grant.client,
        await oauth.authorizationCodeGrantRequest(
          grant.as,
          grant.client,
          oauth.None(),
          grant.callback,
          grant.redirectUri,
          grant.verifier,
          libraryOptions(ctx),
        ),
      ),
    ctx,
  );
  if (!response.refresh_token)
    throw new CheckFailure('the token response has no refresh_token', ctx.http.exchanges.slice(-1));
  return {
    as: grant.as,
    client: grant.client,
    redirectUri: grant.redirectUri,
    accessToken: response.access_token,
    refreshToken: response.refresh_token,
    scope: response.scope ?? '',
    response,
  };
}

export async function refresh(ctx: Context, flow: Flow, refreshToken: string): Promise<Tokens> {
  const response = await asCheck(
    'a refresh at the token endpoint (oauth4webapi)',
    async () =>
      oauth.processRefreshTokenResponse(
        flow.as,
        flow.client,
        await oauth.refreshTokenGrantRequest(flow.as, flow.client, oauth.None(), refreshToken, libraryOptions(ctx)),
      ),
    ctx,
  );
  if (!response.refresh_token)
    throw new CheckFailure(
      'the refresh answer has no new refresh_token (they rotate on every use)',
      ctx.http.exchanges.slice(-1),
    );
  return {
    ...flow,
    accessToken: response.access_token,
    refreshToken: response.refresh_token,
    scope: response.scope ?? '',
    response,
  };
}

/** The whole flow: tokens of the sandbox user for `scope`. */
export async function obtainTokens(ctx: Context, o: { scope: string; resource?: string }): Promise<Tokens> {
  return exchangeCode(ctx, await authorizationCode(ctx, o));
}

/** The `error` of an RFC 6749 / RFC 7591 error answer. */
export const oauthError = (exchange: Exchange) => (jsonOf(exchange) as { error?: unknown } | undefined)?.error;
