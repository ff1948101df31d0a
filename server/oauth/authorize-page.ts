// The sign-in and consent page and the authorization error page: server-rendered, no
// JavaScript, one accessible layout (server/public/html.ts), every value escaped.
import { escapeHtml, htmlPage } from '../public/html.ts';
import { showableClientName } from './client-name.ts';
import { SCOPE_DESCRIPTIONS, type Scope } from './scopes.ts';

// Colours meet WCAG AA contrast on white (#1a1a1a 17:1, #1d4ed8 6.7:1, #b91c1c 6.5:1); focus is
// a thick outline that never depends on colour alone.
const STYLE =
  'body{font-family:system-ui,sans-serif;max-width:30rem;margin:2rem auto;padding:0 1rem;line-height:1.5;color:#1a1a1a;background:#fff}' +
  'label{display:block;margin-top:.75rem;font-weight:600}input{font:inherit;padding:.4rem;border:1px solid #555;border-radius:4px;width:100%;box-sizing:border-box}' +
  'button{font:inherit;margin:1rem .75rem 0 0;padding:.5rem 1.25rem;border-radius:4px;border:2px solid #1d4ed8;cursor:pointer}' +
  '.approve{background:#1d4ed8;color:#fff}.deny{background:#fff;color:#1d4ed8}ul{padding-left:1.25rem}' +
  ':focus-visible{outline:3px solid #1a1a1a;outline-offset:2px}.alert{color:#b91c1c;font-weight:600}.hint{color:#444;font-size:.9rem}';

export interface ConsentView {
  /** As stored; shown through showableClientName (client-name.ts). */
  clientName: string;
  /** Where the browser goes afterwards, as the user should recognise it (host or app scheme). */
  redirectTarget: string;
  scopes: readonly Scope[];
  authRequest: string;
  csrfToken: string;
  email?: string | undefined;
  error?: string | undefined;
}

export function consentPage(view: ConsentView): string {
  const alert = view.error ? `<p class="alert" role="alert" id="signin-error">${escapeHtml(view.error)}</p>\n` : '';
  const described = view.error ? ' aria-describedby="signin-error"' : '';
  const scopes = view.scopes
    .map((s) => `<li>${escapeHtml(SCOPE_DESCRIPTIONS[s])} <span class="hint">(${escapeHtml(s)})</span></li>`)
    .join('\n');
  return htmlPage(
    'Sign in to continue',
    STYLE,
    `<h1>${escapeHtml(showableClientName(view.clientName))} wants access to your account</h1>
<p>If you approve, it will be able to:</p>
<ul>
${scopes}
</ul>
<p>You will then be sent back to <strong>${escapeHtml(view.redirectTarget)}</strong>. Approve only if you trust this application.</p>
${alert}<form method="post" action="/oauth/authorize">
<input type="hidden" name="auth_request" value="${escapeHtml(view.authRequest)}">
<input type="hidden" name="csrf_token" value="${escapeHtml(view.csrfToken)}">
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required maxlength="254" value="${escapeHtml(view.email ?? '')}"${described}>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required maxlength="1024"${described}>
<button type="submit" name="decision" value="approve" class="approve">Sign in and approve</button>
<button type="submit" name="decision" value="deny" class="deny" formnovalidate>Deny</button>
</form>`,
  );
}

export function errorPage(title: string, message: string): string {
  return htmlPage(
    title,
    STYLE,
    `<h1>${escapeHtml(title)}</h1>\n<p role="alert">${escapeHtml(message)}</p>\n<p>Go back to the application that sent you here and start again.</p>`,
  );
}
