// backofflab playground: ties the page to its live simulation.
//
// One WebSocket per page (protocol: web/protocol.go). The server renders the
// controls and embeds the charts' options as JSON blocks; this script opens
// the socket, draws the ticks with ECharts, and sends every control change
// as the whole state in URL-query form. No framework, no build step, no
// inline code anywhere (the page's Content-Security-Policy forbids it, and
// inline style attributes with it: what the script styles, it styles through
// the CSSOM or the page's classes).
'use strict';

(() => {
  const { $, $$, readJSON, attr, el, fmt, dur, durAxis, unitOf, halfWindow, meanAround, theme, onThemeChange, download, exportChart } = window.backofflabKit;

  const page = readJSON('page-state');
  const COLS = page.columns;
  const NC = COLS.length;
  const COL = Object.fromEntries(COLS.map((c, i) => [c, i]));
  const LETTERS = page.laneNames;
  const KEEP = new Set(page.keep);
  // The charts' specs (chartSpecs in web/charts.go): the script draws what
  // they say and names no chart itself. A time chart plots columns of the
  // tick rows; a retry chart plots a lane's bands. Each series carries its
  // label in words (from Go: the script keeps no copy).
  const SPECS = page.charts;
  const SPEC = Object.fromEntries(SPECS.map(k => [k.id, k]));
  const CHART_IDS = SPECS.map(k => k.id);
  const TIME_CHARTS = CHART_IDS.filter(k => SPEC[k].x === 'time');
  const RETRY_CHARTS = CHART_IDS.filter(k => SPEC[k].x === 'retry');
  const BASE = Object.fromEntries(CHART_IDS.map(k => [k, readJSON('chart-' + k)]));
  // LABEL[id][series name] is a series' label and its vocabulary name, as
  // the legend and the tooltip show them; the option's series follow the
  // spec's in order.
  const LABEL = Object.fromEntries(CHART_IDS.map(id => [id, Object.fromEntries(BASE[id].series.map((s, j) => {
    const sp = SPEC[id].series[j];
    return [s.name, { label: sp.label, name: SPEC[id].x === 'time' ? sp.name : '', unit: SPEC[id].units[sp.axis], color: sp.color }];
  }))]));
  const STRATEGIES = Object.fromEntries(page.strategies.map(s => [s.name, s]));
  // SWITCHES[param][value] lists the parameters that value shows and hides;
  // LANE_SWITCHES are the switches each lane has its own of (the limiters').
  const SWITCHES = Object.fromEntries(page.switches.map(s => [s.param, Object.fromEntries(s.choices.map(c => [c.value, c]))]));
  const LANE_SWITCHES = page.switches.filter(s => s.lane).map(s => s.param);
  // A duration box's bare decimal is seconds, the box's unit: the page adds
  // the unit and leaves the parsing to the server.
  const SECONDS_RE = /^[+-]?(\d+\.?\d*|\.\d+)$/;
  const ICON_PNG = 'path://M3,4H21V20H3Z M3,16L9,10L14,15L17,12L21,16';
  const ICON_SVG = 'path://M5,2H14L20,8V22H5Z M14,2V8H20 M8,13H17 M8,17H17';
  const ICON_LOG = 'path://M2,21H22 M3,21V3 M4,19C7,8 12,5 21,4';
  const ICON_SHARE = 'path://M2,4H10V20H2Z M14,4H22V20H14Z M1,8H23';
  const ICON_SMOOTH = 'path://M2,14L5,6L8,18L11,8L14,16 M2,20C8,10 14,10 22,12';
  const ICON_HELP = 'path://M12,2A10,10,0,1,0,12.01,2Z M9,9C9,6 15,6 15,9C15,12 12,11 12,14 M12,17V19';

  // ---- what the page knows about the run ----------------------------------
  let query = page.query; // the canonical query in effect (from hello/params)
  let duration = page.duration;
  let tickLen = 0.1; // seconds a tick row spans (hello)
  let lanes = []; // [{name, strategy}] from hello
  // Each number box's text and slider position for the query in effect,
  // as the server computes them (hello/params boxes).
  let boxes = {};
  let rows = []; // every tick row received since hello
  let lastState = null; // the latest state, with every outage window the page keeps
  let lastSummary = null;
  let lastVerdicts = null; // each lane's verdict in words and its tone, as the server puts them
  // The outage windows, by their index since the run's start: a state
  // message carries only those that changed; the latest maxOutages are kept.
  const outageWins = new Map();
  let maxOutages = 100;
  let faultKinds = {}; // by name: whether it takes the server down, its colour (hello.fault_kinds)
  let plan = []; // the scheduled faults, {at, end, kind} (hello and params)
  let bands = [];
  // The moments that decide each lane's outcome and the levels its
  // verdict is judged by (the marks message, web/marks.go).
  let marks = { marks: [], levels: [] };
  let explain = null; // the run's "What you are seeing" panel (hello, params)
  let captions = []; // what an exported chart of each lane shows, from the server (hello, params)
  const charts = {}; // "chart.letter" → ECharts instance
  // Each chart row's options, set from its toolbox: a log scale, y axes
  // shared by the lanes (else each lane's own, so that a storm's scale
  // does not flatten a recovering lane), 1 s smoothing, the help shown.
  const view = Object.fromEntries(CHART_IDS.map(k => [k, { log: false, shared: false, smooth: !!SPEC[k].smooth, help: false }]));
  const laneCount = () => lanes.length || page.lanes;

  // The durations and counts an axis may step by, so that its labels read
  // well: 15 min, not 900 s; 1 h, not 4,000 s.
  const DUR_STEPS = [0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200];
  function niceSteps(v) {
    const e = 10 ** Math.floor(Math.log10(v));
    return [1, 2, 2.5, 5, 10].map(m => m * e);
  }

  // niceAxis returns a y axis' maximum and step for values up to v, with
  // headroom (a line at the maximum would hide in the frame), null to let
  // ECharts choose; on a log axis, the next power of ten.
  function niceAxis(v, unit, log) {
    if (!(v > 0)) return { max: null, interval: null };
    if (log) return { max: 10 ** Math.ceil(Math.log10(v * 1.05)), interval: null };
    const top = v * 1.05;
    const steps = unit === 's' ? DUR_STEPS : niceSteps(top / 5).concat(niceSteps(top / 5).map(s => s * 10));
    const step = steps.find(s => top / s <= 5) || steps[steps.length - 1];
    return { max: Math.ceil(top / step) * step, interval: step };
  }

  // timeAxis is the x axis of the time charts: the run's duration, in
  // steps that read as durations.
  function timeAxis() {
    const step = DUR_STEPS.find(s => duration / s <= 6) || DUR_STEPS[DUR_STEPS.length - 1];
    return { max: duration, interval: step, axisLabel: { hideOverlap: true, formatter: v => durAxis(v, duration) } };
  }

  // ---- the theme: the charts' colours, read from the page's CSS (common.js)
  let T = theme();
  onThemeChange(() => {
    T = theme();
    forCharts((c, id) => c.setOption(themed(id)));
    markDirty();
    drawBands();
  });

  // ---- sliders ---------------------------------------------------------------
  // A slider's scale is defined once, in Go (sliderValue in web/view.go):
  // the page gets each slider's box text at every position (page.scales),
  // and each box's position from the server (boxes).
  const sliderOf = box => $(attr('data-slider-for', box.dataset.param));
  const textAt = (name, pos) => page.scales[page.sliders[name]][pos];
  // A slider says its box's value and unit in words (aria-valuetext, as
  // valueText in web/view.go writes it), not its position.
  function speak(slider, text) {
    const unit = text === '1' ? slider.dataset.unitOne : slider.dataset.unitMany;
    slider.setAttribute('aria-valuetext', unit ? `${text} ${unit}` : text);
  }

  // ---- controls ⇄ query ----------------------------------------------------
  function paramValue(el) {
    if (el.type === 'checkbox') return el.checked ? 'true' : 'false';
    const v = el.value.trim();
    // Duration boxes show seconds; any Go duration typed in ("2m") goes as is.
    if (el.dataset.type === 'duration' && SECONDS_RE.test(v)) return v + 's';
    return v;
  }

  // Lanes whose strategy just changed: their strategy parameters (except
  // KEEP) stay out of the next query, so that the server fills the new
  // strategy's defaults.
  const freshStrategy = new Set();

  // buildQuery writes the whole state the controls show, for n lanes. A
  // lane being added is left out: the server gives it its defaults.
  function buildQuery(n = laneCount()) {
    const q = new URLSearchParams();
    for (const el of $$('[data-param]')) {
      const name = el.dataset.param;
      if (name === 'lanes') {
        q.set(name, String(n));
        continue;
      }
      if (name[1] === '.') {
        const i = LETTERS.indexOf(name[0]);
        const base = name.slice(2);
        if (i >= Math.min(n, laneCount())) continue;
        if (freshStrategy.has(i) && base !== 'strategy' && !KEEP.has(base)) continue;
      }
      q.set(name, paramValue(el));
    }
    return q.toString();
  }

  function ensureOption(select, value) {
    if (![...select.options].some(o => o.value === value)) {
      select.add(new Option(value === 'max' ? 'max' : value + '×', value));
    }
  }

  function setControl(el, v) {
    if (el.type === 'checkbox') el.checked = v === 'true';
    else if (el.tagName === 'SELECT') {
      ensureOption(el, v);
      el.value = v;
    } else {
      el.value = v;
    }
  }

  // setBox shows what the server says of a number box; the box being typed
  // in keeps its text, and its slider follows.
  function setBox(el, b) {
    if (el !== document.activeElement) el.value = b.text;
    const slider = sliderOf(el);
    if (slider) {
      slider.value = b.pos;
      speak(slider, b.text);
    }
  }

  // seconds reads a duration box's canonical text (plain seconds).
  const seconds = name => (boxes[name] ? Number(boxes[name].text) : 0);

  // applyQuery sets every control from a canonical query. It leaves alone
  // the box being typed in and any control showing an error, so that a bad
  // value stays visible beside its message.
  function applyQuery(q) {
    const p = new URLSearchParams(q);
    for (const el of $$('[data-param]')) {
      const name = el.dataset.param;
      // A lane's source is in the query only when it is real.
      const v = p.has(name) ? p.get(name) : name.endsWith('.source') ? 'sim' : null;
      if (v == null || hasError(name)) continue;
      if (el.type === 'text' && boxes[name]) setBox(el, boxes[name]);
      else if (el !== document.activeElement || el.type !== 'text') setControl(el, v);
    }
    for (let i = 0; i < LETTERS.length; i++) {
      const s = p.get(LETTERS[i] + '.strategy');
      if (s) showStrategy(i, s);
    }
    showSwitches();
    showLaneCharts(p);
    const d = seconds('duration');
    if (d > 0 && d !== duration) {
      duration = d;
      forCharts((c, id) => SPEC[id].x === 'time' && c.setOption({ xAxis: [timeAxis()] }));
    }
  }

  // showStrategy shows the lane parameters that strategy uses.
  function showStrategy(i, strategy) {
    const L = LETTERS[i];
    const info = STRATEGIES[strategy];
    if (!info) return;
    const uses = new Set(info.uses);
    // A limiter's parameters show only while its switch is on.
    const off = new Set();
    for (const sw of LANE_SWITCHES) {
      const el = $(attr('data-param', L + '.' + sw));
      const c = el && SWITCHES[sw][el.value];
      if (c) c.hide.forEach(n => off.add(n));
    }
    for (const ctl of $$(`${attr('data-lane-panel', L)} .ctl[data-ctl]`)) {
      const base = ctl.dataset.ctl.slice(2);
      if (base !== 'strategy' && base !== 'source') ctl.hidden = !uses.has(base) || off.has(base);
    }
    const about = $(attr('data-about-for', L));
    if (about) about.textContent = info.about;
    const head = $(attr('data-lane-strategy', L));
    if (head) head.textContent = info.title;
  }

  // showLaneCharts shows each chart that needs a lane parameter (its
  // spec's only_with, the tiers' chart) for the lanes that set it, and
  // hides it for the others.
  function showLaneCharts(p) {
    for (const spec of SPECS) {
      if (!spec.only_with) continue;
      for (let i = 0; i < LETTERS.length; i++) {
        const el = $(`.chart${attr('data-chart', spec.id)}${attr('data-lane', LETTERS[i])}`);
        if (!el) continue;
        el.hidden = !p.get(LETTERS[i] + '.' + spec.only_with);
        if (!el.hidden && i < laneCount()) ensureChart(spec.id, i);
      }
    }
  }

  // showSwitches shows each shared parameter that some switch (a server
  // model, an arrival, queue_control) owns unless one switch's value hides
  // it: the server's lists say what each value shows and hides.
  function showSwitches() {
    const shared = page.switches.filter(s => !s.lane);
    const touched = new Set(), hidden = new Set();
    for (const sw of shared) {
      const el = $(attr('data-param', sw.param));
      for (const c of sw.choices) c.hide.forEach(n => touched.add(n));
      const cur = el && SWITCHES[sw.param][el.value];
      if (cur) cur.hide.forEach(n => hidden.add(n));
    }
    for (const name of touched) {
      const ctl = $(attr('data-ctl', name));
      if (ctl) ctl.hidden = hidden.has(name);
    }
  }

  function updateURL() {
    history.replaceState(null, '', '?' + query);
    $('#headless-csv').href = '/export.csv?' + query;
    $('#headless-json').href = '/export.json?' + query;
    presetSpeed();
    seedsLink();
  }

  // seedsLink points the "Run K seeds" link at the seed bands view of the
  // run in effect, with the seeds its box asks for (the view names a bad
  // value).
  // The header's links to the other views follow the run in effect too:
  // the phase map over this scenario, its seed bands.
  function seedsLink() {
    $('#view-map').href = '/map?' + query;
    const box = $('#seeds'), a = $('#run-seeds');
    if (!box || !a) return;
    const u = new URL('/bands?' + query, location.href);
    u.searchParams.set(box.name, box.value);
    a.href = u.pathname + u.search;
    a.textContent = `Run ${box.value} seeds`;
    $('#view-bands').href = a.href;
  }
  if ($('#seeds')) $('#seeds').addEventListener('input', seedsLink);

  // presetSpeed points every preset link at the speed in use, so that a
  // preset changes the run and not how fast it plays. A preset with a real
  // lane keeps its own speed (real time).
  function presetSpeed() {
    const speed = new URLSearchParams(query).get('speed');
    if (!speed) return;
    for (const a of $$('a[data-preset]')) {
      const q = new URLSearchParams(a.search);
      if ([...q.keys()].some(k => k.endsWith('.source') && q.get(k) === 'real')) continue;
      q.set('speed', speed);
      a.setAttribute('href', '?' + q.toString()); // a query, as the server wrote it
    }
  }

  // ---- error messages --------------------------------------------------------
  const general = $('#errors');
  const slotFor = name => (name ? $(attr('data-error-for', name)) : null);
  const hasError = name => {
    const s = slotFor(name);
    return !!s && s.textContent.trim() !== '';
  };

  function showError(param, message) {
    const slot = slotFor(param);
    if (slot && !slot.closest('[hidden]')) {
      slot.textContent = message;
      const details = slot.closest('details');
      if (details) details.open = true;
      const ctl = slot.closest('.ctl');
      if (ctl) ctl.classList.add('bad');
      const box = $(attr('data-param', param));
      if (box) box.setAttribute('aria-invalid', 'true');
      return;
    }
    // No visible control (an unknown name, a hidden lane, a message about
    // the request): the general area shows it.
    if ([...general.children].some(p => p.textContent === message)) return;
    const p = document.createElement('p');
    p.textContent = message;
    general.append(p);
  }

  function clearErrors() {
    for (const slot of $$('[data-error-for]')) if (slot !== general) slot.textContent = '';
    general.replaceChildren();
    for (const c of $$('.ctl.bad')) c.classList.remove('bad');
    for (const b of $$('[aria-invalid]')) b.removeAttribute('aria-invalid');
  }

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
      case 'bands':
        bands[m.lane] = m;
        return drawBands();
      case 'marks':
        marks = m;
        renderExplain();
        return markDirty();
      case 'params':
        query = m.query;
        boxes = m.boxes;
        plan = m.plan;
        explain = m.explain;
        captions = m.captions;
        clearErrors();
        applyQuery(query);
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
    boxes = m.boxes;
    maxOutages = m.max_outages;
    faultKinds = Object.fromEntries(m.fault_kinds.map(k => [k.name, k]));
    plan = m.plan;
    explain = m.explain;
    captions = m.captions;
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
    bands = [];
    marks = { marks: [], levels: [] };
    maxes = lanes.map(() => ({}));
    seen = lanes.map(() => ({}));
    showLanes(lanes.length);
    forCharts((c, id) => {
      const spec = SPEC[id];
      if (spec.x === 'retry') c.setOption({ xAxis: [{ data: [] }], series: spec.series.map(s => ({ id: s.name, data: [] })) });
      else c.setOption({ xAxis: [timeAxis()] });
    });
    applyQuery(query);
    updateURL();
    renderExplain();
    markDirty();
  }

  // ---- lanes and charts ----------------------------------------------------
  const resizer = new ResizeObserver(entries => {
    for (const e of entries) {
      const c = echarts.getInstanceByDom(e.target);
      if (c) c.resize();
    }
  });

  function forCharts(fn) {
    for (const [key, c] of Object.entries(charts)) {
      const [id, L] = key.split('.');
      if (LETTERS.indexOf(L) < laneCount()) fn(c, id, LETTERS.indexOf(L));
    }
  }

  function showLanes(n) {
    $$('[data-lane-col]').forEach((el, i) => (el.hidden = i >= n));
    $$('[data-lane-panel]').forEach((el, i) => (el.hidden = i >= n));
    $$('[data-lane-skip]').forEach((el, i) => (el.hidden = i >= n));
    $('#lane-count').textContent = n;
    $('[data-param="lanes"]').value = n;
    $('#lane-add').disabled = n >= LETTERS.length;
    $('#lane-remove').disabled = n <= 1;
    // Charts are made when their lane first shows: ECharts needs a size.
    for (let i = 0; i < n; i++) for (const id of CHART_IDS) ensureChart(id, i);
  }

  // themed is the part of a chart's option that the theme colours.
  function themed(id) {
    const axis = { axisLabel: { color: T.muted }, axisLine: { lineStyle: { color: T.line } }, splitLine: { lineStyle: { color: T.line } } };
    return {
      backgroundColor: T.card, // the PNG and SVG exports keep the scheme
      title: [{ textStyle: { color: T.fg } }],
      legend: [{ textStyle: { color: T.fg, rich: { l: { color: T.fg, fontSize: 11 }, n: { color: T.muted, fontSize: 10, fontFamily: 'monospace' } } } }],
      xAxis: [axis],
      toolbox: [{ iconStyle: { borderColor: T.muted } }],
      tooltip: [{ backgroundColor: T.card, borderColor: T.line, textStyle: { color: T.fg } }],
    };
  }

  // The toolbox's buttons: each acts on its chart's row, every lane alike.
  function toolbox(id, i, c) {
    const spec = SPEC[id];
    const f = {
      myPng: { show: true, title: 'PNG', icon: ICON_PNG, onclick: () => exportImage(c, id, i, 'png') },
      mySvg: { show: true, title: 'SVG', icon: ICON_SVG, onclick: () => exportImage(c, id, i, 'svg') },
    };
    if (spec.log) f.myLog = { show: true, icon: ICON_LOG, onclick: () => toggle(id, 'log') };
    f.myShare = { show: true, icon: ICON_SHARE, onclick: () => toggle(id, 'shared') };
    if (spec.smooth) f.mySmooth = { show: true, icon: ICON_SMOOTH, onclick: () => toggle(id, 'smooth') };
    f.myHelp = { show: true, icon: ICON_HELP, onclick: () => toggle(id, 'help') };
    for (const [k, v] of Object.entries(toolboxState(id))) Object.assign(f[k], v);
    return f;
  }

  // toolboxState is what the toggles say: the action each offers, and a
  // highlighted icon while its option is on.
  function toolboxState(id) {
    const v = view[id];
    const on = b => ({ iconStyle: { borderColor: b ? T.accent : T.muted, borderWidth: b ? 1.6 : 1 } });
    const s = {
      myShare: { title: v.shared ? 'give each lane its own y axis' : 'one y axis for every lane', ...on(v.shared) },
      myHelp: { title: v.help ? 'hide what this chart shows' : 'what this chart shows', ...on(v.help) },
    };
    if (SPEC[id].log) s.myLog = { title: v.log ? 'linear scale' : 'log scale', ...on(v.log) };
    if (SPEC[id].smooth) s.mySmooth = { title: v.smooth ? 'every tick (no averaging)' : '1 s average', ...on(v.smooth) };
    return s;
  }

  function toggle(id, what) {
    view[id][what] = !view[id][what];
    forCharts((c, k, i) => {
      if (k !== id) return;
      const o = { toolbox: [{ feature: toolboxState(id) }], graphic: helpGraphic(id, c) };
      if (what === 'smooth') Object.assign(o, sourceOf(id, i));
      c.setOption(o);
    });
    if (SPEC[id].x === 'retry') drawBands();
    else markDirty();
  }

  // sourceOf is where a time chart's series read their values: the tick
  // rows, or their 1 s averages (srows), column by column.
  function sourceOf(id, i) {
    const sm = view[id].smooth;
    return {
      dataset: { source: sm ? srows : rows },
      series: SPEC[id].series.map(s => ({ id: s.name, encode: { x: 0, y: sm ? 1 + i * SMN + SMI[COL[s.name]] : 1 + i * NC + COL[s.name] } })),
    };
  }

  // helpGraphic shows (or hides) the chart's description over it.
  function helpGraphic(id, c) {
    const w = c ? c.getWidth() : 300;
    return [{ id: 'help', type: 'text', left: 12, top: 28, z: 100, invisible: !view[id].help, silent: true,
      style: { text: SPEC[id].help, width: Math.max(120, w - 40), overflow: 'break', fill: T.fg, font: '12px sans-serif',
        backgroundColor: T.card, borderColor: T.line, borderWidth: 1, borderRadius: 6, padding: [6, 8], lineHeight: 16 } }];
  }

  function ensureChart(id, i) {
    const L = LETTERS[i];
    const key = `${id}.${L}`;
    if (charts[key]) return charts[key];
    const dom = $(`.chart${attr('data-chart', id)}${attr('data-lane', L)}`);
    if (dom.hidden) return null; // a chart the lane leaves out: ECharts needs a size
    const c = echarts.init(dom);
    const opt = structuredClone(BASE[id]);
    const spec = SPEC[id];
    if (dom.clientWidth < 320) {
      // A phone's narrow chart has no room for its title beside the
      // toolbox: the title goes below it, and the plot below the title.
      const first = v => (Array.isArray(v) ? v[0] : v);
      first(opt.title).top = 20;
      first(opt.grid).top = 48;
    }
    // Custom toolbox features need functions, which the JSON from the
    // server cannot carry.
    Object.assign(opt.toolbox, { itemSize: 13, itemGap: 7, feature: toolbox(id, i, c) });
    if (spec.x === 'retry') {
      for (const s of opt.series) s.data = [];
    } else {
      // The time charts read the tick rows themselves, as a dataset: each
      // series picks its lane's column, so no point is copied.
      const src = sourceOf(id, i);
      opt.dataset = src.dataset;
      opt.series.forEach((s, j) => {
        delete s.data;
        s.encode = src.series[j].encode;
        if (!spec.gaps) s.sampling = 'lttb';
      });
      Object.assign(opt.xAxis[0], timeAxis());
      // The first series carries the fault windows and the annotations.
      Object.assign(opt.series[0], {
        markLine: { symbol: ['none', 'none'], silent: true, animation: false, data: [] },
      });
    }
    // The legend names each line in words; its vocabulary name shows
    // beside it on hover, as in the tooltip (a quarter of the page holds
    // four labels, not four labels and four names).
    Object.assign(opt.legend, {
      itemGap: 8, itemWidth: 10,
      formatter: name => (LABEL[id][name] ? LABEL[id][name].label : name),
      tooltip: { show: true, formatter: p => (LABEL[id][p.name] && LABEL[id][p.name].name ? `${LABEL[id][p.name].label}: ${LABEL[id][p.name].name}` : p.name) },
    });
    opt.yAxis.forEach((a, k) => (a.axisLabel.formatter = v => unitOf(spec.units[k]).axis(v)));
    // Tooltips are DOM nodes: the default one is HTML with inline styles,
    // which the page's Content-Security-Policy blocks.
    Object.assign(opt.tooltip, { confine: true, className: 'chart-tip', formatter: ps => tooltip(id, i, ps) });
    opt.graphic = [{ id: 'empty', type: 'text', left: 'center', top: 'middle', invisible: true, silent: true,
      style: { text: spec.empty, fill: T.muted, font: '12px sans-serif' } }].concat(helpGraphic(id, null));
    c.setOption(opt);
    c.setOption(themed(id));
    c.setOption({ graphic: helpGraphic(id, c) });
    charts[key] = c;
    resizer.observe(dom);
    if (spec.x === 'retry') drawBands();
    else markDirty();
    return c;
  }

  // tooltip builds a tooltip's nodes: the time (or the retry), then each
  // line with its colour, its label and name, and its value with its unit.
  function tooltip(id, i, ps) {
    if (!ps || !ps.length) return '';
    const spec = SPEC[id];
    const box = el('div', { className: 'tip' });
    box.dataset.tip = `${id}.${LETTERS[i]}`;
    const line = (color, label, name, value) => {
      const sw = el('span', { className: 'tip-swatch' });
      sw.dataset.swatch = color;
      Object.assign(sw.style, { display: 'inline-block', width: '9px', height: '9px', borderRadius: '50%', marginRight: '6px', background: color });
      const row = el('div', { className: 'tip-row' }, sw, label);
      if (name) row.append(' ', el('code', { textContent: name }));
      row.append(': ', el('b', { textContent: value }));
      return row;
    };
    if (spec.x === 'retry') {
      const b = bands[i];
      const j = ps[0].dataIndex;
      if (!b || j < 0 || j >= b.retry.length) return '';
      const s = v => dur(v, 3);
      box.append(el('div', { className: 'tip-head', textContent: `lane ${LETTERS[i]} · retry #${b.retry[j]}` }),
        line(spec.series[2].color, LABEL[id][BASE[id].series[2].name].label, '', s(b.p50[j])),
        line(spec.series[1].color, LABEL[id][BASE[id].series[1].name].label, '', `${s(b.p5[j])} – ${s(b.p95[j])}`));
      return box;
    }
    // Every line's value at the row nearest the pointer, read from the
    // rows themselves: ECharts lists only the lines whose sampled points
    // fall nearest, and each line is sampled on its own.
    const src = sourceOf(id, i);
    const data = src.dataset.source;
    const r = nearest(data, ps[0].axisValue);
    if (r < 0) return '';
    const avg = view[id].smooth ? ' · 1 s average' : '';
    box.append(el('div', { className: 'tip-head', textContent: `lane ${LETTERS[i]} · t = ${dur(data[r][0], 4)}${avg}` }));
    spec.series.forEach((sp, j) => {
      const l = LABEL[id][BASE[id].series[j].name];
      const v = data[r][src.series[j].encode.y];
      box.append(line(sp.color, l.label, l.name, v == null || Number.isNaN(v) ? 'none' : unitOf(l.unit).tip(v)));
    });
    return box;
  }

  // nearest returns the index of the row of data whose t is nearest t, or -1.
  function nearest(data, t) {
    if (!data.length) return -1;
    let lo = 0, hi = data.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (data[mid][0] < t) lo = mid + 1;
      else hi = mid;
    }
    return lo > 0 && t - data[lo - 1][0] < data[lo][0] - t ? lo - 1 : lo;
  }

  // ---- ticks ---------------------------------------------------------------
  // The 1 s averages of the columns of the charts that smooth (rates and
  // percentiles): srows[r] is [t, lane a's averages…, lane b's…], each over
  // the ticks within half a second of row r (fewer at the live edge, where
  // the next rows redo it).
  const SM_COLS = [...new Set(TIME_CHARTS.filter(id => SPEC[id].smooth).flatMap(id => SPEC[id].series.map(s => COL[s.name])))];
  const SMN = SM_COLS.length;
  const SMI = Object.fromEntries(SM_COLS.map((c, k) => [c, k]));
  let srows = [];
  let maxes = []; // per lane: "chart/axis" (and "chart/axis/s" for the averages) → highest value so far
  // seen[lane][chart] is the t of the chart's latest value; no entry: none yet.
  let seen = [];

  function addRows(ticks) {
    const from = rows.length;
    const n = Math.min(maxes.length, laneCount());
    for (const row of ticks) {
      rows.push(row);
      for (let i = 0; i < n && 1 + (i + 1) * NC <= row.length; i++) {
        const off = 1 + i * NC;
        for (const id of TIME_CHARTS) {
          for (const s of SPEC[id].series) {
            const v = row[off + COL[s.name]];
            if (v == null) continue;
            seen[i][id] = row[0];
            const key = id + '/' + s.axis;
            if (!(maxes[i][key] >= v)) maxes[i][key] = v;
          }
        }
      }
    }
    smoothFrom(Math.max(0, from - halfWindow(tickLen)));
    markDirty();
  }

  function smoothFrom(start) {
    const h = halfWindow(tickLen);
    const n = Math.min(maxes.length, laneCount());
    for (let r = start; r < rows.length; r++) {
      const out = [rows[r][0]];
      for (let i = 0; i < n; i++) {
        const off = 1 + i * NC;
        for (const c of SM_COLS) out.push(meanAround(j => rows[j][off + c], rows.length, r, h));
      }
      srows[r] = out;
      for (let i = 0; i < n; i++) {
        for (const id of TIME_CHARTS) {
          if (!SPEC[id].smooth) continue;
          for (const s of SPEC[id].series) {
            const v = out[1 + i * SMN + SMI[COL[s.name]]];
            const key = id + '/' + s.axis + '/s';
            if (v != null && !(maxes[i][key] >= v)) maxes[i][key] = v;
          }
        }
      }
    }
  }

  let dirty = false;
  let framePending = false;
  let lastFrame = 0;

  function markDirty() {
    dirty = true;
    if (!framePending) {
      framePending = true;
      requestAnimationFrame(draw);
    }
  }

  const currentT = () => Math.max(rows.length ? rows[rows.length - 1][0] : 0, lastState ? lastState.t : 0);

  // axisMax is the highest value lane i's chart id shows on axis a so far:
  // its data (averaged when the chart is) and the levels drawn on it.
  function axisMax(i, id, a) {
    const m = maxes[i] || {};
    let v = m[`${id}/${a}${view[id].smooth ? '/s' : ''}`] || 0;
    for (const l of marks.levels) if (l.lane === i && l.chart === id && l.axis === a) v = Math.max(v, l.value);
    return v;
  }

  // yAxis is a time chart's axis a up to max. Switching an axis' type
  // replaces the axis (ECharts keeps one model per type), so the axis goes
  // in whole, its label formatter included.
  function yAxis(id, a, max) {
    const unit = SPEC[id].units[a];
    const log = view[id].log;
    const nice = niceAxis(max, unit, log);
    return {
      ...BASE[id].yAxis[a], type: log ? 'log' : 'value', min: log ? null : 0, max: nice.max, interval: nice.interval,
      axisLabel: { ...BASE[id].yAxis[a].axisLabel, color: T.muted, hideOverlap: true, formatter: v => unitOf(unit).axis(v, nice.max || max) },
      splitLine: { show: a === 0, lineStyle: { color: T.line } },
    };
  }

  // annotations are the marks and levels of lane i on chart id.
  function annotations(id, i) {
    const out = [];
    for (const m of marks.marks) {
      if (m.lane !== i || m.chart !== id) continue;
      out.push({ xAxis: m.t, name: m.label, lineStyle: { color: T.mark, type: 'dashed', width: 1.2 },
        label: { formatter: m.label, position: 'insideEndTop', color: T.mark, fontSize: 10 } });
    }
    for (const l of marks.levels) {
      if (l.lane !== i || l.chart !== id) continue;
      out.push({ yAxis: l.value, name: l.label, lineStyle: { color: T.level, type: 'dotted', width: 1.2 },
        label: { formatter: l.label, position: 'insideStartTop', color: T.muted, fontSize: 10 } });
    }
    return out;
  }

  // draw applies what arrived since the last frame: at most one setOption
  // per chart per frame. Each redraw re-reads every point, so redraws are
  // spaced out as the series grow (a 1 h run at 100 ms has 36 000 points).
  function draw(now) {
    framePending = false;
    if (!dirty) return;
    if (now - lastFrame < rows.length / 100) {
      framePending = true;
      requestAnimationFrame(draw);
      return;
    }
    lastFrame = now;
    dirty = false;
    const t = currentT();
    const ov = outageView(t);
    const shade = ov.windows.map(([s, e, kind, ahead]) => {
      const k = faultKinds[kind];
      const color = (k && k.outage && T.outage) || (k ? k.color : undefined);
      return [{ xAxis: s, name: ahead ? `${kind} in ${dur(s - t, 2)}` : kind, itemStyle: { color, opacity: ahead ? 0.45 : 1 } }, { xAxis: e }];
    });
    const n = Math.min(laneCount(), maxes.length);
    for (const id of TIME_CHARTS) {
      const spec = SPEC[id];
      const own = [];
      for (let i = 0; i < n; i++) own.push(spec.units.map((_, a) => axisMax(i, id, a)));
      const shared = spec.units.map((_, a) => Math.max(0, ...own.map(m => m[a])));
      for (let i = 0; i < n; i++) {
        const c = charts[`${id}.${LETTERS[i]}`];
        if (!c) continue;
        const max = view[id].shared ? shared : own[i];
        const last = seen[i] && seen[i][id];
        // A chart with no value says so; one whose gaps mean "none" says
        // since when, once that lasts.
        let empty = last == null ? spec.empty : '';
        if (!empty && spec.gaps && t - last >= 5) empty = `none since t = ${dur(last, 3)}`;
        c.setOption({
          dataset: { source: view[id].smooth ? srows : rows },
          series: [{ id: spec.series[0].name, markArea: { data: shade }, markLine: { data: annotations(id, i) } }],
          yAxis: spec.units.map((_, a) => yAxis(id, a, max[a])),
          graphic: [{ id: 'empty', invisible: !empty, style: { text: empty, fill: T.muted } }],
        });
      }
    }
    drawStatus(t, ov);
  }

  function drawStatus(t, ov) {
    const done = lastState && lastState.done;
    const next = ov.next ? ` · ${ov.next.kind} in ${dur(ov.next.at - t, 2)}` : '';
    $('#clock').textContent = `t = ${t.toFixed(1)} s / ${fmt(duration)} s${done ? ' · done' : next}`;
    const out = $('#outage');
    out.textContent = ov.down ? 'Resume server' : 'Stop server';
    out.dataset.down = ov.down ? 'true' : 'false';
    for (let i = 0; i < LETTERS.length; i++) {
      const e = $(attr('data-verdict', LETTERS[i]));
      if (!e) continue;
      const v = lastVerdicts && lastVerdicts[i];
      const text = v ? v.headline : 'waiting for the first ticks…';
      const cls = 'verdict ' + (v ? v.tone : '');
      // A live region announces every change: the text changes only when
      // the verdict does, never rewritten with the same words.
      if (e.textContent !== text) e.textContent = text;
      if (e.className !== cls) e.className = cls;
    }
  }

  // outageView says which fault windows to shade at t, [start, end, kind,
  // ahead], and whether the server is down. The state message is
  // authoritative up to its own t; a scheduled fault (the server's plan)
  // is shaded from t = 0, lighter while it is ahead (ahead: true), and a
  // scheduled window the state saw open lasts to its planned end, so that
  // the shading moves with the clock between state messages. next is the
  // next scheduled outage still ahead, for the countdown.
  function outageView(t) {
    const known = lastState ? lastState.t : 0;
    const isDown = kind => !!(faultKinds[kind] && faultKinds[kind].outage);
    const near = (a, b) => Math.abs(a - b) < 1e-9;
    const windows = [];
    const seenPlan = new Set();
    let down = false;
    for (const [s, e, kind] of lastState ? lastState.outages : []) {
      const planned = plan.find(w => w.kind === kind && near(w.at, s));
      if (planned) seenPlan.add(planned);
      if (e >= 0) windows.push([s, e, kind, false]);
      else if (planned && known < planned.end && planned.end <= t) windows.push([s, planned.end, kind, false]);
      else {
        windows.push([s, Math.max(s, t), kind, false]);
        if (isDown(kind)) down = true;
      }
    }
    let next = null;
    for (const w of plan) {
      if (seenPlan.has(w) || w.at < known) continue;
      if (w.at > t) {
        windows.push([w.at, w.end, w.kind, true]);
        if (isDown(w.kind) && (!next || w.at < next.at)) next = w;
        continue;
      }
      windows.push([w.at, Math.min(w.end, t), w.kind, false]);
      if (t < w.end && isDown(w.kind)) down = true;
    }
    return { windows, down, next };
  }

  // BAND_DATA gives each series of a retry chart its values from a lane's
  // bands message: the band is an invisible p5 series with (p95 − p5)
  // stacked on it.
  const BAND_DATA = {
    p5: (b, at) => b.retry.map((_, j) => at(b.p5, j)),
    band: (b, at) => b.retry.map((_, j) => at(b.p95, j) - at(b.p5, j)),
    p50: (b, at) => b.retry.map((_, j) => at(b.p50, j)),
  };

  // drawBands redraws the retry charts from the lanes' bands.
  function drawBands() {
    const top = b => (b ? Math.max(0, ...b.p95) : 0);
    const all = Math.max(0, ...bands.map(top));
    for (const id of RETRY_CHARTS) {
      const spec = SPEC[id];
      const log = view[id].log;
      const floor = log ? 1e-3 : 0; // a log axis cannot show 0
      for (let i = 0; i < laneCount(); i++) {
        const c = charts[`${id}.${LETTERS[i]}`];
        const b = bands[i];
        if (!c || !b) continue;
        const at = (arr, j) => Math.max(arr[j], floor);
        const nice = niceAxis(Math.max(view[id].shared ? all : top(b), floor), spec.units[0], log);
        c.setOption({
          graphic: [{ id: 'empty', invisible: b.retry.length > 0, style: { text: spec.empty, fill: T.muted } }],
          xAxis: [{ data: b.retry }],
          yAxis: [{ ...BASE[id].yAxis[0], type: log ? 'log' : 'value', min: log ? null : 0, max: nice.max, interval: nice.interval,
            axisLabel: { ...BASE[id].yAxis[0].axisLabel, color: T.muted, formatter: v => unitOf(spec.units[0]).axis(v, nice.max || 0) } }],
          series: spec.series.map(s => ({ id: s.name, data: BAND_DATA[s.name](b, at) })),
        });
      }
    }
  }

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

  // ---- exports ---------------------------------------------------------------
  // exportRows downloads what the page shows as CSV or JSON. The server
  // formats it (POST /export.csv|json, web/pageexport.go), as `backofflab
  // run -format csv|json` does: the page only sends its summaries and rows,
  // as the socket brought them.
  async function exportRows(format, type) {
    const body = [JSON.stringify(lastSummary), ...rows.map(r => JSON.stringify(r))].join('\n');
    try {
      const res = await fetch(`/export.${format}?${query}`, { method: 'POST', body, headers: { 'Content-Type': 'application/json' } });
      if (!res.ok) throw new Error((await res.text()).trim() || res.statusText);
      download(`backofflab.${format}`, await res.blob(), type);
    } catch (err) {
      showError('', `${format.toUpperCase()} export failed: ${err.message}`);
    }
  }

  // captionOf says what an exported chart of lane i shows: the server
  // writes it (scenario.LaneCaption), in hello and params.
  const captionOf = i => captions[i] || '';

  // exportImage downloads lane i's chart c (chart id) as PNG or SVG, its
  // caption naming the lane, its strategy and the run's key parameters.
  function exportImage(c, id, i, format) {
    const strategy = lanes[i] ? lanes[i].strategy : '';
    exportChart(c, `backofflab-${LETTERS[i]}-${strategy}-${id}.${format}`, captionOf(i), format);
  }

  async function copyLink() {
    const btn = $('#copy-link');
    const url = location.href;
    const done = text => {
      btn.textContent = text;
      setTimeout(() => (btn.textContent = 'Copy link'), 1500);
    };
    try {
      await navigator.clipboard.writeText(url);
      done('Copied');
    } catch {
      // No clipboard API (plain http, old browser): show the link selected.
      const field = $('#link-text');
      field.hidden = false;
      field.value = url;
      field.focus();
      field.select();
      let ok = false;
      try {
        ok = document.execCommand('copy');
      } catch {}
      done(ok ? 'Copied' : 'Select and copy');
    }
  }

  // ---- the phone's controls drawer, the skip links, the preset menu ------------
  // On a phone (style.css) the controls wait in a drawer, closed (hidden,
  // out of the tab order) until its button opens it; elsewhere the drawer
  // is the controls' column, always shown, and its button is not there.
  const drawer = $('#controls-drawer');
  const opener = $('#drawer-open');
  const drawerClosed = () => getComputedStyle(drawer).visibility === 'hidden';

  function openDrawer(focus) {
    if (drawerClosed()) showChartsAbove();
    drawer.dataset.open = '';
    opener.setAttribute('aria-expanded', 'true');
    (focus || $('#drawer-close')).focus();
  }

  // Opened over the stage, the drawer leaves the top of the screen to the
  // first row of charts, under the playback bar: a change shows as it is
  // made.
  function showChartsAbove() {
    const chart = $$('.chart').find(c => !c.closest('[hidden]'));
    const bar = $('.stage > .bar');
    if (chart && bar) window.scrollTo(0, chart.getBoundingClientRect().top + window.scrollY - bar.offsetHeight - 4);
  }

  function closeDrawer() {
    if (!('open' in drawer.dataset)) return;
    delete drawer.dataset.open;
    opener.setAttribute('aria-expanded', 'false');
    opener.focus();
  }

  function wireDrawer() {
    opener.addEventListener('click', () => ('open' in drawer.dataset ? closeDrawer() : openDrawer()));
    $('#drawer-close').addEventListener('click', closeDrawer);
    drawer.addEventListener('keydown', e => {
      if (e.key === 'Escape') closeDrawer();
    });
    // A skip link moves the focus to its target, in the drawer opened for
    // it; the address bar keeps the state, without a fragment.
    for (const a of $$('[data-skip]')) {
      a.addEventListener('click', e => {
        const target = document.getElementById(decodeURIComponent(a.hash.slice(1)));
        if (!target) return;
        e.preventDefault();
        const details = target.closest('details');
        if (details) details.open = true;
        if (drawer.contains(target) && drawerClosed()) openDrawer(target);
        else target.focus();
      });
    }
    const presets = $('#preset-select');
    if (presets) presets.addEventListener('change', () => presets.value && location.assign(presets.value));
  }

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
    $('#copy-link').addEventListener('click', copyLink);
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
  };

  wire();
  wireDrawer();
  showLanes(page.lanes);
  connect();
})();
