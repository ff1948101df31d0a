// `--explain` of `request` and `verify-webhook` (pure): every intermediate value of the v1 scheme
// (x-signing of the partner document), printed so that a partner who signs in another language
// can diff their own strings against ours line by line. Everything is computed by the protocol
// module itself, never by a copy. The secrets are never printed; the signatures they give are.
import { createHash } from 'node:crypto';
import {
  EMPTY_BODY_SHA256,
  HEADERS,
  canonicalString,
  compareQueryPairs,
  parseQueryPairs,
  signatureHex,
  SIGNATURE_PREFIX,
  webhookSignature,
} from '../protocol/index.ts';

export interface ExplainRequestInput {
  method: string;
  /** The URL as it will be sent (after `new URL()` normalised it). */
  url: URL;
  /** PATH as typed, when the URL parser changed it on the way. */
  typedTarget?: string | undefined;
  body: string | undefined;
  keyId: string;
  secret: string;
  timestamp: string;
  nonce: string;
  idempotencyKey: string | undefined;
}

const LINE_NAMES = ['METHOD', 'PATH', 'QUERY_STRING', 'TIMESTAMP', 'NONCE', 'BODY_SHA256_HEX'];

/** A secret shown only by its kind and length: enough to spot a key id or a truncated paste. */
function describeSecret(secret: string): string {
  const kind = /^(sk|whsec)_(test|live)_/.exec(secret)?.[0] ?? '';
  return `${kind}… (${Buffer.byteLength(secret, 'utf8')} bytes, not shown)`;
}

export function explainRequest(input: ExplainRequestInput): string {
  const { method, url, body } = input;
  const path = url.pathname;
  const query = url.search.slice(1);
  const canonical = canonicalString({ method, path, query, timestamp: input.timestamp, nonce: input.nonce, body });
  const signature = SIGNATURE_PREFIX + signatureHex(input.secret, canonical);
  const bodyBytes = body === undefined ? undefined : Buffer.from(body, 'utf8');
  const hashed = method !== 'GET' && method !== 'HEAD' && bodyBytes !== undefined && bodyBytes.length > 0;

  const out: string[] = [];
  out.push('The request (nothing is sent with --explain):');
  out.push(`  ${method} ${path}${url.search}`);
  if (input.typedTarget !== undefined && input.typedTarget !== path + url.search) {
    out.push(`  (typed as ${input.typedTarget}; the URL parser rewrote it, and what is sent is what is signed)`);
  }
  out.push(`  Host: ${url.host}`);
  out.push(`  ${HEADERS.keyId}: ${input.keyId}`);
  out.push(`  ${HEADERS.timestamp}: ${input.timestamp}`);
  out.push(`  ${HEADERS.nonce}: ${input.nonce}`);
  out.push(`  ${HEADERS.signature}: ${signature}`);
  if (input.idempotencyKey !== undefined) out.push(`  ${HEADERS.idempotencyKey}: ${input.idempotencyKey} (not signed)`);
  if (bodyBytes !== undefined) out.push('  Content-Type: application/json (not signed)');
  out.push(
    bodyBytes === undefined
      ? '  body: none'
      : `  body: ${bodyBytes.length} bytes, SHA-256 ${createHash('sha256').update(bodyBytes).digest('hex')}` +
          (hashed ? '' : ` (not signed: ${method} always signs the empty-body hash)`),
  );

  const pairs = parseQueryPairs(query).sort(compareQueryPairs);
  out.push('');
  out.push(`Query pairs, decoded and sorted by code point (${pairs.length}):`);
  if (pairs.length === 0) out.push('  (none: QUERY_STRING is an empty line)');
  pairs.forEach((p, i) => out.push(`  ${i + 1}. key ${JSON.stringify(p.key)} value ${JSON.stringify(p.value)}`));

  out.push('');
  out.push('The string to sign: 6 lines joined by "\\n" (LF), no trailing newline, UTF-8:');
  canonical.split('\n').forEach((line, i) => out.push(`  ${i + 1} ${LINE_NAMES[i]!.padEnd(15)} |${line}|`));
  if (!hashed) out.push(`    (line 6 is the SHA-256 of the empty byte string, ${EMPTY_BODY_SHA256.slice(0, 12)}…)`);
  out.push('As one JSON string (compare byte for byte):');
  out.push(`  ${JSON.stringify(canonical)}`);
  out.push(
    `  ${Buffer.byteLength(canonical, 'utf8')} bytes, SHA-256 ${createHash('sha256').update(canonical, 'utf8').digest('hex')}`,
  );

  out.push('');
  out.push('The signature:');
  out.push(
    `  HMAC-SHA256(key = SERVICE_SECRET ${describeSecret(input.secret)}, message = the string above), lowercase hex`,
  );
  out.push(`  ${HEADERS.signature}: ${signature}`);
  return `${out.join('\n')}\n`;
}

export interface ExplainWebhookInput {
  body: Buffer;
  secret: string;
  signature: string;
}

export function explainWebhook(input: ExplainWebhookInput): string {
  const expected = webhookSignature(input.secret, input.body);
  const given = input.signature;
  const out = [
    'The delivery:',
    `  body: ${input.body.length} bytes, SHA-256 ${createHash('sha256').update(input.body).digest('hex')}`,
    `  first bytes: ${JSON.stringify(input.body.subarray(0, 60).toString('utf8'))}${input.body.length > 60 ? '…' : ''}`,
    `  last bytes:  ${JSON.stringify(input.body.subarray(Math.max(0, input.body.length - 20)).toString('utf8'))}`,
    '',
    'The signature: HMAC-SHA256 of the raw body bytes only (no v1= prefix, no timestamp)',
    `  key = the webhook secret ${describeSecret(input.secret)}`,
    `  expected ${HEADERS.webhookSignature}: ${expected}`,
    `  given    ${HEADERS.webhookSignature}: ${given}`,
    `  ${given === expected ? 'identical' : 'different'} (a receiver compares them in constant time)`,
  ];
  return `${out.join('\n')}\n`;
}
