// `domain-sales verify-webhook`: checks one webhook delivery's signature, for debugging a
// receiver. The body comes from stdin, either alone (give --signature) or as the raw HTTP
// request (its X-Service-Signature and X-Service-Event-Id headers are read).
import { HEADERS } from '../protocol/index.ts';
import { webhookSecretFrom } from './environment.ts';
import { explainWebhook } from './explain.ts';
import { parseHttpMessage } from './http-message.ts';
import type { Io } from './io.ts';
import { parse, UsageError } from './usage.ts';
import { diagnoseWebhook } from './webhook-diagnosis.ts';

export const VERIFY_HELP = `Usage: domain-sales verify-webhook --secret S [--signature HDR] [--event-id ID] [--explain] < body

Checks a webhook delivery's X-Service-Signature: the lowercase hex HMAC-SHA256 of the raw body,
keyed with the webhook secret you registered (no v1= prefix). Prints "valid" or "invalid" and why.

  stdin               the body exactly as received, or the whole raw HTTP request
                      (request line, headers, empty line, body), whose headers are then read
  --secret S          the registered webhook secret (default: WEBHOOK_SECRET)
  --signature HDR     the X-Service-Signature value (overrides the one in a raw request)
  --event-id ID       the X-Service-Event-Id value, checked against the body's id
  --explain           also print the body's length, SHA-256 and first and last bytes, and the
                      expected signature beside the given one (the secret is never printed)
  --timestamp T       accepted for habit's sake and only commented on: webhook signatures
                      carry no timestamp, so a delivery's age never makes it invalid

Exit code: 0 valid, 1 invalid, 2 usage error.`;

const OPTIONS = {
  secret: { type: 'string' },
  signature: { type: 'string' },
  'event-id': { type: 'string' },
  timestamp: { type: 'string' },
  explain: { type: 'boolean' },
} as const;

export async function verifyWebhookCommand(args: string[], io: Io): Promise<number> {
  const { values, positionals, help } = parse(args, OPTIONS, 'verify-webhook');
  if (help) {
    io.out(`${VERIFY_HELP}\n`);
    return 0;
  }
  if (positionals.length > 0)
    throw new UsageError(
      `verify-webhook: unexpected argument ${JSON.stringify(positionals[0])} (the body is read from stdin)`,
    );
  const secret = webhookSecretFrom(values.secret, io.env, 'verify-webhook');
  const input = await io.readStdin();
  const message = parseHttpMessage(input);
  const body = message?.body ?? input;
  const signature = values.signature ?? message?.headers.get(HEADERS.webhookSignature.toLowerCase());
  if (signature === undefined) {
    throw new UsageError(
      'verify-webhook: no signature: give --signature HDR, or pipe the raw HTTP request with its X-Service-Signature header',
    );
  }
  if (body.length === 0)
    throw new UsageError('verify-webhook: stdin is empty: pipe the body (or the raw HTTP request) exactly as received');
  const eventId = values['event-id'] ?? message?.headers.get(HEADERS.eventId.toLowerCase());

  const { valid, reasons } = diagnoseWebhook({ body, signature, secret, eventId });
  io.out(`${valid ? 'valid' : 'invalid'}: ${reasons[0]}\n`);
  for (const hint of reasons.slice(1)) io.out(`  - ${hint}\n`);
  if (values.timestamp !== undefined) {
    io.out(
      '  - note: --timestamp is not part of the webhook scheme; the signature covers only the body, and retries of one event' +
        ' arrive up to about a day later (x-webhook-delivery retry-schedule-seconds), so never refuse a delivery for its age:' +
        ' deduplicate on X-Service-Event-Id instead\n',
    );
  }
  if (values.explain) io.out(`\n${explainWebhook({ body, secret, signature })}`);
  return valid ? 0 : 1;
}
