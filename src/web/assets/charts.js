// gengate charts (panel and console): draws every <div class="chart" data-chart="ID"> from the JSON in
// <script type="application/json" id="ID"> ({title, unit, x: [epoch s], series: [{label, values}]})
// with uPlot (served beside it, /panel/assets or /console/assets). Same origin only: the CSP allows no inline script.
(() => {
  const PALETTE = ['#4f46e5', '#0f9d7a', '#e0862d', '#d6336c', '#1d8fd6', '#8a5cd1', '#7a8699'];

  function format(unit, value) {
    if (value == null) return '';
    if (unit === 'rub') return `${value.toLocaleString(undefined, { maximumFractionDigits: 2 })} ₽`;
    return value.toLocaleString();
  }

  function draw(box) {
    const source = document.getElementById(box.getAttribute('data-chart'));
    if (!source || typeof uPlot === 'undefined') return;
    const data = JSON.parse(source.textContent || '{}');
    box.textContent = '';
    const width = Math.max(240, box.clientWidth);
    const opts = {
      title: data.title,
      width,
      height: 240,
      scales: { x: { time: true } },
      axes: [
        { stroke: 'currentColor', grid: { stroke: 'rgba(128,128,128,.15)' } },
        {
          stroke: 'currentColor',
          grid: { stroke: 'rgba(128,128,128,.15)' },
          size: 60,
          values: (_u, ticks) => ticks.map((t) => format(data.unit, t)),
        },
      ],
      series: [
        {},
        ...data.series.map((s, i) => ({
          label: s.label,
          stroke: PALETTE[i % PALETTE.length],
          fill: `${PALETTE[i % PALETTE.length]}22`,
          width: 2,
          value: (_u, v) => format(data.unit, v),
        })),
      ],
    };
    const plot = new uPlot(opts, [data.x, ...data.series.map((s) => s.values)], box);
    box.dataset.drawn = String(data.series.length);
    let last = width;
    new ResizeObserver(() => {
      const next = Math.max(240, box.clientWidth);
      if (Math.abs(next - last) > 8) {
        last = next;
        plot.setSize({ width: next, height: 240 });
      }
    }).observe(box);
  }

  function drawAll() {
    for (const box of document.querySelectorAll('.chart[data-chart]')) draw(box);
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', drawAll);
  else drawAll();
})();
