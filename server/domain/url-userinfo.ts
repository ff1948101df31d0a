/**
 * The one rule on user information in the URLs the service stores and later sends something
 * to (webhook URLs, OAuth redirect URIs, hosted checkout's `return_url` and `cancel_url`): none.
 * RFC 9110 §4.2.4 forbids userinfo in `http` and `https` URIs, and `https://trusted@other/`
 * leads elsewhere than it reads.
 */

// The WHATWG URL parser's special schemes: their authority follows any run of `/` or `\`.
const SPECIAL = new Set(['http:', 'https:', 'ws:', 'wss:', 'ftp:', 'file:']);

/**
 * Whether `raw`, which parses as `parsed`, carries user information. Read from the text too:
 * the parser drops an empty one (`https://@evil.example/` parses as `https://evil.example/`),
 * which is as deceptive written out in a link.
 */
export function carriesUserinfo(raw: string, parsed: URL): boolean {
  if (parsed.username !== '' || parsed.password !== '') return true;
  const afterScheme = raw.trim().slice(parsed.protocol.length);
  const authorityStart = SPECIAL.has(parsed.protocol)
    ? afterScheme.replace(/^[/\\]*/, '')
    : afterScheme.startsWith('//')
      ? afterScheme.slice(2)
      : undefined;
  if (authorityStart === undefined) return false;
  const authority = authorityStart.split(SPECIAL.has(parsed.protocol) ? /[/?#\\]/ : /[/?#]/, 1)[0] ?? '';
  return authority.includes('@');
}
