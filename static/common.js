// backofflab's shared page kit: what every view of the playground (the live
// run, the phase map, the seed bands, the contention study) needs the same
// way, defined once: DOM helpers, numbers and durations as a reader says
// them, the charts' colours read from the page's CSS, downloads, and the
// image export of a chart with its caption. It is an ES module: each view's
// scripts import from it what they use, and it sets no global. ECharts,
// vendored as it is published, is the one classic script: it defines the
// global echarts, and loads before the modules (deferred scripts and
// modules run in the page's order). No inline code anywhere: the page's
// Content-Security-Policy forbids it.

const $ = (sel, root = document) => root.querySelector(sel);
const $$ = (sel, root = document) => Array.from(root.querySelectorAll(sel));
const readJSON = id => JSON.parse(document.getElementById(id).textContent);
const attr = (name, value) => `[${name}="${CSS.escape(value)}"]`;
const el = (tag, props = {}, ...kids) => {
  const e = Object.assign(document.createElement(tag), props);
  e.append(...kids);
  return e;
};

// ---- numbers, durations and units ----------------------------------------
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
const sig = (v, n = 3) => fmt(Number(v.toPrecision(n)));
// thousands groups a whole number with thin spaces: 43 170.
const thousands = v => String(Math.round(v)).replace(/\B(?=(\d{3})+(?!\d))/g, '\u2009');

// dur writes seconds as a reader says them: 100 ms, 20 s, 2.5 min, 1 h,
// 1 h 15 min; n significant digits. The rule is internal/present's
// Duration, checked against the same table (see below).
function dur(v, n = 3) {
  if (v == null || !Number.isFinite(v)) return '–';
  if (v === 0) return '0 s';
  if (v < 0) return '-' + dur(-v, n);
  if (v < 1) return `${sig(v * 1000, n)} ms`;
  if (v < 600) return `${sig(v, n)} s`;
  if (v < 3600) return `${sig(v / 60, n)} min`;
  // Whole minutes first, so that 1 h 59.9 min is 2 h, not 1 h 60 min.
  const all = Math.round(v / 60), h = Math.floor(all / 60), m = all - h * 60;
  return m ? `${h} h ${m} min` : `${h} h`;
}

// rate writes a rate per second (without its unit): whole and grouped
// from 100 up, 3 significant digits under (internal/present's Rate).
const rate = v => (v >= 100 ? thousands(v) : sig(v));

// count writes a count compactly for an axis: 950, 12k, 1.2M.
function count(v) {
  const a = Math.abs(v);
  if (a >= 1e6) return `${sig(v / 1e6)}M`;
  if (a >= 1e4) return `${sig(v / 1e3)}k`;
  return sig(v);
}

// ---- values by unit, for what only the browser knows ---------------------
// The server writes every sentence the pages show, figures included
// (internal/present). What stays here is what the browser alone knows
// when it must be written: an axis tick ECharts chose, the value under
// the pointer, a legend's extent over the points streamed so far, a
// countdown between two messages. These formatters are the only ones in
// JavaScript; durations follow the same rule as internal/present's
// Duration, and the browser test TestBrowserFormatters checks both
// against one table (internal/present/testdata/formats.json).

// durAxis writes v for an axis up to max, in one unit for the whole axis
// up to an hour: 100 s, 200 s; 2 min, 4 min; 15 min, 1 h, 1 h 15 min.
// Without max (an axis whose top is not known yet) it writes dur's.
function durAxis(v, max) {
  if (!(max >= 600) || v === 0 || v >= 3600) return dur(v, 3);
  return `${sig(v / 60)} min`;
}

// units formats a value of each unit of the charts' specs (ChartSpecs in
// web/scene/charts.go), short for an axis (given the axis' top) and in full
// for a tooltip.
const UNITS = {
  '/s': { axis: v => `${count(v)}/s`, tip: v => `${rate(v)}/s` },
  s: { axis: (v, max) => durAxis(v, max), tip: v => dur(v, 4) },
  '': { axis: v => count(v), tip: v => (Number.isInteger(v) ? thousands(v) : sig(v)) },
};
const unitOf = u => UNITS[u] || UNITS[''];

// ---- the charts' time axes, toolboxes and sizes ---------------------------
// DUR_STEPS are the durations an axis may step by, so that its labels
// read well: 15 min, not 900 s; 1 h, not 4,000 s.
const DUR_STEPS = [0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200];

// timeStep is the step of a time axis over span seconds that gives it at
// most n labels.
const timeStep = (span, n) => DUR_STEPS.find(s => span / s <= n) || DUR_STEPS[DUR_STEPS.length - 1];

// ICONS are the charts' toolbox buttons, as ECharts paths.
const ICONS = {
  png: 'path://M3,4H21V20H3Z M3,16L9,10L14,15L17,12L21,16',
  svg: 'path://M5,2H14L20,8V22H5Z M14,2V8H20 M8,13H17 M8,17H17',
  csv: 'path://M3,4H21V20H3Z M3,9H21 M3,14H21 M9,4V20 M15,4V20',
  log: 'path://M2,21H22 M3,21V3 M4,19C7,8 12,5 21,4',
  share: 'path://M2,4H10V20H2Z M14,4H22V20H14Z M1,8H23',
  smooth: 'path://M2,14L5,6L8,18L11,8L14,16 M2,20C8,10 14,10 22,12',
  help: 'path://M12,2A10,10,0,1,0,12.01,2Z M9,9C9,6 15,6 15,9C15,12 12,11 12,14 M12,17V19',
};

// fitLegend lets chart c's legend (at its bottom) wrap onto as many
// lines as its width needs, never paging (a paged legend hides which
// line is which, and its pager fades into a dark scheme), and gives the
// plot above it the room the lines take, as ECharts laid them out.
function fitLegend(c) {
  const w = c.getWidth();
  // A phone's chart gives its legend the whole width, in a smaller font,
  // so that four labels take two lines rather than three.
  const narrow = w < 320;
  // ECharts wraps the items within width and draws them inside the
  // legend's padding (5 px), which width does not count.
  c.setOption({ legend: [{ type: 'plain', left: narrow ? 0 : 'center', width: Math.max(60, w - (narrow ? 10 : 24)),
    itemGap: narrow ? 6 : 8, textStyle: { fontSize: narrow ? 10 : 11 } }] });
  const m = c.getModel().getComponent('legend', 0);
  const v = m && c.getViewOfComponentModel ? c.getViewOfComponentModel(m) : null;
  const h = v ? v.group.getBoundingRect().height : 14;
  // The legend's height is known: the plot makes room at the next frame,
  // with whatever else changed before it.
  c.setOption({ grid: [{ bottom: Math.ceil(h) + 10 }] }, { lazyUpdate: true });
}

// resizeWithBox resizes the chart drawn in an element whenever the
// element's size changes (a phone turned, a lane shown).
const resizer = new ResizeObserver(entries => {
  for (const e of entries) {
    const c = echarts.getInstanceByDom(e.target);
    // Observing starts with a report of the size the chart already has.
    if (c && (c.getWidth() !== e.target.clientWidth || c.getHeight() !== e.target.clientHeight)) c.resize();
  }
});
const resizeWithBox = dom => resizer.observe(dom);

// ---- 1 s averages --------------------------------------------------------
// A chart that smooths shows each value averaged over the ticks within
// half a second of it, its nulls skipped. The rule is here once, for the
// playground (which averages its rows as they arrive, redoing the live
// edge) and the seed bands (which average a finished series). It stays
// in the browser rather than the server because averaging is only a way
// of drawing: the socket, the bands' stream and every CSV or JSON export
// carry the ticks as measured, and the chart's toggle switches between
// them and their averages without asking the server again.

// halfWindow is how many ticks of tick seconds lie on each side of a
// tick in its 1 s window.
const halfWindow = tick => Math.max(0, Math.round((1 / tick - 1) / 2));

// meanAround is the mean of the values at(j) that are not null for j
// within h of r and in [0, n), or null when there is none.
function meanAround(at, n, r, h) {
  let sum = 0, k = 0;
  for (let j = Math.max(0, r - h); j <= Math.min(n - 1, r + h); j++) {
    const v = at(j);
    if (v != null) {
      sum += v;
      k++;
    }
  }
  return k ? sum / k : null;
}

// ---- the theme: the charts' colours, read from the page's CSS ------------
// One place for every colour the charts draw with: the page's custom
// properties, read at draw time, so that a theme (dark mode) that
// changes them changes the charts. The fallbacks are the light theme's.
function theme() {
  const cs = getComputedStyle(document.documentElement);
  const v = (name, fallback) => cs.getPropertyValue(name).trim() || fallback;
  return {
    fg: v('--fg', '#1d2330'),
    muted: v('--muted', '#5b6475'),
    line: v('--line', '#dde1e8'),
    card: v('--card', '#fff'),
    bad: v('--bad', '#b42318'),
    good: v('--good', '#1a7f37'),
    warn: v('--warn', '#9a6700'),
    accent: v('--accent', '#2f5fd0'),
    mark: v('--chart-mark', '#6b4fbb'),
    level: v('--chart-level', '#8a93a6'),
    outage: v('--chart-outage', ''), // '' keeps each fault kind's own colour
    faultLabel: v('--chart-fault-label', '#b03a3a'),
  };
}

// onThemeChange calls fn when the reader's colour scheme changes, after
// the page's custom properties have.
const onThemeChange = fn => matchMedia('(prefers-color-scheme: dark)').addEventListener('change', fn);

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

// readLines calls onLine with each line of a streamed response's body
// (NDJSON: how the many-run views stream their work), without its end,
// skipping empty lines. It resolves when the body ends and rejects when
// reading fails (a cut connection, an abort) or onLine throws.
async function readLines(res, onLine) {
  const reader = res.body.getReader();
  const dec = new TextDecoder();
  let buf = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buf += dec.decode(value, { stream: true });
    let i;
    while ((i = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      if (line) onLine(line);
    }
  }
}

// captionHeight is the height the caption adds under an exported chart.
const captionHeight = 50;

// exportChart downloads ECharts chart c as name (PNG at twice its size,
// or SVG) with caption, which says what it shows, drawn under it: the
// same option, drawn again off screen with the caption and without the
// toolbox, the tooltip and any graphic but the one with id 'empty' (a
// chart's word for no data).
function exportChart(c, name, caption, format) {
  const T = theme();
  const w = c.getWidth(), h = c.getHeight() + captionHeight;
  const opt = c.getOption();
  opt.animation = false;
  opt.toolbox = [{ show: false }];
  opt.tooltip = [{ show: false }];
  opt.backgroundColor = T.card;
  opt.graphic = (opt.graphic && opt.graphic[0] ? opt.graphic[0].elements : []).filter(g => g.id === 'empty');
  opt.grid = (opt.grid || []).map(g => ({ ...g, bottom: (g.bottom === undefined ? 26 : Number(g.bottom)) + captionHeight }));
  if (opt.legend && opt.legend[0]) opt.legend = [{ ...opt.legend[0], bottom: captionHeight + 2 }];
  if (opt.visualMap) opt.visualMap = opt.visualMap.map(v => (v.bottom === undefined ? v : { ...v, bottom: Number(v.bottom) + captionHeight }));
  opt.title = [...(opt.title || []).slice(0, 1), { text: caption, left: 8, bottom: 4,
    textStyle: { fontSize: 10.5, fontWeight: 'normal', color: T.muted, width: w - 16, overflow: 'break', lineHeight: 14 } }];
  if (format === 'svg') {
    const svg = echarts.init(null, null, { renderer: 'svg', ssr: true, width: w, height: h });
    svg.setOption(opt);
    download(name, svg.renderToSVGString(), 'image/svg+xml');
    svg.dispose();
    return;
  }
  const x = echarts.init(document.createElement('div'), null, { renderer: 'canvas', width: w, height: h });
  x.setOption(opt);
  const url = x.getDataURL({ type: 'png', pixelRatio: 2, backgroundColor: T.card });
  x.dispose();
  // A data URL's bytes, without fetch (the page may connect to itself only).
  const bin = atob(url.slice(url.indexOf(',') + 1));
  download(name, Uint8Array.from(bin, ch => ch.charCodeAt(0)), 'image/png');
}

export { $, $$, readJSON, attr, el, plain, fmt, sig, thousands, rate, dur, count, durAxis, unitOf, DUR_STEPS, timeStep, ICONS, fitLegend, resizeWithBox, halfWindow, meanAround, theme, onThemeChange, download, readLines, exportChart };
