// The status page as server-rendered HTML: no script, no build step, one inline stylesheet. It
// fits a 390 px phone (cards stack, nothing scrolls sideways), follows the system's light or dark
// scheme, and says every state in words as well as colour.
import type { ComponentStatus, FamilyFigures, Health, StatusReport } from '../../../services/status.js';

function escapeHtml(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const HEALTH_TEXT: Record<Health, string> = {
  operational: 'Operational',
  degraded: 'Degraded',
  down: 'Down',
  maintenance: 'Maintenance',
  unknown: 'Unknown',
};

const HEADLINE: Record<Health, string> = {
  operational: 'All systems operational',
  degraded: 'Some systems are degraded',
  down: 'Major outage',
  maintenance: 'Under maintenance',
  unknown: 'Status unknown',
};

const FAMILY_TEXT: Record<FamilyFigures['family'], string> = { video: 'Video', image: 'Image', text: 'Text' };

export function formatRate(rate: number | null): string {
  return rate === null ? '—' : `${(rate * 100).toFixed(1)} %`;
}

export function formatSeconds(seconds: number | null): string {
  if (seconds === null) return '—';
  if (seconds < 60) return `${seconds.toFixed(1)} s`;
  const whole = Math.round(seconds);
  return `${Math.floor(whole / 60)} min ${whole % 60} s`;
}

function pill(health: Health): string {
  return `<span class="pill pill-${health}" data-status="${health}">${HEALTH_TEXT[health]}</span>`;
}

function componentRow(component: ComponentStatus): string {
  const notes: string[] = [];
  if (component.workers) {
    const { live, queue_wait_seconds: wait } = component.workers;
    notes.push(`${live} live worker process${live === 1 ? '' : 'es'}`);
    if (wait > 0) notes.push(`oldest queued task waiting ${formatSeconds(wait)}`);
  }
  if (component.last_hour) {
    const { succeeded, failed, success_rate: rate } = component.last_hour;
    notes.push(
      succeeded + failed === 0
        ? 'no requests in the last hour'
        : `${formatRate(rate)} succeeded of ${succeeded + failed} in the last hour`,
    );
  }
  const note = notes.length ? `<span class="note">${escapeHtml(notes.join(' · '))}</span>` : '';
  return `<li class="row" data-component="${escapeHtml(component.id)}"><span class="name">${escapeHtml(component.name)}${note}</span>${pill(component.status)}</li>`;
}

function familyCard(figures: FamilyFigures): string {
  const finished = figures.succeeded + figures.failed;
  return `<article class="card" data-family="${figures.family}">
  <h3>${FAMILY_TEXT[figures.family]}</h3>
  <dl>
    <div><dt>Success rate</dt><dd data-figure="success_rate">${formatRate(figures.success_rate)}</dd></div>
    <div><dt>Median time to result</dt><dd data-figure="median">${formatSeconds(figures.median_seconds)}</dd></div>
    <div><dt>Finished</dt><dd data-figure="finished">${finished === 0 ? 'none' : `${figures.succeeded} ok, ${figures.failed} failed`}</dd></div>
  </dl>
</article>`;
}

const STYLE = `
:root{color-scheme:light dark;--bg:#f7f7f8;--fg:#16181d;--muted:#5b606b;--card:#fff;--line:#e3e5e8;
--ok:#0f7b3f;--ok-bg:#dcf3e5;--warn:#8a5300;--warn-bg:#fdf0d5;--bad:#b42318;--bad-bg:#fde4e1;--info:#1d4ed8;--info-bg:#e0e9ff}
@media (prefers-color-scheme:dark){:root{--bg:#111317;--fg:#eceef2;--muted:#a3a9b5;--card:#1a1d23;--line:#2c3039;
--ok:#6ee7a0;--ok-bg:#12331f;--warn:#fbbf5a;--warn-bg:#3a2a0c;--bad:#ff8a80;--bad-bg:#3d1513;--info:#93b4ff;--info-bg:#16224a}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
main{max-width:46rem;margin:0 auto;padding:1.25rem 1rem 3rem}
h1{font-size:1.25rem;margin:0 0 1rem}
h2{font-size:1rem;margin:2rem 0 .5rem;color:var(--muted);font-weight:600}
h3{font-size:1rem;margin:0 0 .5rem}
.banner{padding:1rem 1.25rem;border-radius:.75rem;font-weight:600;font-size:1.1rem}
.banner-operational{background:var(--ok-bg);color:var(--ok)}
.banner-degraded,.banner-unknown{background:var(--warn-bg);color:var(--warn)}
.banner-down{background:var(--bad-bg);color:var(--bad)}
.banner-maintenance{background:var(--info-bg);color:var(--info)}
ul{list-style:none;margin:0;padding:0;background:var(--card);border:1px solid var(--line);border-radius:.75rem}
.row{display:flex;align-items:center;justify-content:space-between;gap:.75rem;padding:.75rem 1rem;border-top:1px solid var(--line)}
.row:first-child{border-top:0}
.name{display:flex;flex-direction:column;min-width:0;overflow-wrap:anywhere}
.note{font-size:.85rem;color:var(--muted)}
.pill{flex:none;font-size:.8rem;font-weight:600;padding:.15rem .6rem;border-radius:999px}
.pill-operational{background:var(--ok-bg);color:var(--ok)}
.pill-degraded,.pill-unknown{background:var(--warn-bg);color:var(--warn)}
.pill-down{background:var(--bad-bg);color:var(--bad)}
.pill-maintenance{background:var(--info-bg);color:var(--info)}
.cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(13rem,1fr));gap:.75rem}
.card{background:var(--card);border:1px solid var(--line);border-radius:.75rem;padding:1rem}
dl{margin:0}dl div{display:flex;justify-content:space-between;gap:.5rem;padding:.2rem 0}
dt{color:var(--muted)}dd{margin:0;font-variant-numeric:tabular-nums;font-weight:600;text-align:right}
footer{margin-top:2rem;font-size:.85rem;color:var(--muted)}
a{color:inherit}
`;

export function renderStatusPage(report: StatusReport): string {
  const core = report.components.filter((c) => c.type === 'core');
  const providers = report.components.filter((c) => c.type === 'provider');
  const families = report.families.length
    ? `<div class="cards">${report.families.map(familyCard).join('')}</div>`
    : '<p class="note">The figures cannot be read while the database is down.</p>';
  const providerList = providers.length
    ? `<ul>${providers.map(componentRow).join('')}</ul>`
    : '<p class="note">No providers.</p>';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="refresh" content="30">
<meta name="color-scheme" content="light dark">
<title>${HEADLINE[report.status]} · gengate status</title>
<style>${STYLE}</style>
</head>
<body>
<main>
<h1>gengate status</h1>
<p class="banner banner-${report.status}" role="status" data-overall="${report.status}">${HEADLINE[report.status]}</p>
<h2>Components</h2>
<ul>${core.map(componentRow).join('')}</ul>
<h2>Providers</h2>
${providerList}
<h2>Last hour, by model family</h2>
${families}
<footer>Updated <time datetime="${report.updated_at}">${report.updated_at.slice(0, 19).replace('T', ' ')} UTC</time> · refreshes every 30 s · <a href="/status.json">JSON</a></footer>
</main>
</body>
</html>`;
}
