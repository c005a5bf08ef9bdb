// The one frame of every panel page: top navigation, sign-out, theme toggle, maintenance banner.
// Styles and scripts come from /panel/assets (same origin; the CSP allows nothing else).
import { escapeHtml } from './html.js';
import type { PanelSession } from './panel-context.js';

export type PanelSection =
  | 'overview'
  | 'keys'
  | 'money'
  | 'analytics'
  | 'tasks'
  | 'webhooks'
  | 'audit'
  | 'security';

const NAV: { section: PanelSection; label: string; href: string }[] = [
  { section: 'overview', label: 'Overview', href: '/panel' },
  { section: 'keys', label: 'Keys', href: '/panel/keys' },
  { section: 'money', label: 'Money', href: '/panel/money' },
  { section: 'analytics', label: 'Analytics', href: '/panel/analytics' },
  { section: 'tasks', label: 'Tasks', href: '/panel/tasks' },
  { section: 'webhooks', label: 'Webhooks', href: '/panel/webhooks' },
  { section: 'audit', label: 'Audit', href: '/panel/audit' },
  { section: 'security', label: 'Security', href: '/panel/security' },
];

export interface PageOptions {
  title: string;
  /** The highlighted navigation entry; omitted on pages outside the navigation (sign-in). */
  active?: PanelSection;
  /** The signed-in owner (request.panel); without it the page has no navigation (sign-in pages). */
  session?: PanelSession;
  /** The page's HTML, built with the helpers of html.ts. */
  body: string;
  /** Extra tags for <head> (a page's own stylesheet or script from /panel/assets). */
  head?: string;
}

/** The hidden CSRF field every POST form of a signed-in page carries. */
export function csrfField(session: PanelSession): string {
  return `<input type="hidden" name="_csrf" value="${escapeHtml(session.csrfToken)}">`;
}

function topBar(active: PanelSection | undefined, session: PanelSession): string {
  const links = NAV.map(
    (item) =>
      `<a href="${item.href}"${item.section === active ? ' class="active" aria-current="page"' : ''}>${item.label}</a>`,
  ).join('');
  return `<header class="topbar">
<a class="brand" href="/panel">gengate</a>
<nav class="nav" aria-label="Panel sections">${links}</nav>
<div class="topbar-actions">
<span class="account muted" title="Account">#${escapeHtml(session.messagingId)}</span>
<button type="button" class="btn btn-ghost btn-small" data-theme-toggle aria-label="Switch between light and dark theme">Theme</button>
<form method="post" action="/panel/logout" class="inline">${csrfField(session)}<button class="btn btn-ghost btn-small" type="submit">Sign out</button></form>
</div>
</header>`;
}

export function renderPage({ title, active, session, body, head = '' }: PageOptions): string {
  const banner = session?.maintenance
    ? '<div class="banner" role="status">Maintenance is on: new requests are refused for now. Balances and history stay available here.</div>'
    : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark"><meta name="referrer" content="same-origin">
<title>${escapeHtml(title)} · gengate</title>
<link rel="stylesheet" href="/panel/assets/panel.css">
<script src="/panel/assets/panel.js"></script>
${head}</head>
<body${session ? '' : ' class="bare"'}>
${session ? topBar(active, session) : '<header class="topbar"><a class="brand" href="/panel">gengate</a><div class="topbar-actions"><button type="button" class="btn btn-ghost btn-small" data-theme-toggle aria-label="Switch between light and dark theme">Theme</button></div></header>'}
${banner}<main class="container">
${body}
</main>
</body></html>`;
}
