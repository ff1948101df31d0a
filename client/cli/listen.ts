// `domain-sales listen --forward-to URL`: follows GET /api/partner/v1/events from the last event
// it is done with and forwards each one to a local receiver as a real delivery (forward.ts), so
// a receiver can be developed on localhost against any deployment, with no tunnel.
//
// The rule for the cursor: an event is done with when the receiver accepted it (any 2xx) or when
// it is filtered out. A refused or failed forward is retried with back-off, indefinitely, and the
// cursor stays before it, so neither a restart nor Ctrl-C ever skips an event the receiver did not
// accept. Like real deliveries this is at least once: an event accepted just before a crash, whose
// cursor was not yet written, is forwarded again (receivers deduplicate on X-Service-Event-Id).
import { setTimeout as sleep } from 'node:timers/promises';
import { defaultRetryPolicy, delayMs } from '../http/retry.ts';
import { createPartnerClient } from '../partner.ts';
import type { WebhookEvent } from '../webhooks.ts';
import { loadCursor, saveCursor } from './cursor-file.ts';
import { readDeploymentContract } from './deployment-contract.ts';
import { baseUrlFrom, credentialFrom, DEFAULT_BASE_URL, webhookSecretFrom } from './environment.ts';
import { forwardEvent, type ForwardOutcome } from './forward.ts';
import type { Io } from './io.ts';
import { CommandError, parse, UsageError } from './usage.ts';

export const DEFAULT_CURSOR_FILE = '.domain-sales-listen.json';
const PAGE_SIZE = 100;

export const LISTEN_HELP = `Usage: domain-sales listen --forward-to URL [--events type,…] [--cursor-file F] [--secret S]

Polls GET /api/partner/v1/events with SERVICE_KEY_ID and SERVICE_SECRET and POSTs each event to
URL exactly as a real webhook delivery: the same body and headers, X-Service-Signature signed
with your webhook secret. Prints each delivery and the receiver's answer. Ctrl-C (or SIGTERM) stops cleanly.

  --forward-to URL    your local receiver, e.g. http://localhost:3000/webhooks
  --events LIST       only these event types, comma-separated (default: the kinds a deployment
                      delivers, x-webhook-delivery delivered-kinds; "all" for every event in
                      the history, including kinds that are never delivered)
  --cursor-file F     where the last event done with is kept (default ${DEFAULT_CURSOR_FILE});
                      a restart resumes after it
  --from oldest|now   with no cursor file: replay from the oldest event (default) or only
                      forward events created from now on
  --secret S          the webhook secret you registered (default: WEBHOOK_SECRET)
  --base-url URL      the deployment (default: SERVICE_BASE_URL, else ${DEFAULT_BASE_URL})
  --interval SECONDS  pause between polls once caught up (default 5; each poll counts
                      against the credential's reporting rate limit, shared with other reads)
  --backoff-ms MS     first back-off step after a failed forward; it doubles, capped at 60 s
                      (default 1000)

The cursor advances past an event only once the receiver answered it with a 2xx (or the event
is filtered out). A non-2xx, a timeout or a connection failure is retried with back-off, without
limit, and the events after it wait: nothing is skipped, across restarts too.`;

const OPTIONS = {
  'forward-to': { type: 'string' },
  events: { type: 'string' },
  'cursor-file': { type: 'string' },
  from: { type: 'string' },
  secret: { type: 'string' },
  'base-url': { type: 'string' },
  interval: { type: 'string' },
  'backoff-ms': { type: 'string' },
} as const;

function positiveNumber(value: string | undefined, fallback: number, flag: string): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0)
    throw new UsageError(`listen: ${flag} must be a positive number, got ${JSON.stringify(value)}`);
  return n;
}

function receiverUrl(value: string | undefined): string {
  if (value === undefined)
    throw new UsageError('listen: give --forward-to URL, your local receiver (e.g. http://localhost:3000/webhooks)');
  try {
    const url = new URL(value);
    if (url.protocol === 'http:' || url.protocol === 'https:') return url.href;
  } catch {
    // Answered below.
  }
  throw new UsageError(`listen: --forward-to must be an http:// or https:// URL, got ${JSON.stringify(value)}`);
}

/** Resolves after `ms`, or at once when stopping; true when it slept the whole time. */
async function pause(ms: number, signal: AbortSignal): Promise<boolean> {
  try {
    await sleep(ms, undefined, { signal });
    return true;
  } catch {
    return false;
  }
}

function describe(outcome: ForwardOutcome): string {
  if ('error' in outcome) return `${outcome.error} (${outcome.ms} ms)`;
  const answer = outcome.answer.replace(/\s+/g, ' ').trim();
  return `${outcome.status}${outcome.statusText ? ` ${outcome.statusText}` : ''} (${outcome.ms} ms)${answer ? ` ${JSON.stringify(answer.slice(0, 80))}` : ''}`;
}

export async function listenCommand(args: string[], io: Io): Promise<number> {
  const { values, positionals, help } = parse(args, OPTIONS, 'listen');
  if (help) {
    io.out(`${LISTEN_HELP}\n`);
    return 0;
  }
  if (positionals.length > 0) throw new UsageError(`listen: unexpected argument ${JSON.stringify(positionals[0])}`);
  const target = receiverUrl(values['forward-to']);
  const baseUrl = baseUrlFrom(values['base-url'], io.env);
  const credential = credentialFrom(io.env);
  const secret = webhookSecretFrom(values.secret, io.env, 'listen');
  const from = values.from ?? 'oldest';
  if (from !== 'oldest' && from !== 'now')
    throw new UsageError(`listen: --from must be "oldest" or "now", got ${JSON.stringify(from)}`);
  const intervalMs = positiveNumber(values.interval, 5, '--interval') * 1000;
  const backoff = defaultRetryPolicy({
    baseDelayMs: positiveNumber(values['backoff-ms'], 1000, '--backoff-ms'),
    maxDelayMs: 60_000,
  });
  const cursorFile = values['cursor-file'] ?? DEFAULT_CURSOR_FILE;
  const owner = { baseUrl, keyId: credential.keyId };
  const { signal } = io;

  const contract = await readDeploymentContract(baseUrl);
  const wanted = wantedKinds(values.events, contract.deliveredKinds, io);
  const client = createPartnerClient({ baseUrl, ...credential });

  /** One page after `afterId`, or undefined when stopping; transient failures are waited out. */
  async function page(afterId: string | null): Promise<WebhookEvent[] | undefined> {
    for (let failures = 1; !signal.aborted; failures++) {
      let status: string;
      try {
        const query = afterId === null ? { limit: PAGE_SIZE } : { after_id: afterId, limit: PAGE_SIZE };
        const { data, error, response } = await client.GET('/api/partner/v1/events', { params: { query }, signal });
        if (data) return data.events;
        status = `${response.status} ${error?.code ?? ''}: ${error?.message ?? ''}`;
        if (error?.code === 'invalid_cursor') {
          throw new CommandError(
            `GET /events refused the cursor ${afterId} from ${cursorFile} (${status}); delete the file to start again`,
          );
        }
        if (response.status === 401 || response.status === 403) throw new CommandError(`GET /events: ${status}`);
      } catch (err) {
        if (err instanceof CommandError) throw err;
        if (signal.aborted) return undefined;
        status = err instanceof Error ? err.message : String(err);
      }
      const wait = delayMs(Math.min(failures, 10), undefined, backoff) ?? 60_000;
      io.err(`GET /events failed (${status}); trying again in ${(wait / 1000).toFixed(1)} s\n`);
      if (!(await pause(wait, signal))) return undefined;
    }
    return undefined;
  }

  let cursor = await loadCursor(cursorFile, owner);
  if (cursor === undefined && from === 'now') {
    cursor = null;
    for (;;) {
      const events = await page(cursor);
      if (events === undefined) return stopped(io, cursor, cursorFile);
      if (events.length > 0) cursor = events[events.length - 1]!.id;
      if (events.length < PAGE_SIZE) break;
    }
    await saveCursor(cursorFile, owner, cursor);
  }
  let afterId = cursor ?? null;
  io.err(
    `Forwarding ${wanted ? [...wanted].join(', ') : 'every event type'} from ${baseUrl} (${credential.keyId}) to ${target}\n` +
      `Resuming after ${afterId ?? 'nothing (from the oldest event)'}; the cursor is kept in ${cursorFile}. Ctrl-C to stop.\n` +
      (contract.source === 'built-in'
        ? `Note: ${baseUrl} serves no partner document, so the delivery rules are the built-in ones.\n`
        : ''),
  );

  while (!signal.aborted) {
    const events = await page(afterId);
    if (events === undefined) break;
    for (const event of events) {
      if (wanted && !wanted.has(event.type)) {
        io.out(
          `skip ${event.id} ${event.type} (${values.events === undefined ? 'never delivered as a webhook' : 'not in --events'})\n`,
        );
      } else {
        for (let attempt = 1; ; attempt++) {
          const outcome = await forwardEvent({
            url: target,
            event,
            secret,
            attempt,
            timeoutMs: contract.deliveryTimeoutSeconds * 1000,
            signal,
          });
          if (signal.aborted) return stopped(io, afterId, cursorFile);
          if (outcome.accepted) {
            io.out(`${event.id} ${event.type} attempt ${attempt} -> ${describe(outcome)} accepted\n`);
            break;
          }
          const wait = delayMs(Math.min(attempt, 10), undefined, backoff) ?? 60_000;
          io.out(
            `${event.id} ${event.type} attempt ${attempt} -> ${describe(outcome)} NOT accepted; retrying in ${(wait / 1000).toFixed(1)} s` +
              ` (the cursor stays at ${afterId ?? 'the start'})\n`,
          );
          if (!(await pause(wait, signal))) return stopped(io, afterId, cursorFile);
        }
      }
      afterId = event.id;
      await saveCursor(cursorFile, owner, afterId);
    }
    if (events.length < PAGE_SIZE && !(await pause(intervalMs, signal))) break;
  }
  return stopped(io, afterId, cursorFile);
}

function stopped(io: Io, afterId: string | null, cursorFile: string): number {
  io.err(`Stopped. The next run resumes after ${afterId ?? 'nothing (the oldest event)'} (${cursorFile}).\n`);
  return 0;
}

/** The kinds to forward: --events, else the delivered kinds, else (unknown) every kind. */
function wantedKinds(flag: string | undefined, delivered: string[] | undefined, io: Io): Set<string> | undefined {
  if (flag === 'all') return undefined;
  if (flag === undefined) return delivered ? new Set(delivered) : undefined;
  const kinds = flag
    .split(',')
    .map((k) => k.trim())
    .filter(Boolean);
  if (kinds.length === 0)
    throw new UsageError('listen: --events needs at least one event type, e.g. --events order.recorded,order.settled');
  const never = delivered ? kinds.filter((k) => !delivered.includes(k)) : [];
  if (never.length > 0) {
    io.err(
      `Note: ${never.join(', ')} ${never.length === 1 ? 'is' : 'are'} never delivered as webhooks by this deployment (only listed by GET /events); forwarding anyway.\n`,
    );
  }
  return new Set(kinds);
}
