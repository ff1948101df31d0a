// Why a webhook signature does or does not verify (pure). The scheme (x-webhook-delivery of the
// partner document): X-Service-Signature is the lowercase hex HMAC-SHA256 of the raw body bytes,
// keyed with the registered webhook secret, with no `v1=` prefix. It covers the body and nothing
// else: no timestamp, no header. So a mismatch can only mean another secret or other bytes; the
// two cannot be told apart from the signature alone, but the usual ways bytes change on their way
// to a receiver (a trailing newline from a shell or editor, JSON parsed and serialised again, a
// body swapped for another event's) can be tried and named.
import { verifyWebhookSignature } from '../webhooks.ts';

export interface DiagnosisInput {
  body: Buffer;
  signature: string;
  secret: string;
  /** X-Service-Event-Id, when the headers were given. */
  eventId?: string | undefined;
}

export interface Diagnosis {
  valid: boolean;
  /** One line each: the verdict's reasons first, then hints. */
  reasons: string[];
}

const HEX64 = /^[0-9a-f]{64}$/;

export function diagnoseWebhook(input: DiagnosisInput): Diagnosis {
  const { body, secret } = input;
  const signature = input.signature.trim();
  const matches = (bytes: Buffer | string, sig = signature) => verifyWebhookSignature(bytes, sig, secret);

  if (signature.startsWith('v1=')) {
    const bare = signature.slice(3);
    return invalid(
      'the signature starts with "v1=": that is the request-signing format; a webhook signature is bare lowercase hex',
      matches(body, bare)
        ? 'without the prefix it matches this body and secret (the sender signs webhooks like requests)'
        : undefined,
    );
  }
  if (!HEX64.test(signature)) {
    if (/^[0-9A-Fa-f]{64}$/.test(signature)) {
      return invalid(
        'the signature has uppercase hex digits; the scheme is lowercase hex, compared byte for byte',
        matches(body, signature.toLowerCase()) ? 'in lowercase it matches this body and secret' : undefined,
      );
    }
    return invalid(`the signature is not 64 lowercase hex characters (got ${signature.length} characters)`);
  }
  if (matches(body)) {
    const hints = eventIdHint(body, input.eventId);
    return { valid: true, reasons: ['the signature matches the body and the secret', ...hints] };
  }

  const text = body.toString('utf8');
  const trimmed = text.replace(/\r?\n$/, '');
  if (trimmed !== text && matches(trimmed)) {
    return invalid(
      "the body changed: it matches without its trailing newline (added by echo, a heredoc or an editor; pipe the exact bytes, e.g. printf '%s')",
    );
  }
  const reformatted = reserialised(text);
  if (reformatted && matches(reformatted.compact)) {
    return invalid(
      'the body changed: the signed bytes are the compact JSON, this body was parsed and serialised again (verify the raw bytes before parsing)',
    );
  }
  if (reformatted && matches(reformatted.indented)) {
    return invalid('the body changed: the signed bytes are the pretty-printed JSON, this body was serialised again');
  }
  const idHint = eventIdHint(body, input.eventId);
  return invalid(
    'the signature does not match: either the secret is not the one registered for this endpoint (PUT /api/partner/webhooks), or the body is not the bytes that were signed (the signature covers the raw body only, so these two cannot be told apart)',
    ...idHint,
  );
}

function invalid(...reasons: Array<string | undefined>): Diagnosis {
  return { valid: false, reasons: reasons.filter((r): r is string => r !== undefined) };
}

function reserialised(text: string): { compact: string; indented: string } | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return { compact: JSON.stringify(value), indented: JSON.stringify(value, null, 2) };
  } catch {
    return undefined;
  }
}

/** The body's `id` against X-Service-Event-Id: a mismatch means the body is another event's. */
function eventIdHint(body: Buffer, eventId: string | undefined): string[] {
  if (eventId === undefined) return [];
  try {
    const id = (JSON.parse(body.toString('utf8')) as { id?: unknown }).id;
    if (id !== eventId)
      return [
        `the body's id is ${JSON.stringify(id)} but X-Service-Event-Id is ${JSON.stringify(eventId)}: the body belongs to another delivery`,
      ];
  } catch {
    return ['the body is not JSON'];
  }
  return [];
}
