// backofflab playground: the ticks as they arrive, their 1 s averages
// (common.js), and drawing them at most once a frame, with the fault
// windows, the marks and levels, the clock and the verdicts; the retry
// charts' bands; and the latency charts' bins.

import { $, fmt, dur, unitOf, halfWindow, meanAround } from './common.js';
import { BASE, COL, LATENCY_CHARTS, LETTERS, NC, RETRY_CHARTS, SPEC, T, TIME_CHARTS, delays, duration, faultKinds, laneCount, lastState, marks, plan, requests, rows, takeTicks, tickLen } from './play-state.js';
import { ANNOT_FONT, charts, niceAxis, plotRect, plotTop, textWidth, view } from './play-charts.js';
import { showVerdicts } from './play-explain.js';

// ---- ticks ---------------------------------------------------------------
// The 1 s averages of the columns of the charts that smooth (rates and
// percentiles): srows[r] is [t, lane a's averages…, lane b's…], each over
// the ticks within half a second of row r (fewer at the live edge, where
// the next rows redo it).
const SM_COLS = [...new Set(TIME_CHARTS.filter(id => SPEC[id].smooth).flatMap(id => SPEC[id].series.map(s => COL[s.name])))];
export const SMN = SM_COLS.length;
export const SMI = Object.fromEntries(SM_COLS.map((c, k) => [c, k]));
export let srows = [];
let maxes = []; // per lane: "chart/axis" (and "chart/axis/s" for the averages) → highest value so far
// seen[lane][chart] is the t of the chart's latest value; no entry: none yet.
let seen = [];

// restartDrawing forgets the averages and peaks drawn so far, for a run of
// n lanes that starts over.
export function restartDrawing(n) {
  srows = [];
  maxes = Array.from({ length: n }, () => ({}));
  seen = Array.from({ length: n }, () => ({}));
}

export function addRows(ticks) {
  const from = takeTicks(ticks);
  const n = Math.min(maxes.length, laneCount());
  for (const row of ticks) {
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

export function markDirty() {
  dirty = true;
  if (!framePending) {
    framePending = true;
    requestAnimationFrame(draw);
  }
}

const currentT = () => Math.max(rows.length ? rows[rows.length - 1][0] : 0, lastState ? lastState.t : 0);

// axisMax is the highest value lane i's chart id shows on axis a so far:
// its data (averaged when the chart is) and the levels drawn on it.
export function axisMax(i, id, a) {
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

// shareAxes says, for each y axis of chart row id, whether its lanes
// share it, given each lane's peak on it (own[lane][axis]): as the row's
// toggle says, else by default when the peaks of the lanes that have one
// are within the row's share ratio of each other (or the axis is
// logarithmic, which spans the decades). ratio is the peaks' ratio where
// they are not shared.
function shareAxes(id, own) {
  return SPEC[id].units.map((_, a) => {
    const peaks = own.map(m => m[a]).filter(v => v > 0);
    const ratio = peaks.length > 1 ? Math.max(...peaks) / Math.min(...peaks) : 1;
    const v = view[id].shared;
    const share = v != null ? v : view[id].log || ratio <= SPEC[id].share_ratio;
    return { share, ratio, forced: v != null };
  });
}

// scaleNote is what chart row id says on each lane's chart when its lanes
// do not share a y axis: that equal heights are not equal values.
function scaleNote(id, axes) {
  const apart = axes.filter(a => !a.share);
  if (!apart.length || laneCount() < 2) return '';
  if (apart.every(a => a.forced)) return 'own y axis per lane';
  return `own y axis: peaks ${fmt(Number(Math.max(...apart.map(a => a.ratio)).toPrecision(2)))}× apart`;
}

// annotations are the marks and levels of lane i on chart c of row id,
// and the fault windows' shading (shade), with their labels placed so
// that no two overlap: a label that would touch one placed before it is
// dropped (its line or window stays, and the fault's name is in the
// status line). Marks, which decide the outcome, are placed first, then
// levels, then the faults' names.
function annotations(c, id, i, shade) {
  const lines = [];
  const r = plotRect(c);
  const placed = [];
  const fits = box => {
    if (!r) return true; // not laid out yet: the next frame places them
    const inside = box.x >= r.x - 1 && box.x + box.w <= r.x + r.width + 1 && box.y >= r.y - 1 && box.y + box.h <= r.y + r.height + 1;
    if (!inside || placed.some(p => box.x < p.x + p.w && p.x < box.x + box.w && box.y < p.y + p.h && p.y < box.y + box.h)) return false;
    placed.push(box);
    return true;
  };
  const px = (x, y) => c.convertToPixel({ gridIndex: 0 }, [x, y]);
  const gap = 3;
  for (const m of marks.marks) {
    // A live change is marked on every chart of its lane ('*').
    if (m.lane !== i || (m.chart !== id && m.chart !== '*')) continue;
    // A mark's label runs up along its line, from the plot's top down,
    // left of the line.
    const w = textWidth(m.label, ANNOT_FONT);
    const x = r ? px(m.t, 0)[0] : 0;
    const show = fits({ x: x - 12 - gap, y: r ? r.y : 0, w: 12 + gap, h: w + 2 * gap });
    lines.push({ xAxis: m.t, name: m.label, lineStyle: { color: T.mark, type: 'dashed', width: 1.2 },
      label: { show, formatter: m.label, position: 'insideEndTop', color: T.mark, fontSize: 10 } });
  }
  for (const l of marks.levels) {
    if (l.lane !== i || l.chart !== id) continue;
    // A level's label sits above its line, at the plot's left.
    const w = textWidth(l.label, ANNOT_FONT);
    const y = r ? px(0, l.value)[1] : 0;
    const show = fits({ x: r ? r.x : 0, y: y - 12 - gap, w: w + 2 * gap, h: 12 + gap });
    lines.push({ yAxis: l.value, name: l.label, lineStyle: { color: T.level, type: 'dotted', width: 1.2 },
      label: { show, formatter: l.label, position: 'insideStartTop', color: T.muted, fontSize: 10 } });
  }
  const areas = shade.map(([s, e]) => {
    // A window's name sits at its top, centred.
    const w = textWidth(s.name, ANNOT_FONT);
    const mid = r ? (px(s.xAxis, 0)[0] + px(e.xAxis, 0)[0]) / 2 : 0;
    const show = fits({ x: mid - w / 2 - gap, y: r ? r.y : 0, w: w + 2 * gap, h: 12 + 2 * gap });
    return [{ ...s, label: { show } }, e];
  });
  return { lines, areas };
}

// emptyText is chart c's word for no data as it fits the plot: on one
// line, or broken before its time where the plot is narrower than the
// line (a phone's latency chart), so that it never runs over the y axis'
// labels.
function emptyText(c, text) {
  const r = plotRect(c);
  if (!r || !text || textWidth(text, '12px sans-serif') + 4 <= r.width) return text;
  return text.replace(/ (t = )/, '\n$1');
}

// emptyLeft is where chart c's word for no data (as emptyText broke it)
// starts: centred on the plot, clear of the y axis' labels.
function emptyLeft(c, text) {
  const r = plotRect(c);
  if (!r || !text) return 'center';
  const w = Math.max(...text.split('\n').map(l => textWidth(l, '12px sans-serif')));
  return r.x + Math.max(2, (r.width - w) / 2);
}

// emptyGraphic is the graphic of chart c's word for no data.
function emptyGraphic(c, empty) {
  const text = emptyText(c, empty);
  return { id: 'empty', invisible: !empty, left: emptyLeft(c, text), style: { text, fill: T.muted } };
}

// placement says which of annotations a's labels show.
const placement = a => a.lines.map(l => (l.label.show ? 1 : 0)).concat(a.areas.map(w => (w[0].label.show ? 1 : 0))).join('');

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
    return [{ xAxis: s, name: ahead ? `${faultWord(kind)} in ${dur(s - t, 2)}` : faultWord(kind), itemStyle: { color, opacity: ahead ? 0.45 : 1 } }, { xAxis: e }];
  });
  const n = Math.min(laneCount(), maxes.length);
  for (const id of TIME_CHARTS) {
    const spec = SPEC[id];
    const own = [];
    for (let i = 0; i < n; i++) own.push(spec.units.map((_, a) => axisMax(i, id, a)));
    const top = spec.units.map((_, a) => Math.max(0, ...own.map(m => m[a])));
    const axes = shareAxes(id, own);
    const note = scaleNote(id, axes);
    for (let i = 0; i < n; i++) {
      const c = charts[`${id}.${LETTERS[i]}`];
      if (!c) continue;
      const max = axes.map((x, a) => (x.share ? top[a] : own[i][a]));
      const ann = annotations(c, id, i, shade);
      const last = seen[i] && seen[i][id];
      // A chart with no value says so; one whose gaps mean "none" says
      // since when, once that lasts.
      let empty = last == null ? spec.empty : '';
      if (!empty && spec.gaps && t - last >= 5) empty = `none since t = ${dur(last, 3)}`;
      c.setOption({
        dataset: { source: view[id].smooth ? srows : rows },
        series: [{ id: spec.series[0].name, markArea: { data: ann.areas }, markLine: { data: ann.lines } }],
        yAxis: spec.units.map((_, a) => yAxis(id, a, max[a])),
        graphic: [emptyGraphic(c, empty), { id: 'scale', invisible: !note, style: { text: note, fill: T.muted } }],
        grid: [{ top: plotTop(c, note) }],
      });
      // The labels were placed in the layout before this frame's axes: when
      // the new axes move them (a higher maximum, wider tick labels), they
      // are placed again.
      const again = annotations(c, id, i, shade);
      if (placement(again) !== placement(ann)) {
        c.setOption({ series: [{ id: spec.series[0].name, markArea: { data: again.areas }, markLine: { data: again.lines } }] }, { lazyUpdate: true });
      }
      // So is the word for no data, which the new axes may have narrowed.
      // Both are drawn at the next frame, in one layout.
      if (empty) c.setOption({ graphic: [emptyGraphic(c, empty)] }, { lazyUpdate: true });
    }
  }
  drawStatus(t, ov);
}

function drawStatus(t, ov) {
  const done = lastState && lastState.done;
  const next = ov.next ? ` · ${faultWord(ov.next.kind)} in ${dur(ov.next.at - t, 2)}` : '';
  $('#clock').textContent = `t = ${t.toFixed(1)} s / ${fmt(duration)} s${done ? ' · done' : next}`;
  const out = $('#outage');
  out.textContent = ov.down ? 'Resume server' : 'Stop server';
  out.dataset.down = ov.down ? 'true' : 'false';
  showVerdicts();
}

// faultWord names a fault window on the page: one that stops the server
// is an outage, whatever its kind (a pause, a crash, a partition), so that
// it is never called a pause beside the playback's Pause.
const faultWord = kind => (faultKinds[kind] && faultKinds[kind].outage ? 'outage' : kind.replace(/_/g, ' '));

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
// delays message: the band is an invisible p5 series with (p95 − p5)
// stacked on it.
const BAND_DATA = {
  p5: (b, at) => b.retry.map((_, j) => at(b.p5, j)),
  band: (b, at) => b.retry.map((_, j) => at(b.p95, j) - at(b.p5, j)),
  p50: (b, at) => b.retry.map((_, j) => at(b.p50, j)),
};

// drawDelays redraws the retry charts from the lanes' delays messages.
export function drawDelays() {
  const top = b => (b ? Math.max(0, ...b.p95) : 0);
  const all = Math.max(0, ...delays.map(top));
  for (const id of RETRY_CHARTS) {
    const spec = SPEC[id];
    const log = view[id].log;
    const floor = log ? 1e-3 : 0; // a log axis cannot show 0
    const axes = shareAxes(id, delays.slice(0, laneCount()).map(b => [top(b)]));
    const note = scaleNote(id, axes);
    for (let i = 0; i < laneCount(); i++) {
      const c = charts[`${id}.${LETTERS[i]}`];
      const b = delays[i];
      if (!c || !b) continue;
      const at = (arr, j) => Math.max(arr[j], floor);
      const nice = niceAxis(Math.max(axes[0].share ? all : top(b), floor), spec.units[0], log);
      c.setOption({
        graphic: [{ id: 'empty', invisible: b.retry.length > 0, style: { text: spec.empty, fill: T.muted } },
          { id: 'scale', invisible: !note, style: { text: note, fill: T.muted } }],
        grid: [{ top: plotTop(c, note) }],
        xAxis: [{ data: b.retry }],
        yAxis: [{ ...BASE[id].yAxis[0], type: log ? 'log' : 'value', min: log ? null : 0, max: nice.max, interval: nice.interval,
          axisLabel: { ...BASE[id].yAxis[0].axisLabel, color: T.muted, formatter: v => unitOf(spec.units[0]).axis(v, nice.max || 0) } }],
        series: spec.series.map(s => ({ id: s.name, data: BAND_DATA[s.name](b, at) })),
      });
    }
  }
}

// ---- the latency charts ---------------------------------------------------
// A latency chart's x axis places bin k of the requests message from k to
// k+1: position k+1 is the bin's upper edge, edges[k], and 0 is no wait.

// binLabel names bin k of edges by its latencies: "up to 1 ms", "1 ms – 2 ms".
export function binLabel(edges, k) {
  return k === 0 ? `up to ${dur(edges[0])}` : `${dur(edges[k - 1])} – ${dur(edges[k])}`;
}

// latencyAt is where latency v (seconds) lies on the axis of edges: in
// its bin, by its logarithm between the bin's edges (the first bin, from
// 0, linearly), so that a mark sits where its value falls between two
// labels; at the axis' end past the last edge.
function latencyAt(edges, v) {
  const k = edges.findIndex(e => v <= e);
  if (k < 0) return edges.length;
  if (k === 0) return Math.max(0, v) / edges[0];
  return k + Math.log(v / edges[k - 1]) / Math.log(edges[k] / edges[k - 1]);
}

// requestMarks are lane l's lines on its latency chart: its p50, p99 and
// p99.9 dashed, and its patience solid, each labelled at the plot's top;
// a label that would touch one to its right is dropped (its line stays,
// and its figure is in the chart's sentence).
function requestMarks(c, edges, l) {
  const lines = [
    { v: l.patience, label: 'patience', color: T.bad, type: 'solid' },
    { v: l.p999, label: 'p99.9', color: T.mark, type: 'dashed' },
    { v: l.p99, label: 'p99', color: T.mark, type: 'dashed' },
    { v: l.p50, label: 'p50', color: T.mark, type: 'dashed' },
  ].filter(m => m.v > 0 && (m.label === 'patience' || l.ended.some(n => n > 0)));
  const r = plotRect(c);
  let left = Infinity; // the leftmost label placed so far, in pixels
  return lines.map(m => {
    const x = latencyAt(edges, m.v);
    const px = r ? c.convertToPixel({ gridIndex: 0 }, [x, 0])[0] : 0;
    const w = textWidth(m.label, ANNOT_FONT) + 4;
    const show = !r || px + 2 + w <= Math.min(left, r.x + r.width + 1);
    if (show) left = px;
    return { xAxis: x, name: m.label, lineStyle: { color: m.color, type: m.type, width: 1.2 },
      label: { show, formatter: m.label, position: 'insideEndTop', color: m.color, fontSize: 10 } };
  });
}

// drawRequests redraws the latency charts from the latest requests
// message: each lane's bins, its marks, and its sentence under the title
// and in its label for a screen reader.
export function drawRequests() {
  const m = requests;
  const edges = m ? m.edges : [];
  const lanesOf = i => (m && m.lanes[i]) || null;
  for (const id of LATENCY_CHARTS) {
    const spec = SPEC[id];
    const log = view[id].log;
    const tops = Array.from({ length: laneCount() }, (_, i) => [lanesOf(i) ? Math.max(0, ...lanesOf(i).ended) : 0]);
    const axes = shareAxes(id, tops);
    const note = scaleNote(id, axes);
    const all = Math.max(0, ...tops.map(t => t[0]));
    // The sentence takes lines of the chart's height: the row grows by the
    // most any lane's takes, so that its plots keep their height and
    // line up.
    const wrapped = Array.from({ length: laneCount() }, (_, i) => {
      const c = charts[`${id}.${LETTERS[i]}`];
      return c ? wrapText(lanesOf(i) ? lanesOf(i).sentence : '', SENTENCE_FONT, c.getWidth() - 20) : [];
    });
    const grow = `calc(var(--chart-h) + ${14 * Math.max(0, ...wrapped.map(w => w.length))}px)`;
    for (let i = 0; i < laneCount(); i++) {
      const c = charts[`${id}.${LETTERS[i]}`];
      if (!c) continue;
      if (c.getDom().style.height !== grow) c.getDom().style.height = grow;
      const l = lanesOf(i);
      const has = !!l && l.ended.some(n => n > 0);
      const sentence = l ? l.sentence : '';
      const nice = niceAxis(Math.max(axes[0].share ? all : tops[i][0], log ? 1 : 0), spec.units[0], log);
      // A log axis cannot show 0: an empty bin has no bar.
      const bars = name => (l ? l[name] : []).map((n, k) => [k + 0.5, log && n === 0 ? null : n]);
      // The sentence goes below the title and the toolbox, broken into
      // the lines the chart's width holds, and the plot below it.
      const top = plotTop(c, note);
      const lines = wrapped[i];
      const r = plotRect(c);
      const step = labelStep(edges, r ? r.width : c.getWidth() - 60);
      c.setOption({
        graphic: [emptyGraphic(c, has ? '' : spec.empty), { id: 'scale', invisible: !note, style: { text: note, fill: T.muted } },
          { id: 'sentence', type: 'text', left: 10, top, silent: true, invisible: !sentence,
            style: { text: lines.join('\n'), fill: T.fg, font: SENTENCE_FONT, lineHeight: 14 } }],
        grid: [{ top: top + 14 * lines.length + 6 }],
        xAxis: [{ min: 0, max: Math.max(1, edges.length), interval: 1,
          axisLabel: { ...BASE[id].xAxis[0].axisLabel, color: T.muted, hideOverlap: true,
            formatter: v => (v === 0 ? (step === 1 ? '0' : '') : v <= edges.length && (v - 1) % step === 0 ? dur(edges[v - 1]) : '') } }],
        yAxis: [{ ...BASE[id].yAxis[0], type: log ? 'log' : 'value', min: log ? 1 : 0, max: nice.max, interval: nice.interval,
          axisLabel: { ...BASE[id].yAxis[0].axisLabel, color: T.muted, formatter: v => unitOf(spec.units[0]).axis(v) } }],
        series: spec.series.map(s => ({ id: s.name, data: bars(s.name),
          markLine: s.name === 'ok' ? { symbol: ['none', 'none'], silent: true, animation: false, data: l ? requestMarks(c, edges, l) : [] } : undefined })),
      });
      c.getDom().setAttribute('aria-label', `lane ${LETTERS[i]}: ${spec.help}${sentence ? '. ' + sentence : ''}`);
    }
  }
}

// SENTENCE_FONT is the font of a latency chart's sentence.
const SENTENCE_FONT = '11px sans-serif';

// wrapText breaks text into lines of at most width pixels in font, at
// its spaces (a word wider than the width has a line of its own).
function wrapText(text, font, width) {
  if (!text) return [];
  const lines = [];
  let line = '';
  for (const word of text.split(' ')) {
    const next = line ? line + ' ' + word : word;
    if (line && textWidth(next, font) > width) {
      lines.push(line);
      line = word;
    } else line = next;
  }
  return lines.concat(line);
}

// labelStep is every how many edges a latency axis of edges over width
// pixels names one: every edge where they all fit with room between
// them, else the decades' (1 ms, 10 ms, …), else every other decade.
function labelStep(edges, width) {
  const widest = Math.max(0, ...edges.map(e => textWidth(dur(e), '12px sans-serif')));
  return [1, 3, 6].find(k => (Math.ceil(edges.length / k) + 1) * (widest + 12) <= width) || 9;
}
