// The `lookup` of every webhook connection: resolves the host name, applies the destination rule
// of the partner's environment to every address, and hands the socket only vetted addresses. Node
// connects to what this returns, so the check and the connection see the same answer and a name
// re-pointed between them (DNS rebinding) is judged as it points at connection time.
import type { LookupAddress, LookupOptions } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { addressRefusal, type DestinationOptions } from '../domain/webhook-url.ts';
import type { Environment } from '../domain/environment.ts';
import type { Resolve } from './resolve.ts';

/**
 * A destination the rules forbid, or a name that does not resolve: the attempt fails as
 * `destination_refused`. The message (addresses included) is for the server log only.
 */
export class DestinationRefused extends Error {
  override readonly name = 'DestinationRefused';
}

/** Every address `hostname` resolves to, or a DestinationRefused naming the first one the rule forbids. */
export async function vettedAddresses(
  resolve: Resolve,
  hostname: string,
  environment: Environment,
  destinations: DestinationOptions = {},
): Promise<LookupAddress[]> {
  let addresses: string[];
  try {
    addresses = await resolve(hostname);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException | undefined)?.code;
    throw new DestinationRefused(`${hostname} does not resolve${code ? ` (${code})` : ''}`);
  }
  if (addresses.length === 0) throw new DestinationRefused(`${hostname} does not resolve (no addresses)`);
  // One forbidden address refuses the name, as at registration: a name that also points inward
  // is not trusted to be reached on its public address.
  for (const address of addresses) {
    const refusal = addressRefusal(address, environment, destinations);
    if (refusal)
      throw new DestinationRefused(`refused before connecting: ${hostname} resolves to ${address}, ${refusal}`);
  }
  return addresses.map((address) => ({ address, family: isIP(address) }));
}

export function vettedLookup(
  resolve: Resolve,
  environment: Environment,
  destinations: DestinationOptions = {},
): LookupFunction {
  return (hostname: string, options: LookupOptions, callback) => {
    vettedAddresses(resolve, hostname, environment, destinations).then(
      (all) => {
        const wanted =
          options.family === 4 || options.family === 6 ? all.filter((a) => a.family === options.family) : all;
        const first = wanted[0];
        if (!first) callback(new DestinationRefused(`${hostname} has no IPv${String(options.family)} address`), '', 0);
        else if (options.all) callback(null, wanted);
        else callback(null, first.address, first.family);
      },
      (err: Error) => callback(err, '', 0),
    );
  };
}
