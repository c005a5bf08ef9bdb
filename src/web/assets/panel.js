// gengate panel: the theme (system preference unless the owner picked one, kept in localStorage),
// copy buttons and confirmations. Loaded in <head>, so the theme applies before the first paint.
(() => {
  const KEY = 'gengate-theme';
  const root = document.documentElement;
  const saved = (() => {
    try {
      return localStorage.getItem(KEY);
    } catch {
      return null;
    }
  })();
  if (saved === 'light' || saved === 'dark') root.dataset.theme = saved;

  const current = () =>
    root.dataset.theme || (matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light');

  document.addEventListener('click', (event) => {
    const target = event.target instanceof Element ? event.target : null;
    const toggle = target?.closest('[data-theme-toggle]');
    if (toggle) {
      const next = current() === 'dark' ? 'light' : 'dark';
      root.dataset.theme = next;
      try {
        localStorage.setItem(KEY, next);
      } catch {}
      return;
    }
    const copy = target?.closest('[data-copy]');
    if (copy) {
      const text = copy.getAttribute('data-copy') || '';
      navigator.clipboard?.writeText(text).then(() => {
        const label = copy.textContent;
        copy.textContent = 'Copied';
        setTimeout(() => {
          copy.textContent = label;
        }, 1500);
      });
    }
  });

  // <form data-confirm="Really?">: ask before sending (inline handlers are blocked by the CSP).
  document.addEventListener('submit', (event) => {
    const form = event.target instanceof HTMLFormElement ? event.target : null;
    const question = form?.getAttribute('data-confirm');
    if (question && !confirm(question)) event.preventDefault();
  });
})();
