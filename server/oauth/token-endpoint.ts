// POST /api/oauth/token (requestToken): RFC 6749 §5 answers, status 400 for every refusal,
// never cached. The request is checked here in full, so the answer is the same whether or not
// a validator ran before, except for the parameters' lengths: those are the schema's, enforced
// by the validator in front (its refusals are invalid_request too).
import type { RequestHandler, Response } from 'express';
import type { PublicDeps } from '../public-api/context.ts';
import { exchangeCode, refreshGrant, type GrantDeps, type GrantResult, type TokenError } from './grants.ts';
import { VERIFIER_FORM } from './pkce.ts';
import { isFormEncoded, readForm, repeated, single } from './form.ts';
import { resolveResource } from './resources.ts';

const GRANT_PARAMS = [
  'grant_type',
  'code',
  'redirect_uri',
  'client_id',
  'code_verifier',
  'refresh_token',
  'scope',
  'resource',
];

export function noStore(res: Response): void {
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Pragma', 'no-cache');
}

function answer(res: Response, result: GrantResult): void {
  noStore(res);
  if (result.ok) res.status(200).json(result.tokens);
  else res.status(400).json(result.error);
}

const refuse = (error: TokenError['error'], description: string): GrantResult => ({
  ok: false,
  error: { error, error_description: description },
});

export function tokenEndpoint(deps: PublicDeps, grantDeps: GrantDeps): RequestHandler {
  return async (req, res) => {
    if (!isFormEncoded(req))
      return answer(res, refuse('invalid_request', 'Send the token request as application/x-www-form-urlencoded'));
    const form = readForm(req);
    const twice = repeated(form, GRANT_PARAMS);
    if (twice.length > 0)
      return answer(res, refuse('invalid_request', `Parameters must not be repeated: ${twice.join(', ')}`));
    const grantType = single(form, 'grant_type');
    if (grantType === undefined) return answer(res, refuse('invalid_request', 'grant_type is required'));
    if (grantType !== 'authorization_code' && grantType !== 'refresh_token') {
      return answer(res, refuse('unsupported_grant_type', 'grant_type must be authorization_code or refresh_token'));
    }

    const clientId = single(form, 'client_id');
    const resourceParam = single(form, 'resource');
    const resource = resolveResource(deps.baseUrl(req), resourceParam);
    if (resourceParam !== undefined && resource === undefined) {
      return answer(res, refuse('invalid_target', `resource must be ${deps.baseUrl(req)} or ${deps.baseUrl(req)}/mcp`));
    }

    if (grantType === 'authorization_code') {
      const missing = ['code', 'redirect_uri', 'client_id', 'code_verifier'].filter(
        (n) => single(form, n) === undefined,
      );
      if (missing.length > 0)
        return answer(
          res,
          refuse('invalid_request', `Missing for the authorization_code grant: ${missing.join(', ')}`),
        );
      const verifier = single(form, 'code_verifier') ?? '';
      if (!VERIFIER_FORM.test(verifier))
        return answer(
          res,
          refuse('invalid_request', 'code_verifier must be 43 to 128 characters of A-Z a-z 0-9 - . _ ~ (RFC 7636)'),
        );
      if (!(await grantDeps.store.oauth.findClient(clientId ?? '')))
        return answer(res, refuse('invalid_client', `Unknown client_id "${clientId}"; register the client first`));
      return answer(
        res,
        await exchangeCode(grantDeps, {
          code: single(form, 'code') ?? '',
          clientId: clientId ?? '',
          redirectUri: single(form, 'redirect_uri') ?? '',
          codeVerifier: verifier,
          resource: resourceParam === undefined ? undefined : resource,
        }),
      );
    }

    const refreshToken = single(form, 'refresh_token');
    if (refreshToken === undefined)
      return answer(res, refuse('invalid_request', 'refresh_token is required for the refresh_token grant'));
    if (clientId !== undefined && !(await grantDeps.store.oauth.findClient(clientId))) {
      return answer(res, refuse('invalid_client', `Unknown client_id "${clientId}"`));
    }
    return answer(
      res,
      await refreshGrant(grantDeps, {
        refreshToken,
        clientId,
        scope: form.has('scope') ? (form.get('scope')?.[0] ?? '') : undefined,
        resource: resourceParam === undefined ? undefined : resource,
      }),
    );
  };
}
