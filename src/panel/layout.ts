// The frame of every panel page (the shared shell of src/web/layout.ts): the panel's navigation,
// the owner's account, and the maintenance banner.
import { csrfInput, renderSitePage, type SiteFrame, type SitePageOptions } from '../web/layout.js';
import type { PanelSession } from './session.js';

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

export type PageOptions = SitePageOptions<PanelSection, PanelSession>;

/** The hidden CSRF field every POST form of a signed-in page carries. */
export function csrfField(session: PanelSession): string {
  return csrfInput(session.csrfToken);
}

const PANEL_FRAME: SiteFrame<PanelSection, PanelSession> = {
  brand: { label: 'gengate', href: '/panel' },
  assets: '/panel/assets',
  nav: NAV,
  navLabel: 'Panel sections',
  signOutAction: '/panel/logout',
  identity: (session) => `#${session.messagingId}`,
  maintenanceNotice:
    'Maintenance is on: new requests are refused for now. Balances and history stay available here.',
};

export function renderPage(options: PageOptions): string {
  return renderSitePage(PANEL_FRAME, options);
}
