// WHOIS: the first registration source that knows the domain answers (sandbox data for the
// sandbox inventory, then the RDAP client when the server is configured with one).
import type { components } from '../../../generated/public.d.ts';
import { ApiError } from '../../http/errors.ts';
import { RegistrationLookupError, type RegistrationSource } from '../../rdap/source.ts';
import { toAscii } from './domain-input.ts';

type Schemas = components['schemas'];

export async function whoisLookup(
  sources: readonly RegistrationSource[],
  input: Schemas['WhoisRequest'],
): Promise<Schemas['WhoisResult']> {
  const domain = toAscii(input.domain);
  if (domain === undefined || !domain.includes('.')) {
    throw new ApiError('validation_error', `"${input.domain}" is not a domain name`, [
      { path: '/body/domain', message: 'must be a domain name such as bestcoffeebeans.com' },
    ]);
  }
  for (const source of sources) {
    let found;
    try {
      found = await source.lookup(domain);
    } catch (e) {
      // The registry's service failed: say which and why, without internals (no stack, no raw body).
      if (e instanceof RegistrationLookupError) throw new ApiError('internal_error', e.message);
      throw e;
    }
    if (found) return found;
  }
  throw new ApiError('not_found', `No registration record for "${domain}"`);
}
