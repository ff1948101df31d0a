// What `request` sends: the method, the URL built from the base URL and PATH, and the body from
// --data (inline JSON, @file or @- for stdin), checked before anything is signed.
import { readFile } from 'node:fs/promises';
import { UsageError } from './usage.ts';

export const PARTNER_PREFIX = '/api/partner/v1';
const METHOD = /^[A-Za-z]+$/;

export interface RequestInput {
  method: string;
  url: URL;
  body: string | undefined;
}

/**
 * PATH is a path on the deployment, with its query: `/api/partner/v1/pricing?domain=x`. A path
 * outside `/api/` is taken under the partner prefix, so `/pricing?domain=x` means the same.
 */
export function requestUrl(baseUrl: string, path: string): URL {
  if (!path.startsWith('/'))
    throw new UsageError(
      `PATH must start with "/" (e.g. ${PARTNER_PREFIX}/pricing?domain=example.com), got ${JSON.stringify(path)}`,
    );
  if (path.includes('#')) throw new UsageError('PATH must not contain a fragment ("#")');
  const target = path.startsWith('/api/') ? path : PARTNER_PREFIX + path;
  return new URL(baseUrl + target);
}

export function requestMethod(method: string): string {
  if (!METHOD.test(method))
    throw new UsageError(`METHOD must be an HTTP method such as GET or POST, got ${JSON.stringify(method)}`);
  return method.toUpperCase();
}

/** The body bytes as text, exactly as they will be signed and sent; it must be JSON. */
export async function requestBody(
  data: string | undefined,
  method: string,
  readStdin: () => Promise<string>,
): Promise<string | undefined> {
  if (data === undefined) return undefined;
  if (method === 'GET' || method === 'HEAD')
    throw new UsageError(`--data cannot be sent with ${method} (the API reads no body there)`);
  let text: string;
  if (data === '@-') text = await readStdin();
  else if (data.startsWith('@')) {
    try {
      text = await readFile(data.slice(1), 'utf8');
    } catch (err) {
      throw new UsageError(
        `--data ${data}: cannot read the file (${(err as NodeJS.ErrnoException).code ?? String(err)})`,
      );
    }
  } else text = data;
  try {
    JSON.parse(text);
  } catch (err) {
    throw new UsageError(`--data is not valid JSON: ${err instanceof Error ? err.message : String(err)}`);
  }
  return text;
}
