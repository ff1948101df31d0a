// The drain on SIGTERM, in the order a load balancer needs: readiness fails first, requests are
// still served for the grace period (long enough for the balancer's next probes to see the 503
// and stop routing here; keep-alive answers carry `Connection: close` meanwhile, so clients
// reconnect elsewhere), then the listener stops accepting and waits for the requests in flight,
// the webhook dispatcher finishes the deliveries in flight (or leaves them leased in the outbox,
// where the lease's expiry hands them to another instance), and the store closes last.
import type { RequestHandler } from 'express';
import type { Readiness } from './health.ts';
import type { Logger } from './logger.ts';

export interface DrainSteps {
  readiness: Readiness;
  graceMs: number;
  logger: Logger;
  /** Stop accepting; resolves when every request in flight has been answered. */
  closeListener(): Promise<void>;
  /** Resolves when the deliveries in flight have finished. */
  stopDeliveries(): Promise<void>;
  closeStore(): Promise<void>;
}

export async function drain(steps: DrainSteps): Promise<void> {
  const { logger } = steps;
  const started = Date.now();
  steps.readiness.startDrain();
  logger.info({ event: 'drain_started', grace_ms: steps.graceMs }, 'draining: /readyz answers 503');
  if (steps.graceMs > 0) await new Promise((resolve) => setTimeout(resolve, steps.graceMs));
  await steps.closeListener();
  logger.info({ event: 'drain_requests_done', ms: Date.now() - started }, 'draining: no request in flight');
  await steps.stopDeliveries();
  logger.info({ event: 'drain_deliveries_done', ms: Date.now() - started }, 'draining: no delivery in flight');
  await steps.closeStore();
  logger.info({ event: 'drain_done', ms: Date.now() - started }, 'drained: store closed');
}

/** While draining, answers ask keep-alive clients to close the connection (they reconnect through the balancer). */
export function closeConnectionsWhileDraining(readiness: Readiness): RequestHandler {
  return (_req, res, next) => {
    if (readiness.draining) res.setHeader('Connection', 'close');
    next();
  };
}
