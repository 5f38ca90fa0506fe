// Appended to a copy of a kseg report by the browser test: writes into a
// pre element what the page loaded with (errors, requests), each picture's
// marks as laid out, and every table's text.
(function () {
  const out = { errors: [], requests: 0, figures: [], tables: [] };
  document.addEventListener('securitypolicyviolation', (e) => out.errors.push('blocked ' + e.blockedURI));
  window.addEventListener('error', (e) => out.errors.push(String(e.message || e)), true);
  out.requests = performance.getEntriesByType('resource').length;
  for (const svg of document.querySelectorAll('svg.figure')) {
    const box = svg.getBoundingClientRect();
    const marks = [...svg.querySelectorAll('.mark')].map((m) => {
      const b = m.getBoundingClientRect();
      return { lane: m.dataset.lane, offset: m.dataset.offset, value: m.dataset.value, width: b.width, height: b.height };
    });
    out.figures.push({ id: svg.id, width: box.width, height: box.height, marks });
  }
  for (const t of document.querySelectorAll('table.numbers')) {
    out.tables.push({ figure: t.dataset.figure, rows: [...t.rows].map((r) => [...r.cells].map((c) => c.textContent)) });
  }
  const pre = document.createElement('pre');
  pre.id = 'probe';
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
