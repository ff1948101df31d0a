// `domain-sales request METHOD PATH`: signs one request with the partner credential and prints
// the answer, or (--curl) prints the signed curl command instead of sending it.
import { randomUUID } from 'node:crypto';
import { createSignedFetch, needsIdempotencyKey } from '../partner.ts';
import { signedCurl } from './curl.ts';
import { timestampFromMillis } from '../protocol/index.ts';
import { readDeploymentContract } from './deployment-contract.ts';
import { baseUrlFrom, credentialFrom, DEFAULT_BASE_URL } from './environment.ts';
import { explainRequest } from './explain.ts';
import type { Io } from './io.ts';
import { PARTNER_PREFIX, requestBody, requestMethod, requestUrl } from './request-input.ts';
import { CommandError, parse, UsageError } from './usage.ts';

export const REQUEST_HELP = `Usage: domain-sales request METHOD PATH [--data JSON] [--base-url URL] [--curl | --explain]

Signs one request with SERVICE_KEY_ID and SERVICE_SECRET and prints the answer's status,
headers and body (JSON pretty-printed; --raw prints the bytes as received).

  METHOD              GET, POST, PUT, …
  PATH                the path with its query, e.g. /api/partner/v1/pricing?domain=example.com
                      (a path outside /api/ is taken under /api/partner/v1)
  --data JSON         the request body: inline JSON, @file, or @- for stdin (sent byte for byte)
  --idempotency-key K the Idempotency-Key header (POST /orders gets a fresh one when omitted)
  --base-url URL      the deployment (default: SERVICE_BASE_URL, else ${DEFAULT_BASE_URL})
  --curl              print an equivalent signed curl command instead of sending; it is valid
                      for the signing window (x-signing timestamp-skew-seconds, 300 s) and, its
                      nonce being single-use, for one run
  --raw               print the body exactly as received
  --explain           send nothing; print what would be sent, the decoded and sorted query
                      pairs, the string that is signed (each of its 6 lines numbered, then as
                      one JSON string) and the signature, to diff against your own signer's
  --timestamp T       with --explain: use this X-Service-Timestamp instead of the clock
  --nonce N           with --explain: use this X-Service-Nonce instead of a fresh UUID

Exit code: 0 for a 1xx-3xx answer, 1 for 4xx/5xx or a network failure, 2 for a usage error.`;

const OPTIONS = {
  data: { type: 'string' },
  'idempotency-key': { type: 'string' },
  'base-url': { type: 'string' },
  curl: { type: 'boolean' },
  raw: { type: 'boolean' },
  explain: { type: 'boolean' },
  timestamp: { type: 'string' },
  nonce: { type: 'string' },
} as const;

export async function requestCommand(args: string[], io: Io): Promise<number> {
  const { values, positionals, help } = parse(args, OPTIONS, 'request');
  if (help) {
    io.out(`${REQUEST_HELP}\n`);
    return 0;
  }
  if (positionals.length !== 2)
    throw new UsageError('request: give METHOD and PATH, e.g. domain-sales request GET /api/partner/v1/events');
  const method = requestMethod(positionals[0]!);
  const baseUrl = baseUrlFrom(values['base-url'], io.env);
  const url = requestUrl(baseUrl, positionals[1]!);
  const credential = credentialFrom(io.env);
  const body = await requestBody(values.data, method, async () => (await io.readStdin()).toString('utf8'));
  const idempotencyKey =
    values['idempotency-key'] ?? (needsIdempotencyKey(method, url.pathname) ? randomUUID() : undefined);

  if ((values.timestamp !== undefined || values.nonce !== undefined) && !values.explain)
    throw new UsageError('request: --timestamp and --nonce only go with --explain (a sent request takes fresh ones)');
  if (values.explain) {
    if (values.curl) throw new UsageError('request: give --explain or --curl, not both');
    io.out(
      explainRequest({
        ...credential,
        method,
        url,
        typedTarget: positionals[1]!.startsWith('/api/') ? positionals[1] : PARTNER_PREFIX + positionals[1]!,
        body,
        timestamp: values.timestamp ?? timestampFromMillis(Date.now()),
        nonce: values.nonce ?? randomUUID(),
        idempotencyKey,
      }),
    );
    return 0;
  }

  if (values.curl) {
    const contract = await readDeploymentContract(baseUrl);
    const { command, timestamp } = signedCurl({
      ...credential,
      method,
      url,
      body,
      nowMs: Date.now(),
      nonce: randomUUID(),
      idempotencyKey,
    });
    const until = new Date((timestamp + contract.skewSeconds) * 1000).toISOString();
    io.out(`${command}\n`);
    io.err(
      `# valid until ${until} (timestamp ${timestamp} + ${contract.skewSeconds} s, x-signing timestamp-skew-seconds` +
        ` ${contract.source === 'deployment' ? 'read from the deployment' : 'of the v1 protocol; the deployment document was not readable'}).` +
        ` Its nonce is single-use: a second run is refused with replay_detected.\n`,
    );
    return 0;
  }

  const signedFetch = createSignedFetch({ ...credential, retry: false });
  const headers = new Headers();
  if (body !== undefined) headers.set('content-type', 'application/json');
  if (idempotencyKey !== undefined) headers.set('idempotency-key', idempotencyKey);
  let response: Response;
  try {
    response = await signedFetch(
      new Request(url, { method, headers, ...(body === undefined ? {} : { body }), signal: io.signal }),
    );
  } catch (err) {
    const cause = err instanceof Error && err.cause instanceof Error ? `: ${err.cause.message}` : '';
    throw new CommandError(`${method} ${url.href} failed${cause || (err instanceof Error ? `: ${err.message}` : '')}`);
  }
  const text = await response.text();
  io.out(`HTTP ${response.status} ${response.statusText}\n`);
  response.headers.forEach((value, name) => io.out(`${name}: ${value}\n`));
  io.out(
    `\n${values.raw ? text : pretty(text, response.headers.get('content-type'))}${text.endsWith('\n') || text === '' ? '' : '\n'}`,
  );
  return response.status < 400 ? 0 : 1;
}

function pretty(text: string, contentType: string | null): string {
  if (!contentType || !/[/+]json\b/i.test(contentType)) return text;
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}
