// backofflab playground: the page's one WebSocket (protocol:
// web/playground/protocol.go): it connects, reconnects politely, sends the controls'
// scenario, and takes in each message the server sends.

import { $, attr } from './common.js';
import { LETTERS, SPEC, lanes, query, settings, takeDelays, takeHello, takeMarks, takeParams, takeRequests, takeRules, takeState, takeSummary } from './play-state.js';
import { applyQuery, buildQuery, clearErrors, ensureOption, showError, showHeads, showHidden, strategiesSent, updateURL } from './play-controls.js';
import { forCharts, showLanes, timeAxis } from './play-charts.js';
import { addRows, drawDelays, drawRequests, markDirty, restartDrawing } from './play-draw.js';
import { renderExplain } from './play-explain.js';

// ---- the socket ----------------------------------------------------------
let ws = null;
let leaving = false; // the page is going away (pagehide): no reconnecting
let busy = false;
let everConnected = false;

function setStatus(text, cls, title = '') {
  const s = $('#status');
  s.textContent = text;
  s.className = 'status ' + (cls || '');
  s.title = title;
}

export function connect() {
  if (leaving) return;
  const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
  // A reconnect starts from what the controls show, changes made while
  // disconnected included.
  const q = everConnected ? buildQuery() : query;
  const sock = new WebSocket(`${proto}//${location.host}/ws?${q}`);
  ws = sock;
  busy = false;
  setStatus('connecting…');
  sock.onopen = () => {
    everConnected = true;
    setStatus('connected', 'ok');
  };
  sock.onmessage = e => onMessage(JSON.parse(e.data));
  sock.onclose = e => {
    if (ws !== sock || leaving) return;
    ws = null;
    // Retry politely: soon after a drop, later when the server is full.
    busy = busy || e.code === 1013;
    const wait = busy ? 10000 : 2000;
    setStatus(busy ? 'server busy' : 'disconnected', 'bad', `retrying in ${wait / 1000} s`);
    setTimeout(connect, wait);
  };
}

// leave closes the socket for good as the page goes away, and comeBack
// connects again when the page is shown from the back-forward cache.
export function leave() {
  leaving = true;
  if (ws) ws.close(1000);
}

export function comeBack() {
  leaving = false;
  connect();
}

export function send(msg) {
  if (ws && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(msg));
}

export let setTimer = 0;
export function scheduleSet(delay = 150) {
  clearTimeout(setTimer);
  setTimer = setTimeout(() => sendSet(), delay);
}

// sendSet sends the whole scenario; the server answers params (applied),
// hello (applied with a restart) or one error per bad value.
export function sendSet(n) {
  clearTimeout(setTimer);
  setTimer = 0;
  const q = buildQuery(n);
  strategiesSent();
  clearErrors(); // the answer names every value still bad
  send({ type: 'set', query: q });
}

function onMessage(m) {
  switch (m.type) {
    case 'hello':
      return onHello(m);
    case 'tick':
      return addRows(m.ticks);
    case 'summary':
      takeSummary(m);
      return markDirty();
    case 'state':
      takeState(m);
      $('#note').textContent = m.note || '';
      // A finished run offers to run again (so does any change to it).
      $('#play').textContent = m.done ? 'Run again' : m.playing ? 'Pause' : 'Play';
      $('#play').title = m.done ? 'run again from t = 0 (any change reruns it too)' : m.playing ? 'pause the playback' : 'play the run on from here';
      ensureOption($('#speed'), m.speed);
      $('#speed').value = m.speed;
      return markDirty();
    case 'delays':
      takeDelays(m);
      return drawDelays();
    case 'requests':
      takeRequests(m);
      return drawRequests();
    case 'marks':
      takeMarks(m);
      renderExplain();
      return markDirty();
    case 'params':
      takeParams(m);
      clearErrors();
      applyQuery(settings);
      showHeads();
      updateURL();
      renderExplain();
      return markDirty();
    case 'rules':
      takeRules(m);
      return showHidden();
    case 'error':
      // A busy server refuses the session (no parameter); a real lane
      // refused for want of a slot names the lane's source instead.
      if (!m.param && /^server busy/.test(m.message)) {
        busy = true;
        setStatus('server busy', 'bad');
      }
      return showError(m.param || '', m.message);
  }
}

function onHello(m) {
  takeHello(m);
  LETTERS.split('').forEach((L, i) => {
    const e = $(attr('data-lane-source', L));
    const l = lanes[i];
    if (e) e.textContent = l && l.source === 'real' ? ' · real HTTP' + (l.addr ? ' on ' + l.addr : '') : '';
  });
  restartDrawing(lanes.length);
  showLanes(lanes.length);
  forCharts((c, id) => {
    const spec = SPEC[id];
    // Laid out with the first rows' frame (markDirty), not once per chart here.
    if (spec.x === 'retry') c.setOption({ xAxis: [{ data: [] }], series: spec.series.map(s => ({ id: s.name, data: [] })) }, { lazyUpdate: true });
    else if (spec.x === 'time') c.setOption({ xAxis: [timeAxis(c)] }, { lazyUpdate: true });
  });
  drawRequests();
  applyQuery(settings);
  showHeads();
  updateURL();
  renderExplain();
  markDirty();
}
