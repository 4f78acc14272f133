// backofflab playground: the page's one WebSocket (protocol:
// web/playground/protocol.go): it connects, reconnects politely, sends the controls'
// state, and takes in each message the server sends.
'use strict';

// ---- the socket ----------------------------------------------------------
let ws = null;
let leaving = false;
let busy = false;
let everConnected = false;

function setStatus(text, cls, title = '') {
  const s = $('#status');
  s.textContent = text;
  s.className = 'status ' + (cls || '');
  s.title = title;
}

function connect() {
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

function send(msg) {
  if (ws && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(msg));
}

let setTimer = 0;
function scheduleSet(delay = 150) {
  clearTimeout(setTimer);
  setTimer = setTimeout(() => sendSet(), delay);
}

// sendSet sends the whole state; the server answers params (applied),
// hello (applied with a restart) or one error per bad value.
function sendSet(n) {
  clearTimeout(setTimer);
  setTimer = 0;
  const q = buildQuery(n);
  freshStrategy.clear();
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
      lastSummary = m.lanes;
      lastVerdicts = m.verdicts;
      return markDirty();
    case 'state':
      m.outages.forEach((w, k) => outageWins.set(m.outages_from + k, w));
      while (outageWins.size > maxOutages) outageWins.delete(outageWins.keys().next().value);
      lastState = { ...m, outages: [...outageWins.values()] };
      $('#note').textContent = m.note || '';
      // A finished run offers to run again (so does any change to it).
      $('#play').textContent = m.done ? 'Run again' : m.playing ? 'Pause' : 'Play';
      $('#play').title = m.done ? 'run again from t = 0 (any change reruns it too)' : m.playing ? 'pause the simulation' : 'resume the simulation';
      ensureOption($('#speed'), m.speed);
      $('#speed').value = m.speed;
      return markDirty();
    case 'delays':
      delays[m.lane] = m;
      return drawDelays();
    case 'marks':
      marks = m;
      renderExplain();
      return markDirty();
    case 'params':
      query = m.query;
      settings = m.settings;
      boxes = m.boxes;
      plan = m.plan;
      explain = m.explain;
      captions = m.captions;
      heads = m.heads;
      picture = m.picture;
      clearErrors();
      applyQuery(settings);
      showHeads();
      updateURL();
      renderExplain();
      return markDirty();
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
  query = m.query;
  settings = m.settings;
  boxes = m.boxes;
  maxOutages = m.max_outages;
  faultKinds = Object.fromEntries(m.fault_kinds.map(k => [k.name, k]));
  plan = m.plan;
  explain = m.explain;
  captions = m.captions;
  heads = m.heads;
  picture = m.picture;
  outageWins.clear();
  duration = m.duration;
  tickLen = m.tick;
  lanes = m.lanes;
  LETTERS.split('').forEach((L, i) => {
    const e = $(attr('data-lane-source', L));
    const l = lanes[i];
    if (e) e.textContent = l && l.source === 'real' ? ' · real HTTP' + (l.addr ? ' on ' + l.addr : '') : '';
  });
  rows = [];
  srows = [];
  lastSummary = null;
  lastVerdicts = null;
  delays = [];
  marks = { marks: [], levels: [] };
  maxes = lanes.map(() => ({}));
  seen = lanes.map(() => ({}));
  showLanes(lanes.length);
  forCharts((c, id) => {
    const spec = SPEC[id];
    if (spec.x === 'retry') c.setOption({ xAxis: [{ data: [] }], series: spec.series.map(s => ({ id: s.name, data: [] })) });
    else c.setOption({ xAxis: [timeAxis(c)] });
  });
  applyQuery(settings);
  showHeads();
  updateURL();
  renderExplain();
  markDirty();
}
