// Server-rendered panel pages: one layout and HTML escaping for every interpolated value.
export function escapeHtml(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · gengate</title>
<style>
body{font:15px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:70rem;padding:0 1rem;color:#1d1d1f}
table{border-collapse:collapse;width:100%;margin:.5rem 0 1.5rem}th,td{text-align:left;padding:.35rem .6rem;border-bottom:1px solid #ddd}
th{font-weight:600;background:#f5f5f7}code{font:13px ui-monospace,monospace}.num{text-align:right}header{display:flex;justify-content:space-between;align-items:center}
</style></head><body>${body}</body></html>`;
}
