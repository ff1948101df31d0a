// What the public surface's modules share: their dependencies and the request's viewer (the
// signed-in user behind a valid bearer token, if one was sent). The pipeline in router.ts sets
// `res.locals.viewer` and `res.locals.publicCalls` before any handler runs.
import type { Request, RequestHandler } from 'express';
import type { Clock } from '../clock.ts';
import type { Faults } from '../faults.ts';
import type { Store } from '../store/index.ts';

export interface PublicDeps {
  store: Store;
  clock: Clock;
  faults: Faults;
  keys: {
    /** Signs public listing cursors. */
    cursors: Buffer;
    /** Signs OAuth page state (auth_request, CSRF) and derives token hashes. */
    oauth: Buffer;
  };
  /** Absolute base URL of this deployment without a trailing slash, e.g. `http://127.0.0.1:8080`. */
  baseUrl(req: Request): string;
  /** The deployment's own base URL, never from `Host` (HostTrust.listenBaseUrl): the docs' snippets. */
  docsBaseUrl?(req: Request): string;
  log: (message: string, err?: unknown) => void;
  /** WHOIS of names outside the inventory through RDAP (RDAP_LOOKUP). */
  rdapLookup?: boolean;
  /** Browser origins allowed at /mcp besides the deployment's own and loopback (MCP_ALLOWED_ORIGINS). */
  mcpAllowedOrigins?: string[];
}

/** The user and grant behind a valid bearer token. */
export interface Viewer {
  userId: string;
  clientId: string;
  grantId: string;
  scopes: string[];
  /** The RFC 8707 audience the token is bound to: `<base>` or `<base>/mcp`. */
  resource: string;
}

/** Verifies opaque access tokens (implemented by server/oauth). */
export interface AccessTokenVerifier {
  /** The viewer of a live, unrevoked, unexpired token; `null` for anything else. */
  verify(token: string): Promise<Viewer | null>;
}

/** Counts further calls against the caller's public rate limit (a batch counts one per entry). */
export type { FurtherCalls as PublicCalls } from '../http/rate-limit.ts';

declare module 'express-serve-static-core' {
  interface Locals {
    viewer?: Viewer;
  }
}

/** The handlers a module contributes, by the operationId of the public document. */
export type HandlerMap = Record<string, RequestHandler>;
