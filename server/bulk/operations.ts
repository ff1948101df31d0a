// The bulk operations as pure functions: parsing a request into a command, and applying a
// command to one domain's state. No storage and no HTTP here, so every rule is testable alone.
import * as z from 'zod';
import type { components } from '../../generated/public.d.ts';
import { ApiError, type ErrorDetail } from '../http/errors.ts';
import type { ManagedDomainChange } from '../store/user-domains.ts';

type Schemas = components['schemas'];
export type BulkOperationName = Schemas['BulkOperationName'];

/** At most this many domains per request (the seed's limit; BulkRequest says the same). */
export const MAX_BULK_DOMAINS = 1000;
/** Registries accept no registration or renewal running past ten years from today. */
export const DEFAULT_MAX_TERM_YEARS = 10;
/**
 * Days after expiry during which a domain can still be renewed as usual; after them it is in
 * its redemption period and every operation fails with `invalid_state` until it is restored.
 */
export const RENEWAL_GRACE_DAYS = 30;
const DAY_MS = 86_400_000;

export type BulkCommand =
  | { op: 'renew'; years: number }
  | { op: 'set_nameservers'; nameservers: string[] }
  | { op: 'lock' }
  | { op: 'unlock' }
  | { op: 'set_auto_renew'; enabled: boolean };

export const BULK_OPERATIONS: readonly BulkOperationName[] = [
  'renew',
  'set_nameservers',
  'lock',
  'unlock',
  'set_auto_renew',
];

// The shared DomainName pattern of spec/shared/schemas.yaml.
const DOMAIN_NAME = /^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]([a-z0-9-]{0,61}[a-z0-9])?$/;
const domainName = z
  .string()
  .min(3)
  .max(253)
  .regex(DOMAIN_NAME, 'must be a lowercase domain name without a trailing dot');
const distinct = (values: string[]) => new Set(values).size === values.length;

const bodySchema = z.strictObject({
  domains: z.array(domainName).min(1).max(MAX_BULK_DOMAINS).refine(distinct, 'must not list a domain twice'),
  params: z.unknown().optional(),
});

const paramsSchemas = {
  renew: z.strictObject({ years: z.number().int().min(1).max(10) }),
  set_nameservers: z.strictObject({
    nameservers: z.array(domainName).min(2).max(13).refine(distinct, 'must not list a nameserver twice'),
  }),
  set_auto_renew: z.strictObject({ enabled: z.boolean() }),
} as const;

function details(error: z.ZodError, prefix: string): ErrorDetail[] {
  return error.issues.map((issue) => ({ path: [prefix, ...issue.path.map(String)].join('/'), message: issue.message }));
}

function invalid(message: string, detail: ErrorDetail[]): ApiError {
  return new ApiError(
    'validation_error',
    `${message}: ${detail.map((d) => `${d.path} ${d.message}`).join('; ')}`,
    detail,
  );
}

/** Reads `POST /api/domains/bulk/{op}`; throws 400 `validation_error` for anything that does not fit `op`. */
export function parseBulkRequest(op: string | undefined, body: unknown): { command: BulkCommand; domains: string[] } {
  if (!BULK_OPERATIONS.includes(op as BulkOperationName)) {
    throw invalid('Unknown bulk operation', [
      { path: '/path/op', message: `must be one of ${BULK_OPERATIONS.join(', ')}` },
    ]);
  }
  const parsed = bodySchema.safeParse(body);
  if (!parsed.success) throw invalid('Request is invalid', details(parsed.error, '/body'));
  const { domains, params } = parsed.data;
  const name = op as BulkOperationName;
  if (name === 'lock' || name === 'unlock') {
    if (params !== undefined)
      throw invalid(`${name} takes no params`, [{ path: '/body/params', message: `must be omitted for ${name}` }]);
    return { command: { op: name }, domains };
  }
  if (params === undefined)
    throw invalid(`${name} needs params`, [{ path: '/body/params', message: `is required for ${name}` }]);
  const result = paramsSchemas[name].safeParse(params);
  if (!result.success) throw invalid(`params do not fit ${name}`, details(result.error, '/body/params'));
  return { command: { op: name, ...result.data } as BulkCommand, domains };
}

/** `ms` plus whole calendar years in UTC; 29 February lands on 28 February in a common year. */
export function addYears(ms: number, years: number): number {
  const d = new Date(ms);
  const month = d.getUTCMonth();
  d.setUTCFullYear(d.getUTCFullYear() + years);
  if (d.getUTCMonth() !== month) d.setUTCDate(0);
  return d.getTime();
}

export type Outcome =
  { ok: true; next: ManagedDomainChange } | { ok: false; code: 'validation_error' | 'invalid_state'; message: string };

export interface ApplyOptions {
  now: number;
  /** The longest term the domain's TLD allows, in years. */
  maxTermYears: number;
}

/** The state `command` leaves `domain` in, or why it cannot be applied to this one domain. */
export function applyCommand(
  command: BulkCommand,
  domain: string,
  state: ManagedDomainChange,
  { now, maxTermYears }: ApplyOptions,
): Outcome {
  if (state.expiresAt + RENEWAL_GRACE_DAYS * DAY_MS < now) {
    return {
      ok: false,
      code: 'invalid_state',
      message: `Domain "${domain}" is in its redemption period (expired more than ${RENEWAL_GRACE_DAYS} days ago); restore it first`,
    };
  }
  switch (command.op) {
    case 'renew': {
      const expiresAt = addYears(state.expiresAt, command.years);
      const limit = addYears(now, maxTermYears);
      if (expiresAt > limit) {
        return {
          ok: false,
          code: 'validation_error',
          message: `Renewing "${domain}" by ${command.years} year(s) would put its expiry past the TLD's maximum term of ${maxTermYears} years from today`,
        };
      }
      return { ok: true, next: { ...state, expiresAt } };
    }
    case 'set_nameservers':
      return { ok: true, next: { ...state, nameservers: [...command.nameservers] } };
    case 'lock':
      return { ok: true, next: { ...state, locked: true } };
    case 'unlock':
      return { ok: true, next: { ...state, locked: false } };
    case 'set_auto_renew':
      return { ok: true, next: { ...state, autoRenew: command.enabled } };
  }
}
