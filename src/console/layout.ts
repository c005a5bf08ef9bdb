// The frame of every console page (the shared shell of src/web/layout.ts): the console's sections
// and the maintenance banner.
import { csrfInput, renderShell } from '../web/layout.js';
import type { ConsoleSession } from './console-context.js';

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

export function renderConsolePage(options: {
  title: string;
  active?: ConsoleSection;
  session?: ConsoleSession;
  body: string;
  head?: string;
}): string {
  const { session } = options;
  return renderShell({
    title: options.title,
    brand: { label: 'gengate console', href: '/console' },
    assets: CONSOLE_ASSETS,
    signedIn: session && {
      nav: NAV.map((item) => ({
        label: item.label,
        href: item.href,
        active: item.section === options.active,
      })),
      navLabel: 'Console sections',
      identity: 'operator',
      signOutAction: '/console/logout',
      csrfToken: session.csrfToken,
    },
    banner: session?.maintenance
      ? '<div class="banner" role="status">Maintenance is on: the API answers 503 to new requests. Turn it off on the Maintenance page.</div>'
      : '',
    body: options.body,
    head: `${CONSOLE_CSS}${options.head ?? ''}`,
  });
}
