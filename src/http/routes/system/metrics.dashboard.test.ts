// deploy/grafana/gengate-dashboard.json against a live /metrics: every metric a panel queries exists
// (with the suffixes its type allows), every label a query filters or groups by is one of the
// metric's labels, and every gengate metric has at least one panel.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../testing/app.js';
import { type Exposition, parseExposition } from '../../../testing/prometheus-text.js';

interface Target {
  expr: string;
  refId: string;
}
interface Panel {
  id: number;
  type: string;
  title: string;
  targets?: Target[];
  datasource?: { uid: string };
  gridPos: { h: number; w: number; x: number; y: number };
}

const dashboard = JSON.parse(
  readFileSync(new URL('../../../../deploy/grafana/gengate-dashboard.json', import.meta.url), 'utf8'),
) as { uid: string; title: string; panels: Panel[]; templating: { list: Array<{ name: string }> } };

const METRIC = /\b(?:gengate|process|nodejs)_[a-z0-9_]+\b/g;
/** Label names inside {…} selectors and by (…) / without (…) clauses. */
const SELECTOR = /\b((?:gengate|process|nodejs)_[a-z0-9_]+)\{([^}]*)\}/g;
const GROUPING = /\bby \(([^)]*)\)/g;

let app: TestApp;
let scraped: Exposition;

beforeAll(async () => {
  app = await createTestApp();
  scraped = parseExposition((await app.http.inject({ method: 'GET', url: '/metrics' })).body);
});
afterAll(async () => app.dispose());

/** The family a sample name belongs to (histograms: name_bucket, name_sum, name_count). */
function familyOf(name: string): { family: string; type: string } | undefined {
  const direct = scraped.families.get(name);
  if (direct) return { family: name, type: direct.type };
  const match = /^(.*)_(bucket|sum|count)$/.exec(name);
  const family = match ? scraped.families.get(match[1]) : undefined;
  return family && ['histogram', 'summary'].includes(family.type)
    ? { family: family.name, type: family.type }
    : undefined;
}

/** The label names a family's help text and its label names declare, from the registry itself. */
async function labelNamesOf(family: string): Promise<string[]> {
  const metric = app.ctx.metrics.registry.getSingleMetric(family) as unknown as {
    labelNames?: readonly string[];
  };
  return [...(metric?.labelNames ?? [])];
}

const targets = dashboard.panels.flatMap((panel) =>
  (panel.targets ?? []).map((target) => ({ panel, target })),
);

describe('the Grafana dashboard', () => {
  it('is a dashboard with unique panel ids, a data source variable and a query in every graph panel', () => {
    expect(dashboard.uid).toBe('gengate-overview');
    expect(dashboard.templating.list.map((v) => v.name)).toEqual(
      expect.arrayContaining(['datasource', 'instance']),
    );
    const ids = dashboard.panels.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const panel of dashboard.panels) {
      expect(panel.gridPos.x + panel.gridPos.w, panel.title).toBeLessThanOrEqual(24);
      if (panel.type === 'row') continue;
      expect(panel.targets?.length, panel.title).toBeGreaterThan(0);
      // biome-ignore lint/suspicious/noTemplateCurlyInString: Grafana's variable syntax
      expect(panel.datasource?.uid).toBe('${datasource}');
    }
    expect(targets.length).toBeGreaterThan(30);
  });

  it('queries only metrics that /metrics exposes', () => {
    for (const { panel, target } of targets) {
      const names = target.expr.match(METRIC) ?? [];
      expect(names.length, panel.title).toBeGreaterThan(0);
      for (const name of names) expect(familyOf(name), `${panel.title}: ${name}`).toBeDefined();
    }
  });

  it('filters and groups only by labels those metrics have', async () => {
    for (const { panel, target } of targets) {
      const names = [...new Set(target.expr.match(METRIC) ?? [])];
      const allowed = new Set(['le', 'instance', 'job']);
      for (const name of names) {
        const found = familyOf(name);
        for (const label of await labelNamesOf(found?.family ?? name)) allowed.add(label);
      }
      for (const [, , inner] of target.expr.matchAll(SELECTOR))
        for (const part of inner.split(',')) {
          const label = part.trim().split(/[=!~]/)[0];
          expect(allowed, `${panel.title}: ${label}`).toContain(label);
        }
      for (const [, inner] of target.expr.matchAll(GROUPING))
        for (const label of inner.split(',').map((l) => l.trim()))
          expect(allowed, `${panel.title}: by ${label}`).toContain(label);
    }
  });

  it('charts every gengate metric', () => {
    const charted = new Set(
      targets.flatMap(({ target }) =>
        (target.expr.match(METRIC) ?? []).map((name) => familyOf(name)?.family),
      ),
    );
    const ours = [...scraped.families.keys()].filter((name) => name.startsWith('gengate_'));
    expect(ours.length).toBeGreaterThanOrEqual(20);
    expect(ours.filter((name) => !charted.has(name))).toEqual([]);
  });
});
