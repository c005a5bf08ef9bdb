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
