// Server-rendered panel pages: HTML escaping for every interpolated value, and the small components
// every page is built from (tables, badges, flash messages, empty states, money and time). Each
// component takes text to escape, or HTML its caller built with these same helpers.
import { microToRub } from '../domain/billing/money.js';

export function escapeHtml(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Rubles with two decimals and a thin thousands separator, from micro-rubles. */
export function formatRub(micro: number | bigint): string {
  const rub = microToRub(Number(micro));
  const [whole, fraction] = Math.abs(rub).toFixed(2).split('.');
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, '\u202f');
  return `${rub < 0 ? '−' : ''}${grouped}.${fraction} ₽`;
}

/** A UTC timestamp people read: 2026-11-25 14:03 UTC (seconds in the title attribute). */
export function formatTime(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '<span class="muted">—</span>';
  const iso = new Date(Number(ms)).toISOString();
  return `<time datetime="${iso}" title="${iso}">${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC</time>`;
}

export type Tone = 'ok' | 'warn' | 'error' | 'info' | 'muted';

export function badge(text: string, tone: Tone = 'muted'): string {
  return `<span class="badge badge-${tone}">${escapeHtml(text)}</span>`;
}

/** A message at the top of a page: the result of the form the owner just sent. */
export function flash(kind: 'ok' | 'error' | 'info', message: string): string {
  const role = kind === 'error' ? 'alert' : 'status';
  return `<div class="flash flash-${kind}" role="${role}">${escapeHtml(message)}</div>`;
}

export function emptyState(title: string, text: string, actionHtml = ''): string {
  return `<div class="empty"><p class="empty-title">${escapeHtml(title)}</p>${text ? `<p class="muted">${escapeHtml(text)}</p>` : ''}${actionHtml}</div>`;
}

export interface Column {
  label: string;
  /** Right-aligned, tabular figures. */
  num?: boolean;
}

/**
 * A table that becomes one card per row on a phone (`layout: 'cards'`, the default) or scrolls
 * sideways inside its own box (`'scroll'`, for wide data), so the page never does. Cells are HTML
 * (escape text with escapeHtml); `empty` shows instead of a table without rows.
 */
export function table(
  columns: Column[],
  rows: string[][],
  empty: string,
  layout: 'cards' | 'scroll' = 'cards',
): string {
  if (rows.length === 0) return emptyState(empty, '');
  const head = columns.map(
    (c) => `<th${c.num ? ' class="num"' : ''} scope="col">${escapeHtml(c.label)}</th>`,
  );
  const body = rows.map(
    (cells) =>
      `<tr>${cells.map((cell, i) => `<td${columns[i]?.num ? ' class="num"' : ''}${columns[i] ? ` data-label="${escapeHtml(columns[i].label)}"` : ''}>${cell}</td>`).join('')}</tr>`,
  );
  return `<div class="table-wrap${layout === 'cards' ? ' cards' : ''}"><table><thead><tr>${head.join('')}</tr></thead><tbody>${body.join('')}</tbody></table></div>`;
}

/** The title row of a page, with optional actions (buttons or links) on the right. */
export function pageHeader(title: string, subtitle = '', actionsHtml = ''): string {
  return `<div class="page-head"><div><h1>${escapeHtml(title)}</h1>${subtitle ? `<p class="muted">${escapeHtml(subtitle)}</p>` : ''}</div>${actionsHtml ? `<div class="page-actions">${actionsHtml}</div>` : ''}</div>`;
}

/** A headline figure: label, value (HTML), optional hint. */
export function stat(label: string, valueHtml: string, hint = ''): string {
  return `<div class="stat"><div class="stat-label">${escapeHtml(label)}</div><div class="stat-value">${valueHtml}</div>${hint ? `<div class="stat-hint muted">${escapeHtml(hint)}</div>` : ''}</div>`;
}

export function card(title: string, bodyHtml: string): string {
  return `<section class="card">${title ? `<h2>${escapeHtml(title)}</h2>` : ''}${bodyHtml}</section>`;
}
