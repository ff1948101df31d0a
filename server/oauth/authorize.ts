// GET and POST /oauth/authorize (getAuthorizePage, submitAuthorizeForm): the browser side of
// the authorization code flow. Every authorization response carries `iss` (RFC 9207) and the
// client's `state`; nothing is ever redirected to a URI that is not registered for the client,
// and an error is redirected automatically, before the user has signed in, only to a URI that
// stays on the user's device (RFC 9700 §4.11.2; redirect-uri.ts, errorRedirectsAutomatically).
import type { Request, RequestHandler, Response } from 'express';
import { readCookie, setCookie } from '../http/cookies.ts';
import { ApiError } from '../http/errors.ts';
import { allowFormTargets, cspSourceOf } from '../http/security-headers.ts';
import type { PublicDeps } from '../public-api/context.ts';
import {
  CSRF_COOKIE,
  isCsrfToken,
  newCsrfToken,
  openAuthRequest,
  sealAuthRequest,
  type AuthRequest,
} from './auth-request.ts';
import { checkAuthorizeRequest, requestedClientId, type ClientView } from './authorize-request.ts';
import { errorReturnPage } from './authorize-error-page.ts';
import { consentPage, errorPage } from './authorize-page.ts';
import { readClientMetadata } from './client-metadata.ts';
import { isFormEncoded, readForm, single } from './form.ts';
import { issueCode, type GrantDeps } from './grants.ts';
import { errorRedirectsAutomatically, withParams } from './redirect-uri.ts';
import { parseScope } from './scopes.ts';
import { refuseThrottled, signinThrottle } from './signin-throttle.ts';
import { authenticate } from './users.ts';

const COOKIE_MAX_AGE_S = 3600;

const wantsJson = (req: Request) => req.accepts(['text/html', 'application/json']) === 'application/json';

// Framing, referrers and the CSP (the form may lead only to this origin and the client's
// redirect_uri, x-form-action) are set with every HTML answer by server/http/security-headers.ts.
function pageHeaders(res: Response): void {
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Vary', 'Accept');
}

/** A 400 page for a browser, or the Error body (thrown to the pipeline) for a JSON client. */
function refusePage(req: Request, res: Response, err: ApiError, title: string): void {
  if (wantsJson(req)) throw err;
  res.status(err.status).type('html').send(errorPage(title, err.message));
}

async function findClient(
  deps: PublicDeps,
  clientId: string | undefined,
): Promise<(ClientView & { name: string }) | undefined> {
  const row = clientId ? await deps.store.oauth.findClient(clientId) : undefined;
  if (!row) return undefined;
  const metadata = readClientMetadata(row.metadata);
  return {
    clientId: row.client_id,
    redirectUris: metadata.redirect_uris,
    scope: metadata.scope,
    name: metadata.client_name,
  };
}

/** How the user should recognise where they are sent: the host, or a native app's scheme. */
function redirectTarget(uri: string): string {
  const url = new URL(uri);
  return url.host || url.protocol.slice(0, -1);
}

function consent(
  request: AuthRequest,
  clientName: string,
  authRequest: string,
  csrfToken: string,
  extra: { email?: string; error?: string } = {},
): string {
  const parsed = parseScope(request.scope);
  return consentPage({
    clientName,
    redirectTarget: redirectTarget(request.redirectUri),
    scopes: parsed.ok ? parsed.scopes : [],
    authRequest,
    csrfToken,
    ...extra,
  });
}

export function authorizePage(deps: PublicDeps): RequestHandler {
  return async (req, res) => {
    pageHeaders(res);
    const base = deps.baseUrl(req);
    const query = req.query as Record<string, unknown>;
    const client = await findClient(deps, requestedClientId(query));
    const checked = checkAuthorizeRequest(query, base, client, deps.faults.has('pkce-plain-accepted'));
    if (checked.kind === 'untrusted') {
      return refusePage(
        req,
        res,
        new ApiError(checked.code, checked.message, [{ path: checked.path, message: checked.detail }]),
        'This sign-in link is not valid',
      );
    }
    if (checked.kind === 'redirect') {
      const location = withParams(checked.redirectUri, {
        error: checked.error,
        error_description: checked.description,
        state: checked.state,
        iss: base,
      });
      if (errorRedirectsAutomatically(checked.redirectUri)) {
        res.redirect(302, location);
        return;
      }
      // A self-registered https redirect URI: shown, with a link the user may follow.
      if (wantsJson(req)) {
        throw new ApiError('validation_error', `${checked.error}: ${checked.description}`, [
          { path: `/query/${checked.param}`, message: checked.description },
        ]);
      }
      res
        .status(400)
        .type('html')
        .send(
          errorReturnPage({
            error: checked.error,
            description: checked.description,
            returnUrl: location,
            destination: redirectTarget(checked.redirectUri),
          }),
        );
      return;
    }
    allowFormTargets(res, { redirect_uri: cspSourceOf(checked.request.redirectUri) });
    // One CSRF value per browser: another tab's page keeps working.
    const existing = readCookie(req, CSRF_COOKIE);
    const csrf = isCsrfToken(existing) ? existing : newCsrfToken();
    setCookie(res, { name: CSRF_COOKIE, value: csrf, path: '/oauth', maxAgeSeconds: COOKIE_MAX_AGE_S }, base);
    const sealed = sealAuthRequest(deps.keys.oauth, checked.request, csrf, deps.clock.now());
    res
      .status(200)
      .type('html')
      .send(consent(checked.request, client?.name ?? checked.request.clientId, sealed, csrf));
  };
}

const FORM_EXPIRED = 'The form has expired or was not sent from this site; start the sign-in again';
const FORM_USED = 'This sign-in form was already answered (approved or denied); start the sign-in again';

/** The name the store records decided authorization requests under (beside partner key ids, never one of them). */
const DECIDED = 'oauth:auth_request';

/**
 * Records the one decision an authorization request allows; false when it already had one. A
 * signed form could otherwise be posted again: approved after "Deny", or approved twice for two
 * codes. Kept until the form expires, after which it is refused as expired anyway.
 */
function consumeAuthRequest(deps: PublicDeps, opened: { id: string; expiresAt: number }): Promise<boolean> {
  return deps.store.replayGuard.recordNonce(DECIDED, opened.id, opened.expiresAt, deps.clock.now());
}

export function authorizeForm(deps: PublicDeps, grantDeps: GrantDeps): RequestHandler {
  const throttle = signinThrottle({ store: deps.store, key: deps.keys.oauth, now: () => deps.clock.now() });
  return async (req, res) => {
    pageHeaders(res);
    const base = deps.baseUrl(req);
    if (!isFormEncoded(req)) {
      return refusePage(
        req,
        res,
        new ApiError('unsupported_media_type', 'Send the form as application/x-www-form-urlencoded'),
        'Form not understood',
      );
    }
    const form = readForm(req);
    const authRequest = single(form, 'auth_request') ?? '';
    const opened = openAuthRequest(
      deps.keys.oauth,
      authRequest,
      readCookie(req, CSRF_COOKIE),
      single(form, 'csrf_token'),
      deps.clock.now(),
    );
    if (!opened.ok) {
      const detail =
        opened.problem === 'csrf'
          ? { path: '/body/csrf_token', message: 'does not match the CSRF cookie' }
          : {
              path: '/body/auth_request',
              message: opened.problem === 'expired' ? 'is older than 10 minutes' : 'is malformed or tampered',
            };
      return refusePage(
        req,
        res,
        new ApiError('validation_error', FORM_EXPIRED, [detail]),
        'This sign-in form is no longer valid',
      );
    }
    const request = opened.request;
    allowFormTargets(res, { redirect_uri: cspSourceOf(request.redirectUri) });
    const client = await findClient(deps, request.clientId);
    if (!client) {
      return refusePage(
        req,
        res,
        new ApiError('validation_error', FORM_EXPIRED, [
          { path: '/body/auth_request', message: 'names an unknown client' },
        ]),
        'This sign-in form is no longer valid',
      );
    }
    const back = (params: Record<string, string>) =>
      res.redirect(303, withParams(request.redirectUri, { ...params, state: request.state, iss: base }));
    const alreadyDecided = () =>
      refusePage(
        req,
        res,
        new ApiError('validation_error', FORM_USED, [
          { path: '/body/auth_request', message: 'was already approved or denied' },
        ]),
        'This sign-in form is no longer valid',
      );

    const decision = single(form, 'decision');
    if (decision === 'deny') {
      if (!(await consumeAuthRequest(deps, opened))) return alreadyDecided();
      return back({ error: 'access_denied', error_description: 'The user denied the request' });
    }
    if (decision !== 'approve') {
      return refusePage(
        req,
        res,
        new ApiError('validation_error', 'decision must be approve or deny', [
          { path: '/body/decision', message: 'must be approve or deny' },
        ]),
        'Form not understood',
      );
    }
    const email = single(form, 'email');
    const password = single(form, 'password');
    const csrf = single(form, 'csrf_token') ?? '';
    // Counted before the password is checked; refused while the account or the address must wait.
    const admission = email && password ? await throttle.admit(email, req.socket.remoteAddress) : undefined;
    if (admission && !admission.admitted) {
      return refuseThrottled(
        req,
        res,
        (error) => consent(request, client.name, authRequest, csrf, { ...(email ? { email } : {}), error }),
        admission.retryAfterSeconds,
      );
    }
    const userId = email && password ? await authenticate(deps.store, email, password) : undefined;
    if (userId && admission?.admitted) await throttle.succeeded(admission);
    if (!userId) {
      const error = email && password ? 'Wrong email or password.' : 'Enter your email and password to approve.';
      res
        .status(200)
        .type('html')
        .send(consent(request, client.name, authRequest, csrf, { ...(email ? { email } : {}), error }));
      return;
    }
    // Signed in: this is the request's decision, unless it already had one.
    if (!(await consumeAuthRequest(deps, opened))) return alreadyDecided();
    const code = await issueCode(grantDeps, {
      clientId: request.clientId,
      userId,
      redirectUri: request.redirectUri,
      codeChallenge: request.codeChallenge,
      scope: request.scope,
      resource: request.resource,
    });
    back({ code });
  };
}
