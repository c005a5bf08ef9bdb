// The one frame of every page of the owner panel and the operator console: top navigation, the
// signed-in identity, sign-out, theme toggle and a banner. Styles and scripts come from the site's
// own assets path (same origin; the CSP allows nothing else).
import { escapeHtml } from './html.js';

export interface NavItem {
  label: string;
  href: string;
  active: boolean;
}

export interface ShellOptions {
  title: string;
  /** The site's name in the title and its brand link, e.g. gengate or gengate console. */
  brand: { label: string; href: string };
  /** Where the shared assets are served (/panel/assets, /console/assets). */
  assets: string;
  /** Signed in: the navigation and the sign-out form. Absent: a bare page (sign-in). */
  signedIn?: {
    nav: NavItem[];
    navLabel: string;
    /** Who is signed in, shown beside sign-out (text). */
    identity: string;
    signOutAction: string;
    csrfToken: string;
  };
  /** A banner under the top bar (HTML), such as the maintenance notice. */
  banner?: string;
  body: string;
  head?: string;
}

/** The hidden CSRF field every POST form of a signed-in page carries. */
export function csrfInput(token: string): string {
  return `<input type="hidden" name="_csrf" value="${escapeHtml(token)}">`;
}

const THEME_TOGGLE =
  '<button type="button" class="btn btn-ghost btn-small" data-theme-toggle aria-label="Switch between light and dark theme">Theme</button>';

function topBar(options: ShellOptions): string {
  const { brand, signedIn } = options;
  const brandLink = `<a class="brand" href="${brand.href}">${escapeHtml(brand.label)}</a>`;
  if (!signedIn)
    return `<header class="topbar">${brandLink}<div class="topbar-actions">${THEME_TOGGLE}</div></header>`;
  const links = signedIn.nav
    .map(
      (item) =>
        `<a href="${item.href}"${item.active ? ' class="active" aria-current="page"' : ''}>${escapeHtml(item.label)}</a>`,
    )
    .join('');
  return `<header class="topbar">
${brandLink}
<nav class="nav" aria-label="${escapeHtml(signedIn.navLabel)}">${links}</nav>
<div class="topbar-actions">
<span class="account muted" title="Signed in as">${escapeHtml(signedIn.identity)}</span>
${THEME_TOGGLE}
<form method="post" action="${signedIn.signOutAction}" class="inline">${csrfInput(signedIn.csrfToken)}<button class="btn btn-ghost btn-small" type="submit">Sign out</button></form>
</div>
</header>`;
}

export function renderShell(options: ShellOptions): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark"><meta name="referrer" content="same-origin">
<title>${escapeHtml(options.title)} · ${escapeHtml(options.brand.label)}</title>
<link rel="stylesheet" href="${options.assets}/panel.css">
<script src="${options.assets}/panel.js"></script>
${options.head ?? ''}</head>
<body${options.signedIn ? '' : ' class="bare"'}>
${topBar(options)}
${options.banner ?? ''}<main class="container">
${options.body}
</main>
</body></html>`;
}

/** What one site (the panel or the console) fixes about its pages; the rest comes per page. */
export interface SiteFrame<Section extends string, Session extends SiteSession> {
  brand: { label: string; href: string };
  assets: string;
  nav: { section: Section; label: string; href: string }[];
  navLabel: string;
  signOutAction: string;
  /** Who is signed in, shown beside sign-out (text). */
  identity: (session: Session) => string;
  /** The maintenance banner's text (the site says what maintenance means to its readers). */
  maintenanceNotice: string;
  /** Tags every page of the site adds to <head> before the page's own. */
  head?: string;
}

/** The parts of a signed-in session the frame reads. */
export interface SiteSession {
  csrfToken: string;
  maintenance: boolean;
}

export interface SitePageOptions<Section extends string, Session extends SiteSession> {
  title: string;
  /** The highlighted navigation entry; omitted on pages outside the navigation (sign-in). */
  active?: Section;
  /** The signed-in session; without it the page has no navigation (sign-in pages). */
  session?: Session;
  /** The page's HTML, built with the helpers of src/web/html.ts. */
  body: string;
  /** Extra tags for <head> (a page's own stylesheet or script). */
  head?: string;
}

/** A page of one site: its navigation, identity and maintenance banner around the page's body. */
export function renderSitePage<Section extends string, Session extends SiteSession>(
  site: SiteFrame<Section, Session>,
  { title, active, session, body, head = '' }: SitePageOptions<Section, Session>,
): string {
  return renderShell({
    title,
    brand: site.brand,
    assets: site.assets,
    signedIn: session && {
      nav: site.nav.map((item) => ({ label: item.label, href: item.href, active: item.section === active })),
      navLabel: site.navLabel,
      identity: site.identity(session),
      signOutAction: site.signOutAction,
      csrfToken: session.csrfToken,
    },
    banner: session?.maintenance
      ? `<div class="banner" role="status">${escapeHtml(site.maintenanceNotice)}</div>`
      : '',
    body,
    head: `${site.head ?? ''}${head}`,
  });
}
