// backofflab playground: the "What you are seeing" panel, as the server
// writes it (web/playground/explain.go) with the marks of the run so far.
'use strict';

// ---- the explanation -------------------------------------------------------
// renderExplain shows the run's "What you are seeing" panel: the server
// model's story (from Go, with the run's numbers), what decided each lane
// so far (the marks' sentences), how a verdict is measured, how to read
// the charts (their specs' help) and where 001 comes from.
function renderExplain() {
  const body = $('#explain-body');
  if (!body || !explain) return;
  const gist = $('#explain-gist');
  if (gist) gist.textContent = explain.gist;
  const parts = explain.story.map(p => el('p', { textContent: p }));
  const items = [];
  for (let i = 0; i < laneCount(); i++) {
    const texts = marks.marks.filter(m => m.lane === i).map(m => m.text);
    if (!texts.length) continue;
    const s = lanes[i] && STRATEGIES[lanes[i].strategy];
    items.push(el('li', {}, el('b', { textContent: `Lane ${LETTERS[i]}` }), s ? `, ${s.title}: ` : ': ', texts.join(' ')));
  }
  if (items.length) parts.push(el('p', { textContent: 'This run so far, lane by lane (the dashed lines on the charts):' }), el('ul', {}, ...items));
  parts.push(el('p', { textContent: explain.verdicts }));
  parts.push(el('p', { textContent: 'The charts, top to bottom (each chart\'s ? button shows it too): ' + SPECS.map(k => `${k.title}: ${k.help}`).join('; ') + '.' }));
  const src = explain.source;
  parts.push(el('p', {}, src.text + ' ', el('a', { href: src.url, textContent: src.link, rel: 'noopener' }), '.'));
  body.replaceChildren(...parts);
}
