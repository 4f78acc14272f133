// backofflab playground: the charts, one per chart row and lane, made from
// the options the server embeds (web/scene/charts.go): their axes, toolbox,
// toggles, help and tooltips.

import { $, $$, attr, el, dur, durAxis, unitOf, DUR_STEPS, ICONS, fitLegend, resizeWithBox } from './common.js';
import { BASE, CHART_IDS, COL, LABEL, LETTERS, NC, SPEC, T, TIME_CHARTS, delays, duration, laneCount, requests, rows } from './play-state.js';
import { SMI, SMN, binLabel, drawDelays, drawRequests, markDirty, srows } from './play-draw.js';
import { exportImage, exportRequests } from './play-exports.js';

// The charts and their options are this module's: it alone makes the
// charts and changes their options, which the others read.
export const charts = {}; // "chart.letter" → ECharts instance
// Each chart row's options, set from its toolbox: a log scale, y axes
// shared by the lanes (true), each lane's own (false) or, by default
// (null), shared while the lanes' peaks are within the row's share_ratio
// of each other (play-draw.js: shareAxes), 1 s smoothing, the help shown.
export const view = Object.fromEntries(CHART_IDS.map(k => [k, { log: false, shared: null, smooth: !!SPEC[k].smooth, help: false }]));

// niceSteps are the steps a count's axis may take near v: 1, 2, 2.5 and 5
// times its power of ten.
function niceSteps(v) {
  const e = 10 ** Math.floor(Math.log10(v));
  return [1, 2, 2.5, 5, 10].map(m => m * e);
}

// niceAxis returns a y axis' maximum and step for values up to v, with
// headroom (a line at the maximum would hide in the frame), null to let
// ECharts choose; on a log axis, the next power of ten.
export function niceAxis(v, unit, log) {
  if (!(v > 0)) return { max: null, interval: null };
  if (log) return { max: 10 ** Math.ceil(Math.log10(v * 1.05)), interval: null };
  const top = v * 1.05;
  const steps = unit === 's' ? DUR_STEPS : niceSteps(top / 5).concat(niceSteps(top / 5).map(s => s * 10));
  const step = steps.find(s => top / s <= 5) || steps[steps.length - 1];
  return { max: Math.ceil(top / step) * step, interval: step };
}

// timeAxis is the x axis of time chart c: the run's duration, in steps
// that read as durations, as many as its plot's width holds without two
// labels touching (a phone's chart has room for three).
export function timeAxis(c) {
  return { max: duration, interval: timeInterval(c), axisLabel: { hideOverlap: true, formatter: v => durAxis(v, duration) } };
}

// LABEL_FONT is the font ECharts draws axis labels in; ANNOT_FONT the
// annotations'.
const LABEL_FONT = '12px sans-serif';
export const ANNOT_FONT = '10px sans-serif';

// textWidth is the width in pixels of text drawn in font.
export const textWidth = (() => {
  const ctx = document.createElement('canvas').getContext('2d');
  return (text, font) => {
    ctx.font = font;
    return ctx.measureText(text).width;
  };
})();

// plotRect is the rectangle of chart c's plot, in its pixels, or null
// before ECharts has laid it out.
export function plotRect(c) {
  const g = c && c.getModel() && c.getModel().getComponent('grid', 0);
  return g && g.coordinateSystem ? g.coordinateSystem.getRect() : null;
}

// timeInterval is the step of a time axis over the run's duration whose
// labels, measured, fit chart c's plot with a gap between each two: at
// most six, fewer on a narrow chart.
function timeInterval(c) {
  const r = plotRect(c);
  const width = r ? r.width : c ? c.getWidth() - 70 : 600;
  for (const step of DUR_STEPS) {
    const n = Math.floor(duration / step + 1e-9);
    if (n > 6) continue;
    let widest = 0;
    for (let k = 0; k <= n; k++) widest = Math.max(widest, textWidth(durAxis(k * step, duration), LABEL_FONT));
    if (n === 0 || width / (duration / step) >= widest + 12) return step;
  }
  return DUR_STEPS[DUR_STEPS.length - 1];
}

// fitLayout fits chart c's legend and axes to its size: the legend wraps
// onto as many lines as it needs (it never pages: every line stays named
// on screen) and the plot makes room for them; the time axis takes the
// steps its width holds.
function fitLayout(c, id) {
  fitLegend(c);
  // The plot's width moved with the grid: the steps are measured in it.
  if (SPEC[id].x === 'time') c.setOption({ xAxis: [{ interval: timeInterval(c) }] }, { lazyUpdate: true });
}

// ---- lanes and charts ----------------------------------------------------

export function forCharts(fn) {
  for (const [key, c] of Object.entries(charts)) {
    const [id, L] = key.split('.');
    if (LETTERS.indexOf(L) < laneCount()) fn(c, id, LETTERS.indexOf(L));
  }
}

export function showLanes(n) {
  $$('[data-lane-col]').forEach((el, i) => (el.hidden = i >= n));
  $$('[data-lane-panel]').forEach((el, i) => (el.hidden = i >= n));
  $$('[data-lane-library]').forEach((el, i) => (el.hidden = i >= n));
  $$('[data-lane-skip]').forEach((el, i) => (el.hidden = i >= n));
  $('#lane-count').textContent = n;
  $('[data-param="lanes"]').value = n;
  $('#lane-add').disabled = n >= LETTERS.length;
  $('#lane-remove').disabled = n <= 1;
  // Charts are made when their lane first shows: ECharts needs a size.
  for (let i = 0; i < n; i++) for (const id of CHART_IDS) ensureChart(id, i);
}

// themed is the part of a chart's option that the theme colours.
export function themed(id) {
  const axis = { axisLabel: { color: T.muted }, axisLine: { lineStyle: { color: T.line } }, splitLine: { lineStyle: { color: T.line } } };
  return {
    backgroundColor: T.card, // the PNG and SVG exports keep the scheme
    title: [{ textStyle: { color: T.fg } }],
    legend: [{ inactiveColor: T.level, pageTextStyle: { color: T.fg }, pageIconColor: T.fg, pageIconInactiveColor: T.muted, textStyle: { color: T.fg, rich: { l: { color: T.fg, fontSize: 11 }, n: { color: T.muted, fontSize: 10, fontFamily: 'monospace' } } } }],
    xAxis: [axis],
    toolbox: [{ iconStyle: { borderColor: T.muted } }],
    tooltip: [{ backgroundColor: T.card, borderColor: T.line, textStyle: { color: T.fg } }],
    // The faults' shading rides on a time chart's first series.
    ...(TIME_CHARTS.includes(id) ? { series: [{ markArea: { label: { color: T.faultLabel } } }] } : {}),
  };
}

// The toolbox's buttons: each acts on its chart's row, every lane alike.
function toolbox(id, i, c) {
  const spec = SPEC[id];
  const f = {
    myPng: { show: true, title: 'PNG', icon: ICONS.png, onclick: () => exportImage(c, id, i, 'png') },
    mySvg: { show: true, title: 'SVG', icon: ICONS.svg, onclick: () => exportImage(c, id, i, 'svg') },
  };
  // A latency chart's bins, which no other export holds, as CSV.
  if (spec.x === 'latency') f.myCsv = { show: true, title: 'CSV', icon: ICONS.csv, onclick: () => exportRequests(i) };
  if (spec.log) f.myLog = { show: true, icon: ICONS.log, onclick: () => toggle(id, 'log') };
  f.myShare = { show: true, icon: ICONS.share, onclick: () => toggle(id, 'shared') };
  if (spec.smooth) f.mySmooth = { show: true, icon: ICONS.smooth, onclick: () => toggle(id, 'smooth') };
  f.myHelp = { show: true, icon: ICONS.help, onclick: () => toggle(id, 'help') };
  for (const [k, v] of Object.entries(toolboxState(id))) Object.assign(f[k], v);
  return f;
}

// toolboxState is what the toggles say: the action each offers, and a
// highlighted icon while its option is on.
function toolboxState(id) {
  const v = view[id];
  const on = b => ({ iconStyle: { borderColor: b ? T.accent : T.muted, borderWidth: b ? 1.6 : 1 } });
  const s = {
    myShare: { title: shareTitle(id), ...on(v.shared === true) },
    myHelp: { title: v.help ? 'hide what this chart shows' : 'what this chart shows', ...on(v.help) },
  };
  if (SPEC[id].log) s.myLog = { title: v.log ? 'linear scale' : 'log scale', ...on(v.log) };
  if (SPEC[id].smooth) s.mySmooth = { title: v.smooth ? 'every tick (no averaging)' : '1 s average', ...on(v.smooth) };
  return s;
}

// shareTitle is what the share button offers: while the row follows the
// lanes' ranges (shared null), to force the other way.
function shareTitle(id) {
  const v = view[id].shared;
  if (v === true) return 'one y axis for every lane (click: let the ranges decide)';
  if (v === false) return 'each lane its own y axis (click: let the ranges decide)';
  return 'y axes shared when the lanes\' ranges allow (click: always one)';
}

function toggle(id, what) {
  // The share button cycles: let the ranges decide, always one axis,
  // each lane its own.
  if (what === 'shared') view[id].shared = view[id].shared == null ? true : view[id].shared ? false : null;
  else view[id][what] = !view[id][what];
  forCharts((c, k, i) => {
    if (k !== id) return;
    const o = { toolbox: [{ feature: toolboxState(id) }], graphic: helpGraphic(id, c) };
    if (what === 'smooth') Object.assign(o, sourceOf(id, i));
    c.setOption(o);
  });
  redraw(id);
}

// redraw draws chart row id again from what the page holds: a time
// chart at the next frame, the others from their messages now.
function redraw(id) {
  if (SPEC[id].x === 'retry') drawDelays();
  else if (SPEC[id].x === 'latency') drawRequests();
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

// plotTop is where chart c's plot starts: below its title (below its
// toolbox on a phone), and below the note that the lanes' y axes differ
// when it shows (the 'scale' graphic, under the toolbox's icons: 26 px
// from the top, 38 on a phone).
export function plotTop(c, note) {
  const narrow = c.getDom().clientWidth < 320;
  return note ? (narrow ? 62 : 44) : narrow ? 52 : 30;
}

// helpGraphic shows (or hides) the chart's description over it.
function helpGraphic(id, c) {
  const w = c ? c.getWidth() : 300;
  return [{ id: 'help', type: 'text', left: 12, top: 28, z: 100, invisible: !view[id].help, silent: true,
    style: { text: SPEC[id].help, width: Math.max(120, w - 40), overflow: 'break', fill: T.fg, font: '12px sans-serif',
      backgroundColor: T.card, borderColor: T.line, borderWidth: 1, borderRadius: 6, padding: [6, 8], lineHeight: 16 } }];
}

export function ensureChart(id, i) {
  const L = LETTERS[i];
  const key = `${id}.${L}`;
  if (charts[key]) return charts[key];
  const dom = $(`.chart${attr('data-chart', id)}${attr('data-lane', L)}`);
  if (dom.hidden) return null; // a chart the lane leaves out: ECharts needs a size
  const c = echarts.init(dom);
  const opt = structuredClone(BASE[id]);
  const spec = SPEC[id];
  const narrow = dom.clientWidth < 320;
  if (narrow) {
    // A phone's narrow chart has no room for its title beside the
    // toolbox: the title goes below it, and the plot below the title.
    const first = v => (Array.isArray(v) ? v[0] : v);
    first(opt.title).top = 20;
    first(opt.grid).top = plotTop(c, '');
  }
  // Custom toolbox features need functions, which the JSON from the
  // server cannot carry.
  Object.assign(opt.toolbox, { itemSize: 13, itemGap: 7, feature: toolbox(id, i, c) });
  if (spec.x !== 'time') {
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
    Object.assign(opt.xAxis[0], timeAxis(null));
    // The first series carries the fault windows and the annotations.
    Object.assign(opt.series[0], {
      markLine: { symbol: ['none', 'none'], silent: true, animation: false, data: [] },
    });
  }
  // The legend names each line in words; its vocabulary name shows
  // beside it on hover, as in the tooltip (a quarter of the page holds
  // four labels, not four labels and four names). A screen worked by a
  // finger (a phone) shows none: a tap toggles the line and would leave
  // the tooltip standing, with no pointer to move away.
  Object.assign(opt.legend, {
    itemGap: 8, itemWidth: 10, width: Math.max(60, dom.clientWidth - 16),
    formatter: name => (LABEL[id][name] ? LABEL[id][name].label : name),
    tooltip: { show: !matchMedia('(pointer: coarse)').matches, formatter: p => (LABEL[id][p.name] && LABEL[id][p.name].name ? `${LABEL[id][p.name].label}: ${LABEL[id][p.name].name}` : p.name) },
  });
  opt.yAxis.forEach((a, k) => (a.axisLabel.formatter = v => unitOf(spec.units[k]).axis(v)));
  // Tooltips are DOM nodes: the default one is HTML with inline styles,
  // which the page's Content-Security-Policy blocks.
  // ECharts' confine keeps a tooltip inside its chart only, and a phone's
  // chart is narrower than its tooltip: the tooltip is placed in the
  // viewport instead.
  Object.assign(opt.tooltip, { confine: false, className: 'chart-tip', formatter: ps => tooltip(id, i, ps), position: tipPosition(c) });
  // 'scale' says when the lanes' y axes are not shared (play-draw.js), at
  // the right, under the toolbox: over the plot's top on a phone, above
  // it elsewhere.
  opt.graphic = [{ id: 'empty', type: 'text', left: 'center', top: 'middle', invisible: true, silent: true,
    style: { text: spec.empty, fill: T.muted, font: '12px sans-serif' } },
  { id: 'scale', type: 'text', right: 8, top: narrow ? 38 : 26, invisible: true, silent: true,
    style: { text: '', fill: T.muted, font: ANNOT_FONT } }].concat(helpGraphic(id, c));
  // Each setOption that is not lazy lays the whole chart out again: the
  // chart is laid out once here, when its legend is measured (fitLayout),
  // and once more at the next frame, not once per call.
  c.setOption(opt, { lazyUpdate: true });
  c.setOption(themed(id), { lazyUpdate: true });
  charts[key] = c;
  resizeWithBox(dom);
  fitLayout(c, id);
  // A ResizeObserver reports each element once when it starts observing
  // it: the size just laid out is not a change.
  let laidOut = [dom.clientWidth, dom.clientHeight];
  new ResizeObserver(() => {
    if (dom.clientWidth === laidOut[0] && dom.clientHeight === laidOut[1]) return;
    laidOut = [dom.clientWidth, dom.clientHeight];
    fitLayout(c, id);
    markDirty(); // the annotations are placed again in the new size
    if (SPEC[id].x === 'latency') drawRequests(); // its sentence wraps to the new width
  }).observe(dom);
  hideLegendTips(c);
  redraw(id);
  return c;
}

// tipPosition places chart c's tooltip beside the pointer, on the side
// with room, and inside the viewport: right of and below the pointer,
// else left of or above it, and never past an edge.
function tipPosition(c) {
  return (point, _params, _dom, _rect, size) => {
    const r = c.getDom().getBoundingClientRect();
    const [w, h] = size.contentSize;
    const vw = document.documentElement.clientWidth, vh = window.innerHeight, pad = 4;
    const place = (p, len, lo, view) => {
      let a = lo + p + 12;
      if (a + len > view - pad) a = lo + p - 12 - len;
      return Math.min(Math.max(a, pad), Math.max(pad, view - pad - len)) - lo;
    };
    return [place(point[0], w, r.left, vw), place(point[1], h, r.top, vh)];
  };
}

// hideLegendTips hides a legend item's tooltip once the pointer leaves
// the item, or the item is tapped: ECharts shows it on mouseover and,
// left to itself, keeps it after a finger's tap (which toggles the line
// and leaves no pointer to move away) and after the pointer has gone.
function hideLegendTips(c) {
  const hide = () => c.dispatchAction({ type: 'hideTip' });
  c.on('mouseout', { component: 'legend' }, hide);
  c.on('globalout', hide);
  c.on('legendselectchanged', () => setTimeout(hide, 0));
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
  if (spec.x === 'latency') {
    const l = requests && requests.lanes[i];
    const k = ps[0].dataIndex;
    if (!l || k < 0 || k >= l.ended.length) return '';
    box.append(el('div', { className: 'tip-head', textContent: `lane ${LETTERS[i]} · ${binLabel(requests.edges, k)}` }));
    spec.series.forEach((sp, j) => {
      const s = LABEL[id][BASE[id].series[j].name];
      box.append(line(sp.color, s.label, '', unitOf('').tip(l[sp.name][k])));
    });
    return box;
  }
  if (spec.x === 'retry') {
    const b = delays[i];
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
