// createApp(deps): the one place that wires the pipeline and the routes. The clock, the store,
// the configuration and the webhook dispatcher are injected, so tests control all of them.
import express, { type Express, type RequestHandler } from 'express';
import { adminRouter } from './admin/router.ts';
import type { Clock } from './clock.ts';
import { Contract, GENERATED_DIR } from './contract/index.ts';
import type { Config } from './config.ts';
import { NO_FAULTS, withoutCurrency, type Faults } from './faults.ts';
import { cors, corsRules } from './http/cors.ts';
import { errorHandler } from './http/errors.ts';
import { headAsGet } from './http/head.ts';
import { inOrder } from './http/in-order.ts';
import { noOperation } from './http/match-operation.ts';
import {
  answerExpectation,
  bodyLimitOfPath,
  refuseUnknownTransferCoding,
  refuseUnsupportedMessage,
} from './http/message-checks.ts';
import { rawBody } from './http/raw-body.ts';
import { requestId } from './http/request-id.ts';
import { acceptEveryRequestTarget, refuseMalformedTarget } from './http/request-target.ts';
import { securityHeaders, surfaceHeaders } from './http/security-headers.ts';
import { refuseRepeatedHeaders, singleHeadersOf } from './http/single-headers.ts';
import { hostTrust } from './http/trusted-host.ts';
import type { ContractDefectLog } from './http/validator.ts';
import { sandboxLoopbackByDefault } from './domain/webhook-url.ts';
import { partnerRouter } from './partner/router.ts';
import { brokerageProgressRouter } from './public/brokerage-progress.ts';
import { originAllowed } from './mcp/origin.ts';
import { requestObserver } from './ops/access-log.ts';
import { closeConnectionsWhileDraining } from './ops/drain.ts';
import { createReadiness, healthProbes, type Readiness } from './ops/health.ts';
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
    Partial<Pick<Config, 'publicBaseUrl' | 'rdapLookup' | 'mcpAllowedOrigins' | 'host' | 'sandboxWebhookLoopback'>>;
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
  // A committed change whose answer breaks the contract: answered as committed, logged here.
  const onContractDefect: ContractDefectLog = (req, detail) =>
    logger.error(
      { event: 'contract_defect', method: req.method, path: req.path, ...detail },
      'an answer broke the contract after its change was committed; it was sent as written',
    );
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
    destinations: { sandboxLoopback: sandboxWebhookLoopbackOf(deps.config) },
    baseUrl: hosts.baseUrl,
  };

  const repeatedHeaders: RequestHandler = faults.has('repeated-headers-joined')
    ? (_req, _res, next) => next()
    : refuseRepeatedHeaders(singleHeadersOf([contract.public, contract.partner, contract.admin]));

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // Every target reaches the pipeline below, however odd (`x-request-target`).
  if (!faults.has('target-parsed-by-router'))
    acceptEveryRequestTarget(app, { forgetAbsoluteForm: faults.has('absolute-target-path-signed') });
  // CORS is the public document's (`x-cors`); `allowed-origins` is the /mcp Origin rule.
  const corsLayer = cors({
    contract: contract.public,
    rules: corsRules(contract.public),
    originAllowed: (origin, req) => originAllowed(origin, hosts.baseUrl(req), deps.config.mcpAllowedOrigins ?? []),
  });
  // The Host check comes first: nothing may be answered, or echoed, for an untrusted host. The
  // security headers go on every answer, the Host check's refusals included. Preflights are
  // answered next, before anything counts them.
  // Observed from the request id on, so every answer (a 421 included) is logged and counted; left
  // out entirely when nothing would be logged or counted (the benchmark's baseline).
  const observed =
    deps.metrics || logger.isLevelEnabled('fatal')
      ? [requestObserver({ logger, ...(deps.metrics ? { metrics: deps.metrics } : {}) })]
      : [];
  // One router layer for the whole group (http/in-order.ts): Express pays per layer on every
  // request, however short the middleware.
  app.use(
    inOrder(
      requestId(),
      ...observed,
      securityHeaders({
        contract: contract.public,
        publicBaseUrl: deps.config.publicBaseUrl,
        ...(faults.has('form-action-self-only') ? { formActionSelfOnly: true } : {}),
      }),
      // The partner document's own every-answer headers (`Cache-Control: no-store`) on every answer
      // under its prefix, refusals included.
      surfaceHeaders({
        contract: contract.partner,
        prefix: '/api/partner/',
        others: [contract.public],
        publicBaseUrl: deps.config.publicBaseUrl,
      }),
      // HEAD is the GET without its body (`x-head`); its headers are derived from the body all the same.
      headAsGet(),
      // Another HTTP major version (505) or an HTTP/1.1 request without Host (400): `x-protocol-refusals`.
      refuseUnsupportedMessage(),
      // A repeated Host (RFC 9112 §3.2), credential or signing header is a 400 before anything reads it.
      repeatedHeaders,
      hosts.middleware,
      refuseMalformedTarget(),
      // A transfer coding other than chunked: 501 before the body is read (`x-protocol-refusals`).
      refuseUnknownTransferCoding(),
      // Expect: 417, an early 413, or 100 Continue, once the Host and the target have passed.
      answerExpectation(bodyLimitOfPath(contract)),
      closeConnectionsWhileDraining(readiness),
    ),
  );
  if (faults.has('head-signed-as-get'))
    app.use((req, _res, next) => {
      if (req.method === 'HEAD' && req.path.startsWith('/api/partner/')) req.method = 'GET';
      next();
    });
  if (faults.has('head-content-length-zero'))
    app.use((req, res, next) => {
      if (req.method !== 'HEAD') return next();
      const writeHead = res.writeHead;
      res.writeHead = function (this: typeof res, ...args: unknown[]) {
        res.setHeader('Content-Length', '0');
        return (writeHead as (...a: unknown[]) => typeof res).apply(this, args);
      } as typeof res.writeHead;
      next();
    });
  if (faults.has('partner-no-nosniff'))
    app.use((req, res, next) => {
      if (req.path.startsWith('/api/partner/')) res.removeHeader('X-Content-Type-Options');
      next();
    });
  // The probes (x-rate-limit: none) before CORS, the body reader and the rate-limited pipeline.
  app.use(healthProbes(readiness, contract.public));
  app.use(inOrder(corsLayer, rawBody()));
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
    docsBaseUrl: hosts.listenBaseUrl,
    log,
    ...(deps.config.rdapLookup ? { rdapLookup: true } : {}),
    ...(deps.config.mcpAllowedOrigins?.length ? { mcpAllowedOrigins: deps.config.mcpAllowedOrigins } : {}),
  };
  const modules = publicModules(publicDeps);
  const publicSurface = publicRouter(publicDeps, {
    contract: contract.public,
    validateResponses,
    onContractDefect,
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
  app.use(
    '/api/partner',
    partnerRouter(partnerDeps, { contract: contract.partner, validateResponses, onContractDefect }),
  );
  if (deps.config.adminToken) {
    app.use(
      '/api/admin/v1',
      adminRouter(partnerDeps, {
        adminToken: deps.config.adminToken,
        contract: contract.admin,
        partnerContract: contract.partner,
        validateResponses,
        onContractDefect,
      }),
    );
  }
  app.use(publicSurface);
  app.use((req, _res, next) => next(noOperation(req.method, req.path)));
  app.use(errorHandler(log, faults));
  return app;
}

/** SANDBOX_WEBHOOK_LOOPBACK as configured, else its default for this deployment (server/domain/webhook-url.ts). */
export function sandboxWebhookLoopbackOf(
  config: Partial<Pick<Config, 'publicBaseUrl' | 'host' | 'sandboxWebhookLoopback'>>,
): boolean {
  return config.sandboxWebhookLoopback ?? sandboxLoopbackByDefault(config);
}
