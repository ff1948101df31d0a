// RFC 8707 resource indicators: the two audiences this server issues tokens for.

/** The canonical audience `value` names (`<base>` or `<base>/mcp`), or undefined when it is not ours. */
export function resolveResource(base: string, value: string | undefined): string | undefined {
  if (value === undefined) return base;
  // `new URL(base).href` adds a slash to an origin; clients that canonicalise so mean the same resource.
  if (value === base || value === `${base}/`) return base;
  if (value === `${base}/mcp`) return value;
  return undefined;
}
