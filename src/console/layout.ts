// The frame of every console page (the shared shell of src/web/layout.ts): the console's sections
// and the maintenance banner.
import { csrfInput, renderSitePage, type SiteFrame, type SitePageOptions } from '../web/layout.js';
import type { ConsoleSession } from './session.js';

export type ConsoleSection =
  | 'accounts'
  | 'models'
  | 'providers'
  | 'tasks'
  | 'webhooks'
  | 'maintenance'
  | 'topups'
  | 'codes'
  | 'margin'
  | 'audit';

const NAV: { section: ConsoleSection; label: string; href: string }[] = [
  { section: 'accounts', label: 'Accounts', href: '/console/accounts' },
  { section: 'models', label: 'Models', href: '/console/models' },
  { section: 'providers', label: 'Providers', href: '/console/providers' },
  { section: 'tasks', label: 'Tasks', href: '/console/tasks' },
  { section: 'webhooks', label: 'Webhooks', href: '/console/webhooks' },
  { section: 'maintenance', label: 'Maintenance', href: '/console/maintenance' },
  { section: 'topups', label: 'Top-ups', href: '/console/topups' },
  { section: 'codes', label: 'Codes', href: '/console/codes' },
  { section: 'margin', label: 'Margin', href: '/console/margin' },
  { section: 'audit', label: 'Audit', href: '/console/audit' },
];

export const CONSOLE_ASSETS = '/console/assets';
/** The feature stylesheet shared with the panel, and the console's own. */
export const CONSOLE_CSS = `<link rel="stylesheet" href="${CONSOLE_ASSETS}/pages.css"><link rel="stylesheet" href="${CONSOLE_ASSETS}/console.css">`;

export function csrfField(session: ConsoleSession): string {
  return csrfInput(session.csrfToken);
}

const CONSOLE_FRAME: SiteFrame<ConsoleSection, ConsoleSession> = {
  brand: { label: 'gengate console', href: '/console' },
  assets: CONSOLE_ASSETS,
  nav: NAV,
  navLabel: 'Console sections',
  signOutAction: '/console/logout',
  identity: () => 'operator',
  maintenanceNotice:
    'Maintenance is on: the API answers 503 to new requests. Turn it off on the Maintenance page.',
  head: CONSOLE_CSS,
};

export function renderConsolePage(options: SitePageOptions<ConsoleSection, ConsoleSession>): string {
  return renderSitePage(CONSOLE_FRAME, options);
}
