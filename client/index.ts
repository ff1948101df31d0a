// Everything the client package offers, for Node 20+. Browsers and edge runtimes import the
// subpaths that need no Node built-ins instead: `@domain-sales/client/public`, `/oauth`,
// `/rate-limit`, `/retry` (the package README says which runs where).
export * from './protocol/index.ts';
export * from './partner.ts';
export * from './public.ts';
export * from './webhooks.ts';
export * from './oauth.ts';
export * from './rate-limit.ts';
export * from './http/retry.ts';
