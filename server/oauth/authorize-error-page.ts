// The page an authorization error is shown on instead of an automatic redirect, when the
// client's redirect URI is not trusted for one (redirect-uri.ts, errorRedirectsAutomatically;
// RFC 9700 §4.11.2). It names the error and offers what the redirect would have carried as a
// link, saying where it leads, so the user decides: a browser is never sent from this origin to
// a site it did not choose.
import { escapeHtml, htmlPage } from '../public/html.ts';

// The sign-in page's palette (WCAG AA on white); no script, every value escaped.
const STYLE =
  'body{font-family:system-ui,sans-serif;max-width:30rem;margin:2rem auto;padding:0 1rem;line-height:1.5;color:#1a1a1a;background:#fff}' +
  'a{color:#1d4ed8}:focus-visible{outline:3px solid #1a1a1a;outline-offset:2px}code{font-size:.95em}';

export const ERROR_RETURN_TITLE = 'This sign-in request cannot be completed';

export interface ErrorReturnView {
  /** The OAuth error code (RFC 6749 §4.1.2.1). */
  error: string;
  description: string;
  /** The redirect URI with error, error_description, state and iss: where the link leads. */
  returnUrl: string;
  /** How the user should recognise where the link leads: its host. */
  destination: string;
}

export function errorReturnPage(view: ErrorReturnView): string {
  return htmlPage(
    ERROR_RETURN_TITLE,
    STYLE,
    `<h1>${escapeHtml(ERROR_RETURN_TITLE)}</h1>
<p role="alert">The application's request is not valid (<code>${escapeHtml(view.error)}</code>): ${escapeHtml(view.description)}.</p>
<p>You have not signed in and nothing was shared. If you came here from an application you trust, you can <a href="${escapeHtml(view.returnUrl)}" rel="noreferrer">return to ${escapeHtml(view.destination)}</a> and let it know; otherwise close this page.</p>`,
  );
}
