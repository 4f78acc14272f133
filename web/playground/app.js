// backofflab playground: ties the page to its live simulation.
//
// One WebSocket per page (protocol: web/playground/protocol.go). The server renders the
// controls and embeds the charts' options as JSON blocks; the playground's
// scripts open the socket, draw the ticks with ECharts, and send every
// control change as the whole state in URL-query form. No framework, no
// build step, no inline code anywhere (the page's Content-Security-Policy
// forbids it, and inline style attributes with it: what the scripts style,
// they style through the CSSOM or the page's classes).
//
// The playground's scripts (page.templ loads them in this order, deferred:
// play-state.js, play-controls.js, play-socket.js, play-charts.js,
// play-draw.js, play-explain.js, play-exports.js, play-picture.js, play-library.js, then app.js, which
// starts the page) share one scope without a bundler: each is a classic
// script whose top-level declarations the scripts after it see. A script
// only calls, while it loads, what the scripts before it declared; the
// rest runs later, on the page's events, when every one is loaded.
//
// This one, the last, wires the controls and starts the page.
'use strict';

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
      freshStrategy.add(i);
      showStrategy(i, el.value);
    }
    if (SWITCHES[name]) showSwitches();
    // A lane's limiter switch: its lane shows what its strategy and
    // switches read.
    const laneSwitch = name.length > 2 && name[1] === '.' && LANE_SWITCHES.includes(name.slice(2));
    if (laneSwitch) {
      const i = LETTERS.indexOf(name[0]);
      showStrategy(i, $(attr('data-param', name[0] + '.strategy')).value);
    }
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
  $('#play').addEventListener('click', () => send({ type: lastState && lastState.playing ? 'pause' : 'resume' }));
  $('#reset').addEventListener('click', () => send({ type: 'reset' }));
  $('#outage').addEventListener('click', () => send({ type: 'outage', on: $('#outage').dataset.down !== 'true' }));
  $('#speed').addEventListener('change', e => send({ type: 'speed', speed: e.target.value }));
  $('#copy-link').addEventListener('click', () => copyLink(false));
  $('#copy-settings').addEventListener('click', () => copyLink(true));
  $('#export-csv').addEventListener('click', () => exportRows('csv', 'text/csv'));
  $('#export-json').addEventListener('click', () => exportRows('json', 'application/json'));
  window.addEventListener('pagehide', () => {
    leaving = true;
    if (ws) ws.close(1000);
  });
  window.addEventListener('pageshow', e => {
    if (e.persisted) {
      leaving = false;
      connect();
    }
  });
}

window.backofflab = {
  rows: () => rows,
  charts: () => charts,
  state: () => lastState,
  summaries: () => lastSummary,
  marks: () => marks,
  view: () => view,
  caption: i => captionOf(i),
  query: () => query,
  settings: () => settings,
};

wire();
wireDrawer();
wireLibraries();
startPicture();
showLanes(page.lanes);
connect();
