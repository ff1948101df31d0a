// OAuth 2.1 authorization-code flow with PKCE (S256) against the service's authorization
// server, on oauth4webapi: discovery (RFC 8414), dynamic registration (RFC 7591), the authorize
// URL, the code exchange (checking state and RFC 9207 `iss`), and refresh with rotation.
import * as oauth from 'oauth4webapi';

export interface TokenSet {
  access_token: string;
  refresh_token: string;
  /** Epoch milliseconds at which the access token lapses. */
  expires_at: number;
  scope: string;
}

/** Where the caller keeps the current tokens. `save` must persist before the new tokens are used: the old refresh token is dead once rotated. */
export interface TokenStore {
  load(): TokenSet | undefined | Promise<TokenSet | undefined>;
  save(tokens: TokenSet): void | Promise<void>;
}

export interface OAuthOptions {
  /** The authorization server's issuer identifier (the service base address). */
  issuer: string;
  clientId: string;
  redirectUri: string;
  /** Space-separated scopes. Default `pricing:read`. */
  scope?: string;
  /** RFC 8707 resource indicator the token is bound to. */
  resource?: string;
  fetch?: typeof globalThis.fetch;
  /** Allow plain http (a local sandbox). Never for a deployment. */
  allowHttp?: boolean;
  now?: () => number;
}

/** What the caller keeps between sending the browser away and its return (e.g. in a session). */
export interface PendingAuthorization {
  url: URL;
  state: string;
  codeVerifier: string;
}

type RequestOptions = { [oauth.customFetch]?: typeof globalThis.fetch; [oauth.allowInsecureRequests]?: boolean };

function requestOptions(options: Pick<OAuthOptions, 'fetch' | 'allowHttp'>): RequestOptions {
  const out: RequestOptions = {};
  if (options.fetch) out[oauth.customFetch] = options.fetch;
  if (options.allowHttp) out[oauth.allowInsecureRequests] = true;
  return out;
}

/** Reads the authorization server metadata (RFC 8414), checking that it names the expected issuer. */
export async function discover(
  issuer: string,
  options: Pick<OAuthOptions, 'fetch' | 'allowHttp'> = {},
): Promise<oauth.AuthorizationServer> {
  const issuerUrl = new URL(issuer);
  const response = await oauth.discoveryRequest(issuerUrl, { algorithm: 'oauth2', ...requestOptions(options) });
  return oauth.processDiscoveryResponse(issuerUrl, response);
}

/** Registers a public client (RFC 7591; no secret, `token_endpoint_auth_method: none`) and returns its client_id. */
export async function registerClient(
  as: oauth.AuthorizationServer,
  metadata: { redirect_uris: string[]; client_name: string },
  options: Pick<OAuthOptions, 'fetch' | 'allowHttp'> = {},
): Promise<string> {
  const response = await oauth.dynamicClientRegistrationRequest(
    as,
    {
      ...metadata,
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    },
    requestOptions(options),
  );
  const client = await oauth.processDynamicClientRegistrationResponse(response);
  return client.client_id;
}

export function createPkceFlow(as: oauth.AuthorizationServer, options: OAuthOptions) {
  const client: oauth.Client = { client_id: options.clientId, token_endpoint_auth_method: 'none' };
  const auth = oauth.None();
  const http = requestOptions(options);
  const now = options.now ?? Date.now;

  const toTokenSet = (result: oauth.TokenEndpointResponse, previous?: TokenSet): TokenSet => {
    if (!result.refresh_token && !previous) throw new Error('The token response carried no refresh_token.');
    return {
      access_token: result.access_token,
      refresh_token: result.refresh_token ?? (previous as TokenSet).refresh_token,
      expires_at: now() + (result.expires_in ?? 0) * 1000,
      scope: result.scope ?? previous?.scope ?? options.scope ?? 'pricing:read',
    };
  };

  return {
    /** Builds the authorize URL with a fresh state and S256 code challenge. */
    async start(): Promise<PendingAuthorization> {
      if (!as.authorization_endpoint)
        throw new Error('The authorization server metadata has no authorization_endpoint.');
      const codeVerifier = oauth.generateRandomCodeVerifier();
      const state = oauth.generateRandomState();
      const url = new URL(as.authorization_endpoint);
      url.searchParams.set('response_type', 'code');
      url.searchParams.set('client_id', options.clientId);
      url.searchParams.set('redirect_uri', options.redirectUri);
      url.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(codeVerifier));
      url.searchParams.set('code_challenge_method', 'S256');
      url.searchParams.set('state', state);
      url.searchParams.set('scope', options.scope ?? 'pricing:read');
      if (options.resource) url.searchParams.set('resource', options.resource);
      return { url, state, codeVerifier };
    },

    /** Validates the redirect back (state, iss, error) and exchanges the code for tokens. */
    async finish(
      callbackUrl: string | URL,
      pending: Pick<PendingAuthorization, 'state' | 'codeVerifier'>,
    ): Promise<TokenSet> {
      const params = oauth.validateAuthResponse(as, client, new URL(callbackUrl), pending.state);
      const extra = options.resource ? { additionalParameters: { resource: options.resource } } : {};
      const response = await oauth.authorizationCodeGrantRequest(
        as,
        client,
        auth,
        params,
        options.redirectUri,
        pending.codeVerifier,
        {
          ...http,
          ...extra,
        },
      );
      return toTokenSet(await oauth.processAuthorizationCodeResponse(as, client, response));
    },

    /** Uses the stored refresh token once, and saves the rotated set before returning it. */
    async refresh(store: TokenStore): Promise<TokenSet> {
      const current = await store.load();
      if (!current) throw new Error('No tokens stored: run the authorization flow first.');
      const response = await oauth.refreshTokenGrantRequest(as, client, auth, current.refresh_token, http);
      const next = toTokenSet(await oauth.processRefreshTokenResponse(as, client, response), current);
      await store.save(next);
      return next;
    },
  };
}

export type PkceFlow = ReturnType<typeof createPkceFlow>;
export { oauth };
