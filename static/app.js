// backofflab playground: ties the page to its live simulation.
//
// One WebSocket per page (protocol: web/protocol.go). The server renders the
// controls and embeds the charts' options as JSON blocks; this script opens
// the socket, draws the ticks with ECharts, and sends every control change
// as the whole state in URL-query form. No framework, no build step, no
// inline code anywhere (the page's Content-Security-Policy forbids it).
'use strict';

(() => {
  const $ = (sel, root = document) => root.querySelector(sel);
  const $$ = (sel, root = document) => Array.from(root.querySelectorAll(sel));
  const readJSON = id => JSON.parse(document.getElementById(id).textContent);
  const attr = (name, value) => `[${name}="${CSS.escape(value)}"]`;

  const page = readJSON('page-state');
  const COLS = page.columns;
  const NC = COLS.length;
  const COL = Object.fromEntries(COLS.map((c, i) => [c, i]));
  const LETTERS = page.laneNames;
  const KEEP = new Set(page.keep);
  // The charts' specs (chartKinds in web/charts.go): the script draws what
  // they say and names no chart itself. A time chart plots columns of the
  // tick rows; a retry chart plots a lane's bands.
  const SPECS = page.charts;
  const SPEC = Object.fromEntries(SPECS.map(k => [k.id, k]));
  const CHART_IDS = SPECS.map(k => k.id);
  const TIME_CHARTS = CHART_IDS.filter(k => SPEC[k].x === 'time');
  const RETRY_CHARTS = CHART_IDS.filter(k => SPEC[k].x === 'retry');
  const BASE = Object.fromEntries(CHART_IDS.map(k => [k, readJSON('chart-' + k)]));
  const STRATEGIES = Object.fromEntries(page.strategies.map(s => [s.name, s]));
  // SWITCHES[param][value] lists the parameters that value shows and hides;
  // LANE_SWITCHES are the switches each lane has its own of (the limiters').
  const SWITCHES = Object.fromEntries(page.switches.map(s => [s.param, Object.fromEntries(s.choices.map(c => [c.value, c]))]));
  const LANE_SWITCHES = page.switches.filter(s => s.lane).map(s => s.param);
  // A duration box's bare decimal is seconds, the box's unit: the page adds
  // the unit and leaves the parsing to the server.
  const SECONDS_RE = /^[+-]?(\d+\.?\d*|\.\d+)$/;
  const ICON_SVG = 'path://M5,2H14L20,8V22H5Z M14,2V8H20 M8,13H17 M8,17H17';
  const ICON_LOG = 'path://M2,21H22 M3,21V3 M4,19C7,8 12,5 21,4';

  // ---- what the page knows about the run ----------------------------------
  let query = page.query; // the canonical query in effect (from hello/params)
  let duration = page.duration;
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
  let maxes = []; // per lane: "chart/axis" → highest value so far
  const charts = {}; // "chart.letter" → ECharts instance
  const logScale = Object.fromEntries(CHART_IDS.map(k => [k, false])); // on the spec's log_axis
  const laneCount = () => lanes.length || page.lanes;

  // ---- numbers and durations ---------------------------------------------
  // plain writes a number without exponent, for display.
  function plain(v) {
    const s = String(v);
    const e = s.indexOf('e');
    if (e < 0) return s;
    const exp = Number(s.slice(e + 1));
    const frac = (s.slice(0, e).split('.')[1] || '').length;
    return exp < 0 ? v.toFixed(Math.min(100, frac - exp)) : BigInt(Math.round(v)).toString();
  }
  const fmt = v => plain(Number(v.toPrecision(12))); // trims float noise for display

  // A y-axis maximum that reads well and is shared by a row of charts.
  function niceMax(v, log) {
    if (!(v > 0)) return null; // null: let ECharts choose
    if (log) return 10 ** Math.ceil(Math.log10(v));
    const e = 10 ** Math.floor(Math.log10(v));
    for (const m of [1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10]) if (m * e >= v * 1.05) return m * e; // headroom: a line at the max would hide in the frame
    return 10 * e;
  }

  // ---- sliders ---------------------------------------------------------------
  // A slider's scale is defined once, in Go (sliderValue in web/view.go):
  // the page gets each slider's box text at every position (page.scales),
  // and each box's position from the server (boxes).
  const sliderOf = box => $(attr('data-slider-for', box.dataset.param));
  const textAt = (name, pos) => page.scales[page.sliders[name]][pos];

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
    if (slider) slider.value = b.pos;
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
    const d = seconds('duration');
    if (d > 0 && d !== duration) {
      duration = d;
      forCharts((c, id) => SPEC[id].x === 'time' && c.setOption({ xAxis: [{ max: duration }] }));
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
    if (head) head.textContent = strategy;
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
        $('#play').textContent = m.playing ? 'Pause' : 'Play';
        $('#play').title = m.done ? 'run again from t = 0' : m.playing ? 'pause the simulation' : 'resume the simulation';
        ensureOption($('#speed'), m.speed);
        $('#speed').value = m.speed;
        return markDirty();
      case 'bands':
        bands[m.lane] = m;
        return drawBands();
      case 'params':
        query = m.query;
        boxes = m.boxes;
        plan = m.plan;
        clearErrors();
        applyQuery(query);
        updateURL();
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
    outageWins.clear();
    duration = m.duration;
    lanes = m.lanes;
    LETTERS.split('').forEach((L, i) => {
      const el = $(attr('data-lane-source', L));
      const l = lanes[i];
      if (el) el.textContent = l && l.source === 'real' ? ' · real HTTP' + (l.addr ? ' on ' + l.addr : '') : '';
    });
    rows = [];
    lastSummary = null;
    lastVerdicts = null;
    bands = [];
    maxes = lanes.map(() => ({}));
    showLanes(lanes.length);
    forCharts((c, id) => {
      const spec = SPEC[id];
      if (spec.x === 'retry') c.setOption({ xAxis: [{ data: [] }], series: spec.series.map(s => ({ id: s.name, data: [] })) });
      else c.setOption({ xAxis: [{ max: duration }] });
    });
    applyQuery(query);
    updateURL();
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
    $('#lane-count').textContent = n;
    $('[data-param="lanes"]').value = n;
    $('#lane-add').disabled = n >= LETTERS.length;
    $('#lane-remove').disabled = n <= 1;
    // Charts are made when their lane first shows: ECharts needs a size.
    for (let i = 0; i < n; i++) for (const id of CHART_IDS) ensureChart(id, i);
  }

  function ensureChart(id, i) {
    const L = LETTERS[i];
    const key = `${id}.${L}`;
    if (charts[key]) return charts[key];
    const el = $(`.chart${attr('data-chart', id)}${attr('data-lane', L)}`);
    const c = echarts.init(el);
    const opt = structuredClone(BASE[id]);
    const feature = opt.toolbox.feature;
    feature.saveAsImage.name = `backofflab-${L}-${id}`;
    // Custom toolbox features need functions, which the JSON from the
    // server cannot carry.
    feature.mySvg = { show: true, title: 'SVG', icon: ICON_SVG, onclick: () => exportSVG(c, L, id) };
    const spec = SPEC[id];
    if (spec.log_axis >= 0) {
      feature.myLog = { show: true, title: logScale[id] ? 'linear scale' : 'log scale', icon: ICON_LOG, onclick: () => toggleLog(id) };
    }
    if (spec.x === 'retry') {
      for (const s of opt.series) s.data = [];
    } else {
      // The time charts read the tick rows themselves, as a dataset: each
      // series picks its lane's column, so no point is copied.
      opt.dataset = { source: rows, sourceHeader: false };
      opt.series.forEach((s, j) => {
        delete s.data;
        s.encode = { x: 0, y: 1 + i * NC + COL[spec.series[j].name] };
        if (!spec.gaps) s.sampling = 'lttb';
      });
    }
    // Four legend items fit a quarter of the page.
    Object.assign(opt.legend, { itemGap: 6, itemWidth: 10 });
    opt.tooltip.valueFormatter = v => (v == null || Number.isNaN(v) ? '–' : fmt(Number(Number(v).toPrecision(4))));
    if (spec.x === 'retry') {
      opt.tooltip.formatter = ps => delayTooltip(i, ps);
    } else {
      opt.xAxis[0].max = duration;
    }
    c.setOption(opt);
    charts[key] = c;
    resizer.observe(el);
    if (spec.x === 'retry') drawBands();
    else markDirty();
    return c;
  }

  function delayTooltip(i, ps) {
    const b = bands[i];
    const j = ps && ps.length ? ps[0].dataIndex : -1;
    if (!b || j < 0 || j >= b.retry.length) return '';
    const s = v => fmt(Number(v.toPrecision(3))) + ' s';
    return `retry #${b.retry[j]}<br>median ${s(b.p50[j])}<br>5–95 %: ${s(b.p5[j])} – ${s(b.p95[j])}`;
  }

  function toggleLog(id) {
    logScale[id] = !logScale[id];
    forCharts((c, k) => {
      if (k === id) c.setOption({ toolbox: { feature: { myLog: { title: logScale[id] ? 'linear scale' : 'log scale' } } } });
    });
    if (SPEC[id].x === 'retry') drawBands();
    else markDirty();
  }

  // ---- ticks ---------------------------------------------------------------
  function addRows(ticks) {
    for (const row of ticks) {
      rows.push(row);
      const n = Math.min(maxes.length, (row.length - 1) / NC);
      for (let i = 0; i < n; i++) {
        const off = 1 + i * NC;
        for (const id of TIME_CHARTS) {
          for (const s of SPEC[id].series) {
            const v = row[off + COL[s.name]];
            const key = id + '/' + s.axis;
            if (v != null && !(maxes[i][key] >= v)) maxes[i][key] = v;
          }
        }
      }
    }
    markDirty();
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
    const shade = ov.windows.map(([s, e, kind]) => [
      { xAxis: s, name: kind, itemStyle: { color: faultKinds[kind] ? faultKinds[kind].color : undefined } }, { xAxis: e }]);
    const n = Math.min(laneCount(), maxes.length);
    for (const id of TIME_CHARTS) {
      const spec = SPEC[id];
      const yAxis = spec.units.map((_, a) => {
        let m = 0;
        for (let i = 0; i < n; i++) m = Math.max(m, maxes[i][id + '/' + a] || 0);
        if (a !== spec.log_axis) return { max: niceMax(m, false) };
        // Switching an axis' type replaces the axis (ECharts keeps one model
        // per type), so the axis goes in whole, label formatter included.
        const log = logScale[id];
        return { ...BASE[id].yAxis[a], type: log ? 'log' : 'value', max: niceMax(m, log) };
      });
      for (let i = 0; i < n; i++) {
        const c = charts[`${id}.${LETTERS[i]}`];
        if (!c) continue;
        c.setOption({ dataset: { source: rows }, series: [{ id: spec.series[0].name, markArea: { data: shade } }], yAxis });
      }
    }
    drawStatus(t, ov);
  }

  function drawStatus(t, ov) {
    const done = lastState && lastState.done;
    $('#clock').textContent = `t = ${t.toFixed(1)} s / ${fmt(duration)} s${done ? ' · done' : ''}`;
    const out = $('#outage');
    out.textContent = ov.down ? 'Resume server' : 'Stop server';
    out.dataset.down = ov.down ? 'true' : 'false';
    for (let i = 0; i < LETTERS.length; i++) {
      const el = $(attr('data-verdict', LETTERS[i]));
      if (!el) continue;
      const v = lastVerdicts && lastVerdicts[i];
      el.textContent = v ? v.headline : 'waiting for the first ticks…';
      el.className = 'verdict ' + (v ? v.tone : '');
    }
  }

  // outageView says which fault windows to shade at t, [start, end, kind],
  // and whether the server is down. The state message is authoritative up
  // to its own t; a scheduled fault (the server's plan) is shaded from its
  // start, and a scheduled window the state saw open lasts to its planned
  // end, so that the shading moves with the clock between state messages.
  function outageView(t) {
    const known = lastState ? lastState.t : 0;
    const isDown = kind => !!(faultKinds[kind] && faultKinds[kind].outage);
    const near = (a, b) => Math.abs(a - b) < 1e-9;
    const windows = [];
    const seen = new Set();
    let down = false;
    for (const [s, e, kind] of lastState ? lastState.outages : []) {
      const planned = plan.find(w => w.kind === kind && near(w.at, s));
      if (planned) seen.add(planned);
      if (e >= 0) windows.push([s, e, kind]);
      else if (planned && known < planned.end && planned.end <= t) windows.push([s, planned.end, kind]);
      else {
        windows.push([s, Math.max(s, t), kind]);
        if (isDown(kind)) down = true;
      }
    }
    for (const w of plan) {
      if (seen.has(w) || w.at < known || w.at > t) continue;
      windows.push([w.at, Math.min(w.end, t), w.kind]);
      if (t < w.end && isDown(w.kind)) down = true;
    }
    return { windows, down, scheduled: plan.some(w => isDown(w.kind) && w.at > t) };
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
    let m = 0;
    for (const b of bands) if (b) for (const v of b.p95) m = Math.max(m, v);
    for (const id of RETRY_CHARTS) {
      const spec = SPEC[id];
      const log = logScale[id];
      const floor = log ? 1e-3 : 0; // a log axis cannot show 0
      for (let i = 0; i < laneCount(); i++) {
        const c = charts[`${id}.${LETTERS[i]}`];
        const b = bands[i];
        if (!c || !b) continue;
        const at = (arr, j) => Math.max(arr[j], floor);
        c.setOption({
          graphic: [{ id: 'note', type: 'text', left: 'center', top: 'middle', invisible: b.retry.length > 0,
            style: { text: 'no retries: gives up at once', fill: '#5b6475', font: '12px sans-serif' } }],
          xAxis: [{ data: b.retry }],
          yAxis: [{ ...BASE[id].yAxis[0], type: log ? 'log' : 'value', min: log ? null : 0, max: niceMax(Math.max(m, floor), log) }],
          series: spec.series.map(s => ({ id: s.name, data: BAND_DATA[s.name](b, at) })),
        });
      }
    }
  }

  // ---- exports ---------------------------------------------------------------
  function download(name, data, type) {
    const url = URL.createObjectURL(new Blob([data], { type }));
    const a = document.createElement('a');
    a.href = url;
    a.download = name;
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10000);
  }

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

  // An SVG of a chart: the same option rendered by ECharts' SVG renderer in
  // server-side mode, which needs no DOM.
  function exportSVG(chart, L, id) {
    const svg = echarts.init(null, null, { renderer: 'svg', ssr: true, width: chart.getWidth(), height: chart.getHeight() });
    const opt = chart.getOption();
    opt.animation = false;
    opt.toolbox = [{ show: false }];
    svg.setOption(opt);
    download(`backofflab-${L}-${id}.svg`, svg.renderToSVGString(), 'image/svg+xml');
    svg.dispose();
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
  };

  wire();
  showLanes(page.lanes);
  connect();
})();
