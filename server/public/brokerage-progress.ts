// GET /brokerage/progress/{token}: the buyer's no-login view of a brokerage case (public
// contract, getBrokerageProgress). The token is the only credential, so the page never shows the
// budget, the partner or the buyer, and asks not to be cached, indexed or leaked by referrer.
import express, { type Request, type Response, type Router } from 'express';
import type { components } from '../../generated/public.d.ts';
import type { BrokerageStatus } from '../domain/brokerage.ts';
import { rfc3339 } from '../domain/rfc3339.ts';
import { ApiError } from '../http/errors.ts';
import type { CaseRow, CaseTimelineRow } from '../store/brokerage.ts';
import type { Store } from '../store/index.ts';
import { escapeHtml, htmlPage } from './html.ts';
import { formatCents } from '../domain/money.ts';

type Progress = components['schemas']['BrokerageProgress'];

/** The contract's token form; anything else cannot be a token, so is not looked up. */
const TOKEN = /^[A-Za-z0-9_-]{22,128}$/;

const STATUS_TEXT: Record<BrokerageStatus, string> = {
  open: 'Case opened',
  contacting_owner: 'Contacting the owner',
  negotiating: 'Negotiating with the owner',
  deal_closed: 'Deal closed',
  no_deal: 'No deal',
  cancelled: 'Cancelled',
};

const TIER_TEXT: Record<string, string> = { managed: 'Managed brokerage', self_serve: 'Self-serve brokerage' };

const statusText = (status: string) => STATUS_TEXT[status as BrokerageStatus] ?? status;

function toProgress(row: CaseRow, timeline: readonly CaseTimelineRow[]): Progress {
  return {
    case_id: row.case_id,
    domain: row.domain,
    tier: row.tier as Progress['tier'],
    status: row.status as Progress['status'],
    created_at: rfc3339(row.created_at),
    updated_at: rfc3339(row.updated_at),
    final_price_cents: row.final_price_cents,
    currency: row.currency,
    timeline: timeline.map((t) => ({ status: t.status as Progress['status'], at: rfc3339(t.at), note: t.note })),
  };
}

// From the integer cents, never `cents / 100` (a float: 9007199254740991 showed as …409.90).
const money = (cents: number, currency: string) => `${formatCents(cents)} ${currency}`;
const readableDate = (iso: string) =>
  new Date(iso).toLocaleString('en-GB', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' }) + ' UTC';

const STYLE =
  'body{font-family:system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem;line-height:1.5;color:#1a1a1a}ol{padding-left:1.25rem}li{margin:.5rem 0}.note{color:#444}';

const page = (title: string, main: string) => htmlPage(title, STYLE, main);

export function renderProgress(p: Progress): string {
  const entries = p.timeline
    .map(
      (t) =>
        `<li><time datetime="${escapeHtml(t.at)}">${escapeHtml(readableDate(t.at))}</time> – ${escapeHtml(statusText(t.status))}` +
        (t.note ? `<br><span class="note">${escapeHtml(t.note)}</span>` : '') +
        '</li>',
    )
    .join('\n');
  const price =
    p.final_price_cents !== null
      ? `<p>Agreed price: <strong>${escapeHtml(money(p.final_price_cents, p.currency))}</strong></p>\n`
      : '';
  return page(
    `Acquiring ${p.domain}`,
    `<h1>Acquiring ${escapeHtml(p.domain)}</h1>
<p>${escapeHtml(TIER_TEXT[p.tier] ?? p.tier)} · case <code>${escapeHtml(p.case_id)}</code></p>
<h2>Status</h2>
<p role="status">Current status: <strong>${escapeHtml(statusText(p.status))}</strong> (updated <time datetime="${escapeHtml(p.updated_at)}">${escapeHtml(readableDate(p.updated_at))}</time>)</p>
${price}<h2>Timeline</h2>
<ol>
${entries}
</ol>`,
  );
}

const wantsJson = (req: Request) => req.accepts(['text/html', 'application/json']) === 'application/json';

// The token is in the page's URL: Referrer-Policy (no-referrer, server/http/security-headers.ts)
// keeps it from leaking to other sites.
function noStore(res: Response): void {
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('X-Robots-Tag', 'noindex');
  res.setHeader('Vary', 'Accept');
}

export function brokerageProgressRouter(deps: { store: Store }): Router {
  const router = express.Router();
  router.get('/brokerage/progress/:token', async (req, res) => {
    noStore(res);
    const token = String(req.params.token ?? '');
    const row = TOKEN.test(token) ? await deps.store.brokerage.findByToken(token) : undefined;
    if (!row) {
      if (wantsJson(req)) throw new ApiError('not_found', 'No page at this address');
      res
        .status(404)
        .type('html')
        .send(
          page(
            'Not found',
            '<h1>Page not found</h1>\n<p>This progress link is not valid. Check the link you were sent.</p>',
          ),
        );
      return;
    }
    const progress = toProgress(row, await deps.store.brokerage.timeline(row.case_id));
    if (wantsJson(req)) {
      res.json(progress);
      return;
    }
    res.type('html').send(renderProgress(progress));
  });
  return router;
}
