// The phase map's page (web/mapview/mappage.templ): it reads the map's page data from
// the page (web/mapview/mappage.go), streams the cells from GET /map/cells as they
// end (web/mapview/mapstream.go: one JSON value a line), and draws per lane a
// heatmap of the cells' verdicts and the difference between two lanes.
// Every list it shows (the sweep's parameters, the axes' values and
// labels, the outcomes and their words) comes from Go; what it computes is
// only the drawing. No inline code: the page's Content-Security-Policy
// forbids it.
import { $, $$, el, readJSON, attr, dur, sig, resizeWithBox, theme, onThemeChange, download, readLines, exportChart } from './common.js';

(() => {
  const S = readJSON('map-data');
  const LANES = S.lanes.map(l => l.letter);
  const OUTCOME = Object.fromEntries([...S.outcomes, S.serverOnly].map(o => [o.name, o.label]));
  const TONE = Object.fromEntries([...S.outcomes, S.serverOnly].map(o => [o.name, o.tone]));
  const MARK = Object.fromEntries([...S.outcomes, S.serverOnly].map(o => [o.name, o.mark]));
  const PATTERN = Object.fromEntries([...S.outcomes, S.serverOnly].map(o => [o.name, o.pattern]));
  // The outcomes a cell is coloured by, apart from the recovered ones'
  // shade: each a piece of the categorical legend. A recovered cell whose
  // service never came back (no recovery time) is one of them.
  const CATS = [S.serverOnly.name, ...S.outcomes.map(o => o.name).filter(n => n !== S.recovered)];
  const recovered = l => l.outcome === S.recovered && l.recovery != null;
  const shown = l => (l.outcome === S.recovered && l.recovery == null ? S.serverOnly.name : l.outcome);
  let T = theme();

  const charts = {}; // lane letter or 'diff' → ECharts instance
  let points = {}; // 'x,y' → the point message
  let run = null; // the run under way or last: {ctrl, start, total, cells, finished, error, elapsed}
  const key = (x, y) => `${x},${y}`;

  // ---- colours: the theme's, and the map's own custom properties --------
  function mapColours() {
    const cs = getComputedStyle(document.documentElement);
    const v = (name, fallback) => cs.getPropertyValue(name).trim() || fallback;
    return { soon: v('--map-soon', '#0b5d2a'), mid: v('--map-mid', '#6fbf73'), late: v('--map-late', '#efe7a0'),
      none: v('--map-none', '#9aa1ad'), neutral: v('--map-neutral', '#f3f4f6'),
      aSooner: v('--map-a-sooner', '#8aa8ec'), bSooner: v('--map-b-sooner', '#93d3a2'), part: v('--map-part', '#c4acec') };
  }
  let M = mapColours();

  // ---- the form: a change reloads the page at the map's new URL, which
  // validates it and starts it; leaving the page stops the old one --------
  const form = $('#map-form');
  function formQuery() {
    const q = new URLSearchParams(S.base);
    const noY = !$(attr('data-param', S.axes[1].name)).value;
    for (const name of S.params) {
      if (noY && S.yParams.includes(name)) continue;
      const c = $(attr('data-param', name));
      if (c && c.value.trim() !== '') q.set(name, c.value.trim());
    }
    return q.toString();
  }
  function go() {
    stop('');
    location.assign('/map?' + formQuery());
  }
  form.addEventListener('change', e => {
    // A new parameter on an axis: its range as the server suggests it.
    const ax = S.axes.find(a => a.name === e.target.dataset.param);
    const s = ax && S.suggest[e.target.value];
    if (s) {
      $(attr('data-param', ax.from)).value = s.from;
      $(attr('data-param', ax.to)).value = s.to;
      $(attr('data-param', ax.steps)).value = s.steps;
      $(attr('data-param', ax.scale)).value = s.scale;
    }
    go();
  });
  form.addEventListener('submit', e => {
    e.preventDefault();
    if (S.valid && formQuery() === new URLSearchParams(S.query).toString()) start();
    else go();
  });
  $('#map-stop').addEventListener('click', () => stop('stopped'));

  // ---- errors, beside the control they name -------------------------------
  function clearErrors() {
    for (const e of $$('[data-error-for]')) e.replaceChildren();
    for (const c of $$('[data-param]')) c.removeAttribute('aria-invalid');
  }
  function showErrors(errs) {
    for (const e of errs) {
      const box = e.name ? $(attr('data-error-for', e.name)) : null;
      const target = box || $('#map-errors');
      target.append(el('p', { textContent: e.message }));
      const c = e.name && $(attr('data-param', e.name));
      if (c) c.setAttribute('aria-invalid', 'true');
    }
  }

  // ---- progress ---------------------------------------------------------
  const bar = $('#map-progress');
  const status = $('#map-status');
  function progress() {
    const r = run;
    if (!r) return;
    bar.max = r.total;
    bar.value = r.cells;
    status.className = 'status';
    if (r.error) {
      status.textContent = `stopped at ${r.cells} / ${r.total} cells: ${r.error}`;
      status.classList.add('bad');
      return;
    }
    if (r.finished) {
      status.textContent = `done: ${r.cells} cells in ${dur(r.elapsed)}` + (r.restored ? ' (restored; Run the map reruns it)' : '');
      status.classList.add('ok');
      return;
    }
    if (r.stopped) {
      status.textContent = `stopped at ${r.cells} / ${r.total} cells`;
      return;
    }
    // The server's time left weighs each cell by its estimated cost (a
    // map's dear cells are not spread evenly), at this map's pace so far.
    const secs = (performance.now() - r.start) / 1000;
    const rate = r.cells / Math.max(secs, 1e-3);
    const left = r.left != null ? dur(Math.max(r.left - (performance.now() - r.leftAt) / 1000, 0), 2) : '…';
    status.textContent = `${r.cells} / ${r.total} cells · ${r.cells > 0 ? sig(rate, 2) : '–'} cells/s · ${left} left`;
  }
  setInterval(() => run && !run.finished && !run.error && !run.stopped && progress(), 1000);

  function setRunning(on) {
    $('#map-stop').disabled = !on;
    $('#map-csv').disabled = on || !run || !run.finished;
    $('#map-json').disabled = on || !run || !run.finished;
  }

  // ---- the stream -----------------------------------------------------
  async function start() {
    stop('');
    clearErrors();
    points = {};
    const r = { ctrl: new AbortController(), start: performance.now(), total: S.cells, cells: 0 };
    run = r;
    setRunning(true);
    progress();
    draw();
    let resp;
    try {
      resp = await fetch('/map/cells?' + S.query, { signal: r.ctrl.signal, headers: { Accept: 'application/x-ndjson' } });
    } catch (e) {
      if (!r.ctrl.signal.aborted) fail(r, `the server cannot be reached (${e.message})`);
      return;
    }
    if (!resp.ok) {
      const body = await resp.json().catch(() => null);
      const errs = body && body.errors ? body.errors : [{ name: '', message: `the server answered ${resp.status}` }];
      showErrors(errs);
      fail(r, errs.map(e => e.message).join('; '));
      return;
    }
    try {
      await readLines(resp, line => {
        if (run === r) onMessage(r, JSON.parse(line));
      });
    } catch (e) {
      if (!r.ctrl.signal.aborted) fail(r, `the stream broke (${e.message})`);
      return;
    }
    if (run === r && !r.finished && !r.error && !r.stopped) fail(r, 'the stream ended early: the server may be shutting down');
  }

  function onMessage(r, m) {
    switch (m.type) {
      case 'start':
        r.total = m.total;
        break;
      case 'point':
        points[key(m.x, m.y)] = m;
        r.cells += m.cells.length;
        r.left = m.left || 0;
        r.leftAt = performance.now();
        markDirty();
        break;
      case 'done':
        r.finished = true;
        r.elapsed = m.elapsed;
        setRunning(false);
        save();
        markDirty();
        break;
      case 'error':
        showErrors([{ name: '', message: m.message }]);
        fail(r, m.message);
        return;
    }
    progress();
  }

  function fail(r, msg) {
    if (run !== r) return;
    r.error = msg;
    setRunning(false);
    progress();
  }

  // stop cancels the run under way: its fetch aborted, the server's work
  // ends with the request.
  function stop(why) {
    const r = run;
    if (!r || r.finished || r.error || r.stopped) return;
    r.stopped = why || 'left';
    r.ctrl.abort();
    setRunning(false);
    progress();
  }
  // Leaving the page (or the browser keeping it in its back-forward
  // cache) stops the work; coming back reruns it, or shows it finished.
  addEventListener('pagehide', () => stop('left'));
  addEventListener('pageshow', e => {
    if (e.persisted && S.valid && run && run.stopped === 'left') start();
  });

  // ---- a finished map is kept for the tab's session: the back button
  // from a cell's run shows it again without rerunning it ------------------
  const storeKey = () => 'backofflab-map:' + S.query;
  function save() {
    try {
      sessionStorage.setItem(storeKey(), JSON.stringify({ points: Object.values(points), elapsed: run.elapsed }));
    } catch (e) {
      // Too big for the session's storage: going back reruns it.
    }
  }
  function restore() {
    let saved = null;
    try {
      saved = JSON.parse(sessionStorage.getItem(storeKey()) || 'null');
    } catch (e) {
      saved = null;
    }
    // A map saved before the points carried their lanes' differences is
    // run again.
    if (!saved || saved.points.some(p => !p.diffs)) return false;
    points = Object.fromEntries(saved.points.map(p => [key(p.x, p.y), p]));
    const cells = saved.points.reduce((n, p) => n + p.cells.length, 0);
    if (cells !== S.cells) return false;
    run = { total: S.cells, cells, finished: true, elapsed: saved.elapsed, restored: true };
    setRunning(false);
    progress();
    markDirty();
    return true;
  }

  // ---- drawing -----------------------------------------------------------
  let dirty = false;
  function markDirty() {
    if (dirty) return;
    dirty = true;
    requestAnimationFrame(() => {
      dirty = false;
      draw();
    });
  }

  function chartOf(id) {
    if (charts[id]) return charts[id];
    const dom = $(attr('data-map', id));
    if (!dom) return null;
    const c = echarts.init(dom);
    c.on('click', p => {
      const pt = p.value && points[key(p.value[0], p.value[1])];
      if (pt) location.assign('/?' + pt.cells[0].query);
    });
    charts[id] = c;
    resizeWithBox(dom);
    return c;
  }

  const yValues = () => (S.y.values && S.y.values.length ? S.y.values : ['']);
  const axisName = a => (!a.name ? '' : a.label === a.name ? a.name : `${a.label} (${a.name})`);

  const yTicks = () => (S.y.ticks && S.y.ticks.length ? S.y.ticks : ['']);
  const LABEL_FONT = 11;
  const STACK_MARGIN = 8; // px
  // stacks reports whether the categories' legend, of these labels,
  // is too wide for one line of chart c: it then stacks them (fit).
  const stacks = (c, labels) => labels.reduce((n, l) => n + l.length * LABEL_FONT * 0.56 + 30, 16) > c.getWidth();
  // every names one value in k along an axis of length px whose labels
  // are each about size px long (their width across, their height
  // down) with a gap between them: the labels never touch, however
  // narrow the map (a phone's).
  function every(ticks, px, across) {
    const size = across ? Math.max(...ticks.map(t => t.length)) * LABEL_FONT * 0.62 + 10 : LABEL_FONT + 6;
    const fit = Math.max(1, Math.floor(px / size));
    return { interval: Math.max(0, Math.ceil(ticks.length / fit) - 1) };
  }

  // base is what every map's option shares: the axes, the grid, the
  // tooltip.
  function base(id, c, labels) {
    const n = S.x.values.length * yValues().length;
    const axis = { axisLabel: { color: T.muted, fontSize: LABEL_FONT }, axisLine: { lineStyle: { color: T.line } },
      nameTextStyle: { color: T.fg }, splitArea: { show: false } };
    // A narrow map stacks its legend's pieces (fit), each a line more.
    // A stacked legend (fit) takes a line a piece, and a margin under it
    // that keeps an export's caption clear of its last line.
    const stacked = stacks(c, labels) ? 17 * (labels.length - 1) + STACK_MARGIN : 0;
    const grid = { left: S.y.name ? 78 : 24, right: 16, top: 12, bottom: 104 + stacked, containLabel: false };
    const w = Math.max(c.getWidth() - grid.left - grid.right, 1), h = Math.max(c.getHeight() - grid.top - grid.bottom, 1);
    const tick = ticks => (v, i) => ticks[i];
    return {
      animation: false,
      backgroundColor: T.card,
      grid: [grid],
      xAxis: [{ type: 'category', data: S.x.values, name: axisName(S.x), nameLocation: 'middle', nameGap: 26, ...axis,
        axisLabel: { ...axis.axisLabel, formatter: tick(S.x.ticks), ...every(S.x.ticks, w, true) } }],
      yAxis: [{ type: 'category', data: yValues(), name: axisName(S.y), nameLocation: 'middle', nameGap: 62, ...axis,
        axisLabel: { ...axis.axisLabel, formatter: tick(yTicks()), ...every(yTicks(), h, false) } }],
      tooltip: { trigger: 'item', confine: true, className: 'chart-tip', backgroundColor: T.card, borderColor: T.line,
        textStyle: { color: T.fg }, formatter: p => tooltip(id, p) },
      _border: n > 400 ? 0 : 1,
      _cell: Math.min(w / S.x.values.length, h / yValues().length),
    };
  }

  function heat(name, data, border) {
    return { type: 'heatmap', name, data, progressive: 0, itemStyle: { borderColor: T.card, borderWidth: border },
      emphasis: { itemStyle: { borderColor: T.fg, borderWidth: 1.5 } } };
  }

  // ink is black or white, whichever reads better on a cell of colour
  // bg (a #rrggbb or rgb() colour): a mark is seen whatever the shade.
  function ink(bg) {
    let r, g, b;
    const m = /^#([0-9a-f]{6})$/i.exec(bg.trim());
    if (m) [r, g, b] = [0, 2, 4].map(i => parseInt(m[1].slice(i, i + 2), 16));
    else [r, g, b] = (bg.match(/\d+(\.\d+)?/g) || [255, 255, 255]).map(Number);
    const lin = v => ((v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
    const L = 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
    return L > 0.18 ? '#111111' : '#ffffff';
  }

  // decal draws a pattern (mapview's names) over a cell of colour bg,
  // in its ink, faint.
  function decal(pattern, bg) {
    const color = ink(bg) === '#ffffff' ? 'rgba(255,255,255,0.55)' : 'rgba(0,0,0,0.45)';
    const lines = { symbol: 'rect', symbolSize: 1, color, dashArrayX: [1, 0] };
    switch (pattern) {
      case 'hatched':
        return { ...lines, dashArrayY: [2, 4], rotation: -Math.PI / 4 };
      case 'lined':
        return { ...lines, dashArrayY: [2, 4] };
      case 'crossed':
        return { ...lines, dashArrayY: [1, 4], dashArrayX: [[1, 4], [4, 1]] };
      case 'dotted':
        return { symbol: 'circle', symbolSize: 0.6, color, dashArrayX: [[3, 3], [0, 3, 3, 0]], dashArrayY: [3, 0] };
    }
    return null;
  }

  // marked is a series of categorical cells drawn so that the map does
  // not rely on colour: each category's pattern (patterns[k], from Go)
  // over its cells, and its sign (marks[k]) on them where a cell holds
  // a legible one; colours[k] is its colour. The legend names both.
  function marked(s, cell, marks, patterns, colours) {
    const size = Math.min(Math.floor(cell * 0.6), 16);
    const signs = size >= 8;
    if (signs) s.label = { show: true, fontSize: size, fontWeight: 'bold', formatter: p => marks[p.value[2]] || '' };
    s.data = s.data.map(v => {
      const d = decal(patterns[v[2]], colours[v[2]]);
      return { value: v, label: signs ? { color: ink(colours[v[2]]) } : undefined, itemStyle: d ? { decal: d } : undefined };
    });
    return s;
  }
  // legendLabel is a category's entry: its sign, its words, its pattern.
  const legendLabel = (mark, label, pattern) => (mark ? `${mark} ` : '') + label + (pattern ? `, ${pattern}` : '');

  // The recovered cells' shade, shared by every lane's map: the longest
  // recovery of any lane is its top.
  function longestRecovery() {
    let m = 0;
    for (const pt of Object.values(points)) for (const l of pt.lanes) if (recovered(l)) m = Math.max(m, l.recovery);
    return Math.max(m, 1);
  }

  function catColour(name) {
    return { bad: T.bad, warn: T.warn, good: T.good, part: M.part }[TONE[name]] || M.none;
  }

  // hereSeries outlines the cell of the map's scenario (S.here, which Go
  // found; its words are under the legend's note), over the cells'
  // colours: a ring in the text's colour, whatever the cell's.
  function hereSeries() {
    const h = S.here;
    if (!h || !h.x) return [];
    return [{ type: 'heatmap', name: 'this scenario', silent: true, z: 5, progressive: 0,
      data: [{ value: [h.x, h.y, 0], itemStyle: { color: 'rgba(0, 0, 0, 0)', borderColor: T.fg, borderWidth: 3 } }] }];
  }

  function laneOption(c, i) {
    const labels = CATS.map(k => legendLabel(MARK[k], OUTCOME[k], PATTERN[k]));
    const o = base(LANES[i], c, labels);
    const rec = [], other = [];
    for (const pt of Object.values(points)) {
      const l = pt.lanes[i];
      if (recovered(l)) rec.push([pt.x, pt.y, l.recovery]);
      else other.push([pt.x, pt.y, CATS.indexOf(shown(l))]);
    }
    o.series = [heat('recovered', rec, o._border),
      marked(heat('other', other, o._border), o._cell, CATS.map(c => MARK[c]), CATS.map(c => PATTERN[c]), CATS.map(catColour)),
      ...hereSeries()];
    const top = longestRecovery();
    o.visualMap = [
      { type: 'continuous', seriesIndex: 0, dimension: 2, min: 0, max: top, calculable: false,
        orient: 'horizontal', left: 8, bottom: 34, itemWidth: 12, itemHeight: 110, text: [dur(top, 2), 'recovered in 0 s'],
        textStyle: { color: T.fg, fontSize: 11 }, formatter: v => dur(v, 2), inRange: { color: [M.soon, M.mid, M.late] } },
      { type: 'piecewise', seriesIndex: 1, dimension: 2, orient: 'horizontal', left: 8, bottom: 6, itemWidth: 12, itemHeight: 12,
        textStyle: { color: T.fg, fontSize: 11 }, selectedMode: false,
        pieces: CATS.map((k, i) => ({ value: i, label: labels[i], color: catColour(k) })) },
    ];
    delete o._border;
    delete o._cell;
    return o;
  }

  // diffOf is how lane b did against lane a at a point, as the server
  // compared them (sweep.Compare): both recovered (by how much sooner b
  // did, in seconds), or which of them did, and that in words.
  const diffKey = (a, b) => `${LANES[a]}/${LANES[b]}`;
  const diffOf = (pt, a, b) => pt.diffs[diffKey(a, b)];

  function diffLanes() {
    const a = LANES.indexOf($('#diff-a').value), b = LANES.indexOf($('#diff-b').value);
    return [a, b];
  }

  function diffOption(c) {
    const [a, b] = diffLanes();
    const A = LANES[a], B = LANES[b];
    const words = S.diffWords[diffKey(a, b)] || {};
    const marks = S.diffMarks[diffKey(a, b)] || {};
    const labels = S.diffCats.map(k => legendLabel(marks[k], words[k], S.diffPatterns[k]));
    const o = base('diff', c, labels);
    const both = [], other = [];
    let span = 1;
    for (const pt of Object.values(points)) {
      const d = diffOf(pt, a, b);
      if (!d) continue;
      if (d.cat !== 'both') other.push([pt.x, pt.y, S.diffCats.indexOf(d.cat)]);
      else {
        both.push([pt.x, pt.y, d.sooner]);
        span = Math.max(span, Math.abs(d.sooner));
      }
    }
    const colour = { only_a: T.accent, only_b: T.good, neither: T.bad, no_outage: M.none };
    o.series = [heat('both', both, o._border),
      marked(heat('other', other, o._border), o._cell, S.diffCats.map(k => marks[k]), S.diffCats.map(k => S.diffPatterns[k]),
        S.diffCats.map(k => colour[k])), ...hereSeries()];
    // The shade's extent is the largest difference streamed so far: the
    // browser alone knows it, and writes it (common.js).
    o.visualMap = [
      { type: 'continuous', seriesIndex: 0, dimension: 2, min: -span, max: span, calculable: false,
        orient: 'horizontal', left: 8, bottom: 34, itemWidth: 12, itemHeight: 110,
        text: [`${B} ${dur(span, 2)} sooner`, `both recover: ${A} ${dur(span, 2)} sooner`], textStyle: { color: T.fg, fontSize: 11 },
        formatter: v => dur(Math.abs(v), 2), inRange: { color: [M.aSooner, M.neutral, M.bSooner] } },
      { type: 'piecewise', seriesIndex: 1, dimension: 2, orient: 'horizontal', left: 8, bottom: 6, itemWidth: 12, itemHeight: 12,
        textStyle: { color: T.fg, fontSize: 11 }, selectedMode: false,
        pieces: S.diffCats.map((k, i) => ({ value: i, label: labels[i], color: colour[k] })) },
    ];
    delete o._border;
    delete o._cell;
    return o;
  }

  // fit stacks the categories' legend on a narrow map (a phone's), where
  // one line of them does not fit.
  // (base has made room for it.)
  function fit(c, o) {
    if (!stacks(c, o.visualMap[1].pieces.map(p => p.label))) return o;
    o.visualMap[1] = { ...o.visualMap[1], orient: 'vertical', itemGap: 4, bottom: 4 + STACK_MARGIN };
    o.visualMap[0] = { ...o.visualMap[0], bottom: 6 + STACK_MARGIN + 17 * o.visualMap[1].pieces.length };
    return o;
  }

  function draw() {
    if (!S.valid) return; // no map: the form and its errors only
    LANES.forEach((L, i) => {
      const c = chartOf(L);
      if (c) c.setOption(fit(c, laneOption(c, i)), { notMerge: true });
    });
    if (LANES.length > 1) {
      const c = chartOf('diff');
      if (c) c.setOption(fit(c, diffOption(c)), { notMerge: true });
    }
  }
  for (const id of ['#diff-a', '#diff-b']) if ($(id)) $(id).addEventListener('change', markDirty);

  // ---- tooltips: DOM nodes, as the playground's (its CSP blocks the
  // default tooltip's inline styles) ---------------------------------------
  function tooltip(id, p) {
    const pt = p.value && points[key(p.value[0], p.value[1])];
    if (!pt) return '';
    const box = el('div', { className: 'tip' });
    box.dataset.tip = id;
    let head = `${S.x.name} = ${S.x.values[pt.x]}`;
    if (S.y.name) head += ` · ${S.y.name} = ${S.y.values[pt.y]}`;
    box.append(el('div', { className: 'tip-head', textContent: head }));
    const laneLine = i => {
      const l = pt.lanes[i];
      const row = el('div', { className: 'tip-row' }, el('b', { textContent: `${LANES[i]}: ${OUTCOME[shown(l)]}` }));
      if (l.recovery != null) row.append(` in ${dur(l.recovery, 3)}`);
      row.append(` · peak ${l.peak} · ${sig(l.amplification, 3)} attempts per request`);
      const v = el('div', { className: 'tip-verdict', textContent: l.verdict });
      return [row, v];
    };
    if (id === 'diff') {
      const [a, b] = diffLanes();
      const d = diffOf(pt, a, b);
      if (d && d.cat === 'both') box.append(el('div', { className: 'tip-row', textContent: d.text }));
      box.append(...laneLine(a), ...laneLine(b));
    } else {
      box.append(...laneLine(LANES.indexOf(id)));
    }
    const seeds = pt.cells.length > 1 ? ` (seed ${pt.cells[0].seed} of ${pt.cells.length})` : '';
    box.append(el('div', { className: 'tip-foot', textContent: `click: open this run in the playground${seeds}` }));
    return box;
  }

  // ---- exports -----------------------------------------------------------
  // captionOf says what the exported map id shows, as the server writes
  // it (sweep.Captions): a lane's map, or the difference of the lanes
  // chosen.
  function captionOf(id) {
    if (id !== 'diff') return S.captions[id] || '';
    const [a, b] = diffLanes();
    return S.captions[`${LANES[a]}/${LANES[b]}`] || S.captions[LANES[a]] || '';
  }
  for (const b of $$('[data-export]')) {
    b.addEventListener('click', () => {
      const id = b.dataset.export;
      const c = chartOf(id);
      if (c) exportChart(c, `backofflab-map-${id}.${b.dataset.format}`, captionOf(id), b.dataset.format);
    });
  }

  // The cells as CSV or JSON: the page posts those it holds, the server
  // formats them as `backofflab map` does.
  async function exportCells(format) {
    const cells = Object.values(points).flatMap(pt => pt.cells.map(c => ({ index: c.index, summaries: c.summaries })));
    const resp = await fetch(`/map.${format}?${S.query}`, { method: 'POST', body: JSON.stringify(cells),
      headers: { 'Content-Type': 'application/json' } });
    if (!resp.ok) {
      showErrors([{ name: '', message: `export: ${(await resp.text()).trim()}` }]);
      return;
    }
    download(`backofflab-map.${format}`, await resp.blob(), resp.headers.get('Content-Type'));
  }
  $('#map-csv').addEventListener('click', () => exportCells('csv'));
  $('#map-json').addEventListener('click', () => exportCells('json'));

  // ---- share link ----------------------------------------------------------
  $('#map-copy').addEventListener('click', async () => {
    const box = $('#map-link');
    box.value = location.href;
    box.hidden = false;
    box.select();
    try {
      await navigator.clipboard.writeText(location.href);
    } catch (e) {
      // The box shows the link, selected, for a copy by hand.
    }
  });

  onThemeChange(() => {
    T = theme();
    M = mapColours();
    draw();
  });

  // ---- start -----------------------------------------------------------
  if (S.valid) {
    history.replaceState(null, '', '/map?' + S.query);
    if (!restore()) start();
  }
  draw();

  // For tests: the run's state, the charts and the points.
  window.backofflabMap = {
    state: () => (run ? { total: run.total, cells: run.cells, finished: !!run.finished, error: run.error || '',
      stopped: run.stopped || '', restored: !!run.restored } : null),
    charts: () => charts,
    points: () => points,
    caption: id => captionOf(id),
  };
})();
