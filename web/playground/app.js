// backofflab playground: ties the page to its live simulation.
//
// One WebSocket per page (protocol: web/playground/protocol.go). The server renders the
// controls and embeds the charts' options as JSON blocks; the playground's
// scripts open the socket, draw the ticks with ECharts, and send every
// control change as the whole scenario in URL-query form. No framework, no
// build step, no inline code anywhere (the page's Content-Security-Policy
// forbids it, and inline style attributes with it: what the scripts style,
// they style through the CSSOM or the page's classes).
//
// The playground's scripts are ES modules (page.templ loads them as such),
// each importing what it uses from the others and from common.js; the
// state they share is play-state.js's, which alone changes it. This one,
// which imports the others and which none imports, wires the controls and
// starts the page.

import { $, attr, onThemeChange } from './common.js';
import { COL, LETTERS, NC, SPEC, TIME_CHARTS, boxes, laneCount, lastState, lastSummary, marks, page, query, requests, rows, settings } from './play-state.js';
import { hasError, setControl, showStrategy, speak, strategyChanged, textAt, wireDrawer } from './play-controls.js';
import { comeBack, connect, leave, scheduleSet, send, sendSet, setTimer } from './play-socket.js';
import { charts, forCharts, showLanes, themed, view } from './play-charts.js';
import { axisMax, drawDelays, markDirty } from './play-draw.js';
import { captionOf, copyLink, exportRows, requestsCSV } from './play-exports.js';
import { picDrawAll, picSentence, picStats, pictureProgress, startPicture } from './play-picture.js';
import { wireLibraries } from './play-library.js';

// ---- wiring ----------------------------------------------------------------
function wire() {
  const form = $('#controls');
  form.addEventListener('submit', e => {
    e.preventDefault();
    sendSet();
  });
  form.addEventListener('input', e => {
    const el = e.target;
    if (el.dataset.sliderFor) {
      const box = $(attr('data-param', el.dataset.sliderFor));
      box.value = textAt(el.dataset.sliderFor, Number(el.value));
      speak(el, box.value);
      scheduleSet();
    } else if (el.dataset.param && el.type === 'text') {
      scheduleSet(); // its slider follows the server's answer (params)
    }
  });
  form.addEventListener('change', e => {
    const el = e.target;
    const name = el.dataset.param;
    if (!name || el.type === 'text') return;
    if (name.endsWith('.strategy')) {
      const i = LETTERS.indexOf(name[0]);
      strategyChanged(i);
      showStrategy(i, el.value);
    }
    // Which controls the change shows and hides is the server's answer
    // to the set below (its rules).
    // A real lane runs in real time: the speed menu shows it.
    if (name.endsWith('.source') && el.value === 'real') setControl($('#speed'), '1');
    sendSet();
  });
  form.addEventListener('keydown', e => {
    if (e.key === 'Enter' && e.target.type === 'text') {
      e.preventDefault();
      sendSet();
    }
  });
  // A box left with a value the server rewrote shows the canonical one.
  form.addEventListener('focusout', e => {
    const el = e.target;
    if (el.type === 'text' && el.dataset.param && !setTimer && !hasError(el.dataset.param)) {
      const b = boxes[el.dataset.param];
      if (b) el.value = b.text;
    }
  });
  $('#lane-add').addEventListener('click', () => sendSet(Math.min(LETTERS.length, laneCount() + 1)));
  $('#lane-remove').addEventListener('click', () => sendSet(Math.max(1, laneCount() - 1)));
  $('#play').addEventListener('click', () => send({ type: lastState && lastState.playing ? 'pause' : 'play' }));
  $('#reset').addEventListener('click', () => send({ type: 'reset' }));
  $('#outage').addEventListener('click', () => send({ type: 'outage', on: $('#outage').dataset.down !== 'true' }));
  $('#speed').addEventListener('change', e => send({ type: 'speed', speed: e.target.value }));
  $('#copy-link').addEventListener('click', () => copyLink(false));
  $('#copy-settings').addEventListener('click', () => copyLink(true));
  $('#export-csv').addEventListener('click', () => exportRows('csv', 'text/csv'));
  $('#export-json').addEventListener('click', () => exportRows('json', 'application/json'));
  window.addEventListener('pagehide', leave);
  window.addEventListener('pageshow', e => {
    if (e.persisted) comeBack();
  });
  // The charts take the theme's colours after play-state.js has read them.
  onThemeChange(() => {
    forCharts((c, id) => c.setOption(themed(id)));
    markDirty();
    drawDelays();
  });
}

// The page's one hook for its browser tests (web/*browser*_test.go): what
// they read of the page and the functions they call, in one deliberate
// object rather than as globals.
window.backofflab = {
  rows: () => rows,
  charts: () => charts,
  state: () => lastState,
  summaries: () => lastSummary,
  requests: () => requests,
  requestsCSV,
  marks: () => marks,
  view: () => view,
  caption: i => captionOf(i),
  query: () => query,
  settings: () => settings,
  page, SPEC, TIME_CHARTS, LETTERS, NC, COL, laneCount, axisMax,
  picStats, picSentence, picDrawAll, picture: pictureProgress,
};

wire();
wireDrawer();
wireLibraries();
startPicture();
showLanes(page.lanes);
connect();
