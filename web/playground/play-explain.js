// backofflab playground: each lane's verdict and the "What you are seeing"
// panel, as the server words them (scenario/verdict.go,
// web/playground/explain.go) with the marks of the run so far.

import { $, $$, attr, el } from './common.js';
import { LETTERS, SPECS, STRATEGIES, explain, heads, laneCount, lanes, lastVerdicts, marks } from './play-state.js';
import { proseNodes } from './play-controls.js';

// ---- the verdicts ----------------------------------------------------------
// TONE_MARKS gives each verdict's tone a shape, so that the tone never
// rests on colour alone: the headline's words say the outcome, the mark
// shows it at a glance.
const TONE_MARKS = { good: '✓', bad: '✕', warn: '!', '': '•' };

// explained is the verdicts the panel last told: it is rewritten when they
// change, not every frame.
let explained;

// showVerdicts shows each lane's verdict: its headline (a live region,
// rewritten only when its words change), its tone's mark and class, and
// its details.
export function showVerdicts() {
  for (let i = 0; i < LETTERS.length; i++) {
    const L = LETTERS[i];
    const e = $(attr('data-verdict', L));
    if (!e) continue;
    const v = lastVerdicts && lastVerdicts[i];
    const tone = v ? v.tone : '';
    const text = v ? v.headline : 'Waiting for the run to start…';
    const cls = 'verdict-text ' + tone;
    if (e.textContent !== text) e.textContent = text;
    if (e.className !== cls) e.className = cls;
    const box = $(attr('data-verdict-box', L));
    if (box && box.className !== 'verdict ' + tone) box.className = 'verdict ' + tone;
    const mark = $(attr('data-verdict-mark', L));
    if (mark) mark.textContent = v ? TONE_MARKS[tone] || TONE_MARKS[''] : '…';
    const more = $(attr('data-verdict-details', L));
    const details = v ? v.details : '';
    if (more && more.textContent !== details) more.textContent = details;
  }
  if (explained !== lastVerdicts) {
    explained = lastVerdicts;
    renderExplain();
  }
}

// ---- the explanation -------------------------------------------------------
// renderExplain shows the run's "What you are seeing" panel: each lane's
// outcome so far (its verdict and what decided it: the marks' sentences),
// the server model's story (from Go, with the run's numbers), how a
// verdict is measured, how to read the charts the run shows (their specs'
// help) and where the experiment comes from.
export function renderExplain() {
  const body = $('#explain-body');
  if (!body || !explain) return;
  const gist = $('#explain-gist');
  if (gist) gist.replaceChildren(...proseNodes(explain.gist));
  const items = [];
  for (let i = 0; i < laneCount(); i++) {
    const v = lastVerdicts && lastVerdicts[i];
    const texts = marks.marks.filter(m => m.lane === i).map(m => m.text);
    const s = lanes[i] && STRATEGIES[lanes[i].strategy];
    const said = v ? [`${v.headline}.`, v.details, ...texts] : ['The run has not started yet.'];
    const head = heads[i] || (s && s.label);
    items.push(el('li', {}, el('b', { textContent: `Lane ${LETTERS[i]}` }), head ? `, ${head}: ` : ': ', said.join(' ')));
  }
  const parts = [el('p', { textContent: 'This run so far, lane by lane (the dashed lines on the charts mark what decided it):' }), el('ul', {}, ...items)];
  parts.push(...explain.story.map(p => el('p', {}, ...proseNodes(p))));
  parts.push(el('p', {}, ...proseNodes(explain.verdicts)));
  // Only the charts the run shows: a chart that needs a lane parameter
  // (the tiers') is told when a lane in the run has it.
  const shown = SPECS.filter(k => $$(`.chart${attr('data-chart', k.id)}`).some(c => !c.closest('[hidden]') && !c.hidden));
  parts.push(el('p', { textContent: 'The charts, top to bottom (each chart\'s ? button shows it too): ' + shown.map(k => `${k.title}: ${k.help}`).join('; ') + '.' }));
  const src = explain.source;
  parts.push(el('p', {}, src.text + ' ', el('a', { href: src.url, textContent: src.link, rel: 'noopener' }), '.'));
  body.replaceChildren(...parts);
}
