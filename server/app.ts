// createApp(deps): the one place that wires the pipeline and the routes. The clock, the store,
// the configuration and the webhook dispatcher are injected, so tests control all of them.
import express, { type Express } from 'express';
import { adminRouter } from './admin/router.ts';
import type { Clock } from './clock.ts';
import { Contract, GENERATED_DIR } from './contract/index.ts';
import type { Config } from './config.ts';
import { NO_FAULTS, withoutCurrency, type Faults } from './faults.ts';
import { cors, corsRules } from './http/cors.ts';
import { errorHandler } from './http/errors.ts';
import { noOperation } from './http/match-operation.ts';
import { rawBody } from './http/raw-body.ts';
import { requestId } from './http/request-id.ts';
import { securityHeaders } from './http/security-headers.ts';
import { hostTrust } from './http/trusted-host.ts';
import { partnerRouter } from './partner/router.ts';
import { brokerageProgressRouter } from './public/brokerage-progress.ts';
import { originAllowed } from './mcp/origin.ts';
import { requestObserver } from './ops/access-log.ts';
import { closeConnectionsWhileDraining } from './ops/drain.ts';
import { createReadiness, healthRouter, type Readiness } from './ops/health.ts';
import { loggerFromEnv, type Logger } from './ops/logger.ts';
import type { Metrics } from './ops/metrics.ts';
import { hostedPagesRouter } from './public/checkout.ts';
import type { PublicDeps } from './public-api/context.ts';
import { publicModules } from './public-api/modules.ts';
import { publicRouter } from './public-api/router.ts';
import { derivedKey } from './security/secret-box.ts';
import type { Store } from './store/index.ts';
import type { Resolve } from './webhooks/resolve.ts';

export { GENERATED_DIR };

export interface AppDeps {
  config: Pick<Config, 'adminToken' | 'masterKey' | 'validateResponses'> &
    Partial<Pick<Config, 'publicBaseUrl' | 'rdapLookup' | 'mcpAllowedOrigins' | 'host'>>;
  store: Store;
  clock: Clock;
  /** Told when a change has queued webhook deliveries. */
  dispatcher?: { wake(): void };
  /** Resolves webhook host names (tests inject one; default: the system resolver). */
  resolve?: Resolve;
  log?: (message: string, err?: unknown) => void;
  /** Structured logs: one line per request (server/ops/access-log.ts). Default: LOG_LEVEL (silent under vitest). */
  logger?: Logger;
  /** Prometheus metrics (server/ops/metrics.ts); none counted without. */
  metrics?: Metrics;
  /** /readyz's state (draining, search index); default: store and migrations checked, index taken as warm. */
  readiness?: Readiness;
  /** Test-only: break rules of the contract on purpose (server/faults.ts). */
  faults?: Faults;
}

export function createApp(deps: AppDeps): Express {
  // The contract index, built once: every step and router reads its per-operation facts here.
  const contract = Contract.load(GENERATED_DIR);
  const logger = deps.logger ?? loggerFromEnv();
  const log = deps.log ?? ((message: string, err?: unknown) => logger.error({ event: 'request_failed', err }, message));
  const readiness = deps.readiness ?? createReadiness(deps.store);
  const faults = deps.faults ?? NO_FAULTS;
  // A deployment that mangles its answers has no response validation in front of them.
  const validateResponses = deps.config.validateResponses && !faults.has('remove-response-field');
  const hosts = hostTrust({ publicBaseUrl: deps.config.publicBaseUrl, listenHost: deps.config.host });
  const partnerDeps = {
    store: deps.store,
    clock: deps.clock,
    keys: {
      quotes: derivedKey(deps.config.masterKey, 'quotes'),
      cursors: derivedKey(deps.config.masterKey, 'cursors'),
    },
    notifyOutbox: () => deps.dispatcher?.wake(),
    faults,
    ...(deps.resolve ? { resolve: deps.resolve } : {}),
    baseUrl: hosts.baseUrl,
  };

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // CORS is the public document's (`x-cors`); `allowed-origins` is the /mcp Origin rule.
  const corsLayer = cors({
    contract: contract.public,
    rules: corsRules(contract.public),
    originAllowed: (origin, req) => originAllowed(origin, hosts.baseUrl(req), deps.config.mcpAllowedOrigins ?? []),
  });
  // The Host check comes first: nothing may be answered, or echoed, for an untrusted host. The
  // security headers go on every answer, the Host check's refusals included. Preflights are
  // answered next, before anything counts them.
  app.use(requestId());
  // Observed from the request id on, so every answer (a 421 included) is logged and counted; left
  // out entirely when nothing would be logged or counted (the benchmark's baseline).
  if (deps.metrics || logger.isLevelEnabled('fatal'))
    app.use(requestObserver({ logger, ...(deps.metrics ? { metrics: deps.metrics } : {}) }));
  app.use(
    securityHeaders({ contract: contract.public, publicBaseUrl: deps.config.publicBaseUrl }),
    hosts.middleware,
    closeConnectionsWhileDraining(readiness),
  );
  if (faults.has('partner-no-nosniff'))
    app.use((req, res, next) => {
      if (req.path.startsWith('/api/partner/')) res.removeHeader('X-Content-Type-Options');
      next();
    });
  // The probes (x-rate-limit: none) before CORS, the body reader and the rate-limited pipeline.
  app.use(healthRouter(readiness, contract.public));
  app.use(corsLayer, rawBody());
  if (faults.has('cors-missing-on-errors'))
    app.use((_req, res, next) => {
      const writeHead = res.writeHead;
      res.writeHead = function (this: typeof res, ...args: unknown[]) {
        const status = typeof args[0] === 'number' ? args[0] : res.statusCode;
        if (status >= 400) res.removeHeader('Access-Control-Allow-Origin');
        return (writeHead as (...a: unknown[]) => typeof res).apply(this, args);
      } as typeof res.writeHead;
      next();
    });
  if (faults.has('remove-response-field')) {
    app.use((_req, res, next) => {
      const json = res.json.bind(res);
      res.json = (body: unknown) => json(withoutCurrency(body));
      next();
    });
  }

  const hostedPages = hostedPagesRouter(partnerDeps);
  const brokerageProgress = brokerageProgressRouter(partnerDeps);
  const publicDeps: PublicDeps = {
    store: deps.store,
    clock: deps.clock,
    faults,
    keys: {
      cursors: derivedKey(deps.config.masterKey, 'public-cursors'),
      oauth: derivedKey(deps.config.masterKey, 'oauth'),
    },
    baseUrl: hosts.baseUrl,
    log,
    ...(deps.config.rdapLookup ? { rdapLookup: true } : {}),
    ...(deps.config.mcpAllowedOrigins?.length ? { mcpAllowedOrigins: deps.config.mcpAllowedOrigins } : {}),
  };
  const modules = publicModules(publicDeps);
  const publicSurface = publicRouter(publicDeps, {
    contract: contract.public,
    validateResponses,
    handlers: modules.handlers,
    accessTokens: modules.accessTokens,
    selfValidating: {
      ...modules.selfValidating,
      getCheckoutPage: hostedPages,
      payCheckout: hostedPages,
      cancelCheckout: hostedPages,
      followReferralLink: hostedPages,
      getBrokerageProgress: brokerageProgress,
    },
  });

  // The partner document lives under the partner prefix but is public (the public document serves it: spec/public/paths/partner-openapi-json.yaml).
  app.get('/api/partner/v1/openapi.json', publicSurface);
  app.use('/api/partner', partnerRouter(partnerDeps, { contract: contract.partner, validateResponses }));
  if (deps.config.adminToken) {
    app.use(
      '/api/admin/v1',
      adminRouter(partnerDeps, {
        adminToken: deps.config.adminToken,
        contract: contract.admin,
        partnerContract: contract.partner,
        validateResponses,
      }),
    );
  }
  app.use(publicSurface);
  app.use((req, _res, next) => next(noOperation(req.method, req.path)));
  app.use(errorHandler(log, faults));
  return app;
}
