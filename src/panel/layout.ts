// The frame of every panel page (the shared shell of src/web/layout.ts): the panel's navigation,
// the owner's account, and the maintenance banner.
import { csrfInput, renderShell } from '../web/layout.js';
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
  /** The page's HTML, built with the helpers of src/web/html.ts. */
  body: string;
  /** Extra tags for <head> (a page's own stylesheet or script). */
  head?: string;
}

/** The hidden CSRF field every POST form of a signed-in page carries. */
export function csrfField(session: PanelSession): string {
  return csrfInput(session.csrfToken);
}

export function renderPage({ title, active, session, body, head = '' }: PageOptions): string {
  return renderShell({
    title,
    brand: { label: 'gengate', href: '/panel' },
    assets: '/panel/assets',
    signedIn: session && {
      nav: NAV.map((item) => ({ label: item.label, href: item.href, active: item.section === active })),
      navLabel: 'Panel sections',
      identity: `#${session.messagingId}`,
      signOutAction: '/panel/logout',
      csrfToken: session.csrfToken,
    },
    banner: session?.maintenance
      ? '<div class="banner" role="status">Maintenance is on: new requests are refused for now. Balances and history stay available here.</div>'
      : '',
    body,
    head,
  });
}
