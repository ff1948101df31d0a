// Drives the authorization server the way its real users do: a client registering itself and a
// browser following the sign-in page (GET the page, read its hidden fields and cookie, POST the
// form without following redirects).
import { expect } from 'vitest';

export const SANDBOX_USER = { email: 'sandbox@example.com', password: 'sandbox-test-password' };

export interface Registered {
  client_id: string;
  redirect_uris: string[];
  scope: string;
}

export async function register(base: string, body: Record<string, unknown>): Promise<Registered> {
  const res = await fetch(`${base}/api/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(res.status, await res.clone().text()).toBe(201);
  return (await res.json()) as Registered;
}

/** The value of a hidden input of the page. */
export function hiddenInput(html: string, name: string): string | undefined {
  const m = new RegExp(`<input type="hidden" name="${name}" value="([^"]*)">`).exec(html);
  return m?.[1]?.replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)));
}

export interface SignInPage {
  status: number;
  html: string;
  cookie: string | undefined;
  authRequest: string | undefined;
  csrfToken: string | undefined;
  location: string | null;
}

/** GET the authorization URL as a browser would (no redirect following). */
export async function openAuthorize(url: string | URL, cookie?: string): Promise<SignInPage> {
  const res = await fetch(url, { redirect: 'manual', headers: { accept: 'text/html', ...(cookie ? { cookie } : {}) } });
  const html = await res.text();
  const setCookie = res.headers.get('set-cookie');
  return {
    status: res.status,
    html,
    cookie: setCookie ? setCookie.split(';')[0] : undefined,
    authRequest: hiddenInput(html, 'auth_request'),
    csrfToken: hiddenInput(html, 'csrf_token'),
    location: res.headers.get('location'),
  };
}

export interface FormAnswer {
  status: number;
  html: string;
  location: string | null;
}

/** POST the sign-in form with the page's hidden fields, the given cookie and the user's input. */
export async function submitForm(
  base: string,
  page: SignInPage,
  fields: Record<string, string>,
  cookie = page.cookie,
): Promise<FormAnswer> {
  const body = new URLSearchParams({
    auth_request: page.authRequest ?? '',
    csrf_token: page.csrfToken ?? '',
    ...fields,
  });
  const res = await fetch(`${base}/oauth/authorize`, {
    method: 'POST',
    redirect: 'manual',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      accept: 'text/html',
      ...(cookie ? { cookie } : {}),
    },
    body,
  });
  return { status: res.status, html: await res.text(), location: res.headers.get('location') };
}

/** Opens the page and approves as the user; the Location the browser is sent to. */
export async function approve(base: string, url: string | URL, user = SANDBOX_USER): Promise<string> {
  const page = await openAuthorize(url);
  expect(page.status, page.html).toBe(200);
  const answer = await submitForm(base, page, { email: user.email, password: user.password, decision: 'approve' });
  expect(answer.status, answer.html).toBe(303);
  return answer.location ?? '';
}

export function tokenRequest(base: string, fields: Record<string, string>): Promise<Response> {
  return fetch(`${base}/api/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields),
  });
}

/** A valid scope string of exactly `n` characters: repeated scope values, which collapse. */
export function scopeOfLength(n: number): string {
  const [a, b] = ['pricing:read', 'domains:manage'];
  // a*13 + b*15 - 1 = n, for counts of the two values joined by single spaces.
  for (let bs = 0; bs * 15 <= n + 1; bs++) {
    if ((n + 1 - bs * 15) % 13 === 0)
      return [...Array<string>((n + 1 - bs * 15) / 13).fill(a), ...Array<string>(bs).fill(b)].join(' ');
  }
  throw new Error(`no scope string of ${n} characters`);
}
