// Runs one bulk command over a user's domains: reads what the user owns, decides each domain
// with the pure rules, and writes the changed ones. Domains are independent: each is written by
// one conditional UPDATE (never half-written), and one failing leaves the others alone.
import type { components } from '../../generated/public.d.ts';
import { rfc3339 } from '../domain/rfc3339.ts';
import type { Store } from '../store/index.ts';
import type { ManagedDomain, ManagedDomainChange } from '../store/user-domains.ts';
import { applyCommand, DEFAULT_MAX_TERM_YEARS, type BulkCommand, type Outcome } from './operations.ts';

type Schemas = components['schemas'];

/** A concurrent write to the same domain makes us re-read and recompute; this many times at most. */
const MAX_ATTEMPTS = 5;

export interface RunOptions {
  now: number;
  /** The longest term of a TLD, in years (default: 10 for every TLD). */
  maxTermYears?: (tld: string) => number;
}

const tldOf = (domain: string) => domain.slice(domain.indexOf('.') + 1);

export function stateOf(domain: ManagedDomainChange): Schemas['ManagedDomainState'] {
  return {
    expires_at: rfc3339(domain.expiresAt),
    locked: domain.locked,
    auto_renew: domain.autoRenew,
    nameservers: [...domain.nameservers],
  };
}

function notFound(domain: string): Schemas['BulkDomainResult'] {
  return {
    domain,
    status: 'error',
    error: { code: 'not_found', message: `Domain "${domain}" is not in your account` },
  };
}

function failed(domain: string, outcome: Extract<Outcome, { ok: false }>): Schemas['BulkDomainResult'] {
  return { domain, status: 'error', error: { code: outcome.code, message: outcome.message } };
}

export async function runBulk(
  store: Store,
  userId: string,
  command: BulkCommand,
  domains: readonly string[],
  options: RunOptions,
): Promise<Schemas['BulkResponse']> {
  const maxTerm = options.maxTermYears ?? (() => DEFAULT_MAX_TERM_YEARS);
  const results = new Map<string, Schemas['BulkDomainResult']>();
  let pending = [...domains];
  for (let attempt = 1; pending.length > 0; attempt++) {
    const lost: string[] = [];
    // One transaction per round only to commit the writes together cheaply; each domain's
    // outcome depends on its own row alone.
    await store.transaction(async (tx) => {
      const owned = await tx.userDomains.findOwned(userId, pending);
      for (const domain of pending) {
        const current: ManagedDomain | undefined = owned.get(domain);
        if (!current) {
          results.set(domain, notFound(domain));
          continue;
        }
        const outcome = applyCommand(command, domain, current, {
          now: options.now,
          maxTermYears: maxTerm(tldOf(domain)),
        });
        if (!outcome.ok) {
          results.set(domain, failed(domain, outcome));
          continue;
        }
        if (await tx.userDomains.update(userId, domain, current.version, outcome.next, options.now)) {
          results.set(domain, { domain, status: 'ok', state: stateOf(outcome.next) });
        } else if (attempt < MAX_ATTEMPTS) {
          lost.push(domain);
        } else {
          results.set(domain, {
            domain,
            status: 'error',
            error: { code: 'conflict', message: `Domain "${domain}" kept changing under this request; retry it` },
          });
        }
      }
    });
    pending = lost;
  }
  const ordered = domains.map((d) => results.get(d) as Schemas['BulkDomainResult']);
  const ok = ordered.filter((r) => r.status === 'ok').length;
  return { op: command.op, results: ordered, summary: { ok, error: ordered.length - ok } };
}
