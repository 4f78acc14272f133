// backofflab playground: the live picture of each lane's system, beside its
// charts, drawn from the same ticks (the rows the socket brought), never
// from a simulation of its own. Left, the clients: a crowd of dots, each
// standing for as many clients as fit, hollow while they think, filled while
// they wait for an answer, square while they wait to retry. Right, the
// server: its workers and its queue (a queue server), or its load against
// the level it is healthy at (a latency curve), and the connections a
// paused server leaves in its accept backlog. Between them the attempts
// flow in, the answers flow back, and the attempts the clients gave up on
// fall away as crosses. A retry storm is a crowd of squares and a queue that
// stays full; a recovery, a crowd of hollow dots and a queue that drains.
//
// It draws on a canvas (no inline style: the Content-Security-Policy), with
// the page's colours (theme), shapes besides colours, and no movement
// between ticks when the reader asks for reduced motion. Each lane's
// sentence below its picture says the same in words, drawn with it from
// the same tick; a live region out of sight (aria-live polite) says it to
// a screen reader at most every few seconds, so that it is not flooded.
//
// What the picture needs besides the ticks, picture, is play-state.js's,
// set from hello and params.

import { dur, onThemeChange, download, thousands as picCount, rate as picRate } from './common.js';
import { COL, LETTERS, NC, T, laneCount, lanes, lastState, picture, rows, tickLen } from './play-state.js';
import { captionOf } from './play-exports.js';

const picReduce = matchMedia('(prefers-reduced-motion: reduce)');
// picSpeakEvery is the least time between two sentences of one lane's
// live region, in milliseconds.
const picSpeakEvery = 5000;
// picMaxDots bounds the crowd's dots: beyond it a dot stands for several
// clients, so 20 000 clients cost what 600 do.
const picMaxDots = 600;
// picMaxSlots bounds the workers drawn one by one.
const picMaxSlots = 64;
// picMaxFlow bounds the marks on one flow: a rate's marks grow as its
// square root, and its number says the rest.
const picMaxFlow = 36;

// picStats measures the picture's drawing, for the browser benchmark:
// frames drawn, their total and their worst time in milliseconds, and the
// times of the last 256.
export const picStats = { frames: 0, total: 0, worst: 0, times: new Float64Array(256) };
const picLanes = []; // per lane: {canvas, ctx, text, live, w, h, dpr, said, saidAt, peak}
let picClock = 0; // seconds of animation, advanced while the run plays
let picLastNow = 0;
let picSeenRows = -1;
let picSeenFirst = null;

// picLane returns lane i's canvas and its bookkeeping, made when first
// needed.
function picLane(i) {
  if (picLanes[i]) return picLanes[i];
  const canvas = document.querySelector(`canvas[data-picture="${LETTERS[i]}"]`);
  if (!canvas) return null;
  const l = { canvas, ctx: canvas.getContext('2d'), text: document.querySelector(`[data-picture-text="${LETTERS[i]}"]`),
    live: document.querySelector(`[data-picture-live="${LETTERS[i]}"]`), w: 0, h: 0, dpr: 1, said: '', saidAt: -Infinity, peak: 0 };
  // The sentence the page rendered is not one said yet: the first with
  // numbers is said at once.
  if (l.live) l.said = l.live.textContent;
  new ResizeObserver(() => picFit(l)).observe(canvas);
  picFit(l);
  picLanes[i] = l;
  return l;
}

// picFit sizes a canvas's bitmap to its box at the screen's pixel ratio.
// A canvas narrower than picNarrow is marked stacked: style.css gives it
// the height of picDraw's stacked parts (a resize that follows calls
// picFit again).
function picFit(l) {
  const stacked = l.canvas.getBoundingClientRect().width < picNarrow;
  if (stacked !== l.canvas.hasAttribute('data-stacked')) l.canvas.toggleAttribute('data-stacked', stacked);
  const r = l.canvas.getBoundingClientRect();
  l.dpr = Math.min(2, window.devicePixelRatio || 1);
  l.w = Math.round(r.width);
  l.h = Math.round(r.height);
  l.canvas.width = Math.max(1, Math.round(l.w * l.dpr));
  l.canvas.height = Math.max(1, Math.round(l.h * l.dpr));
  picDirty = true;
}
let picDirty = true;

// picState is lane i's state at the latest row: levels at its end, rates
// over about the last second (the rows of that second averaged), or null
// before the first row; halted for a stopped lane.
function picState(i) {
  if (!rows.length) return null;
  const off = 1 + i * NC;
  const last = rows[rows.length - 1];
  if (last.length < off + NC) return null;
  const lv = name => last[off + COL[name]];
  if (lv('concurrency') == null) return { halted: true };
  const k = Math.max(1, Math.min(rows.length, Math.round(1 / (tickLen || 0.1))));
  const mean = name => {
    let s = 0, n = 0;
    for (let r = rows.length - k; r < rows.length; r++) {
      const v = rows[r][off + COL[name]];
      if (v != null) {
        s += v;
        n++;
      }
    }
    return n ? s / n : 0;
  };
  const alive = lv('alive'), backoff = lv('in_backoff'), inside = lv('concurrency'), queued = lv('queued');
  return {
    thinking: lv('thinking'), backoff, flight: alive - backoff, alive,
    inside, queued, service: inside - queued, accept: lv('backlog') - queued, latency: lv('server_latency'),
    attempts: mean('attempts'), retries: mean('retries'), ok: mean('ok'), errors: mean('errors'), timeouts: mean('timeouts'),
  };
}

// picShares splits n dots among counts in proportion (largest remainder),
// so that the dots add up to n exactly.
function picShares(counts, n) {
  const total = counts.reduce((a, b) => a + b, 0);
  if (!total) return counts.map(() => 0);
  const exact = counts.map(c => (c * n) / total);
  const out = exact.map(Math.floor);
  let left = n - out.reduce((a, b) => a + b, 0);
  const order = exact.map((e, j) => [e - Math.floor(e), j]).sort((a, b) => b[0] - a[0]);
  for (let j = 0; left > 0; j++, left--) out[order[j % order.length][1]]++;
  return out;
}

// picFlow is how many marks a flow of rate per second shows.
const picFlow = rate => (rate > 0 ? Math.min(picMaxFlow, Math.max(1, Math.round(Math.sqrt(rate) * 1.2))) : 0);

// picShape draws one mark of a kind at (x, y) of size r.
function picShape(c, kind, x, y, r) {
  switch (kind) {
    case 'hollow':
      c.moveTo(x + r, y);
      c.arc(x, y, r, 0, 2 * Math.PI);
      return;
    case 'dot':
      c.moveTo(x + r, y);
      c.arc(x, y, r, 0, 2 * Math.PI);
      return;
    case 'square':
      c.rect(x - r, y - r, 2 * r, 2 * r);
      return;
    case 'triangle':
      c.moveTo(x + r, y);
      c.lineTo(x - r, y - r);
      c.lineTo(x - r, y + r);
      c.closePath();
      return;
    case 'cross':
      c.moveTo(x - r, y - r);
      c.lineTo(x + r, y + r);
      c.moveTo(x + r, y - r);
      c.lineTo(x - r, y + r);
      return;
  }
}

// picMarks draws marks of one kind at the points (xs[j], ys[j]), as one
// path: one fill or stroke per kind, however many marks.
function picMarks(c, kind, color, pts, r) {
  if (!pts.length) return;
  c.beginPath();
  for (const [x, y] of pts) picShape(c, kind, x, y, r);
  if (kind === 'hollow' || kind === 'cross') {
    c.strokeStyle = color;
    c.lineWidth = kind === 'cross' ? 1.6 : 1.1;
    c.stroke();
  } else {
    c.fillStyle = color;
    c.fill();
  }
}

// picNarrow is the width under which a picture stacks its parts (the
// clients, the flows, the server) instead of setting them side by side.
const picNarrow = 330;

// picDraw draws lane i's picture on context c, w by h CSS pixels, at
// animation time t (seconds; null draws the marks at rest); l keeps the
// lane's peak load, the scale of a latency curve's gauge.
function picDraw(c, i, w, h, t, l) {
  const s = picState(i);
  c.fillStyle = T.card;
  c.fillRect(0, 0, w, h);
  c.font = '11px system-ui, sans-serif';
  c.textBaseline = 'alphabetic';
  if (!s || !picture) {
    c.fillStyle = T.muted;
    c.fillText('waiting for the first ticks…', 8, h / 2);
    return;
  }
  if (s.halted) {
    c.fillStyle = T.bad;
    c.fillText('this lane stopped: nothing is known of it', 8, h / 2);
    return;
  }
  const pad = 6;
  if (w >= picNarrow) {
    const cw = Math.floor(w * 0.34), sx = Math.floor(w * 0.62);
    picCrowd(c, s, pad, 0, cw, h - 16);
    picFlows(c, s, t, pad + cw + 10, 4, sx - pad - cw - 20, h - 20);
    picServer(c, s, l, sx, 0, w - pad - sx);
    picLegend(c, pad + cw + 10, h - 5, w);
    return;
  }
  // Stacked: the clients on top, the flows, the server below them.
  const crowdH = Math.round(h * 0.3);
  picCrowd(c, s, pad, 0, w - 2 * pad, crowdH);
  picFlows(c, s, t, pad, crowdH + 2, w - 2 * pad, 60);
  picServer(c, s, l, pad, crowdH + 64, w - 2 * pad);
  picLegend(c, pad, h - 19, w);
}

// picCrowd draws the clients in the box at (x, y), cw by ch, its title
// on top and the count a mark stands for under it: each mark stands for
// per clients (or requests under way, in an open loop), in flight first,
// then waiting to retry, then thinking.
function picCrowd(c, s, x, y, cw, ch) {
  const kinds = picture.open ? [s.flight, s.backoff] : [s.flight, s.backoff, s.thinking];
  const total = kinds.reduce((a, b) => a + b, 0);
  const gy = y + 16, gh = Math.max(10, ch - 30);
  const room = Math.max(1, Math.min(picMaxDots, Math.floor((cw * gh) / 30)));
  const per = Math.max(1, Math.ceil(total / room));
  const n = Math.ceil(total / per);
  const share = picShares(kinds, n);
  // The largest pitch whose grid fits the box.
  let pitch = Math.max(3, Math.min(14, Math.floor(Math.sqrt((cw * gh) / Math.max(1, n)))));
  while (pitch > 3 && Math.ceil(n / Math.max(1, Math.floor(cw / pitch))) * pitch > gh) pitch--;
  const cols = Math.max(1, Math.floor(cw / pitch));
  const r = Math.max(1, pitch * 0.36);
  const dots = [[], [], []];
  let k = 0;
  share.forEach((m, j) => {
    for (let q = 0; q < m; q++, k++) dots[j].push([x + (k % cols) * pitch + pitch / 2, gy + Math.floor(k / cols) * pitch + pitch / 2]);
  });
  picMarks(c, 'dot', T.accent, dots[0], r);
  picMarks(c, 'square', T.warn, dots[1], r * 0.9);
  picMarks(c, 'hollow', T.muted, dots[2], r * 0.85);
  c.fillStyle = T.fg;
  c.font = 'bold 11px system-ui, sans-serif';
  c.fillText(picture.open ? `${picCount(total)} requests under way` : `${picCount(total)} clients`, x, y + 11);
  c.font = '11px system-ui, sans-serif';
  c.fillStyle = T.muted;
  c.fillText(`a mark = ${picCount(per)}`, x, gy + Math.ceil(n / cols) * pitch + 12);
}

// picFlows draws, in the box at (x, y), fw by fh, the attempts to the
// server (retries as triangles), the answers back (successes as dots,
// errors as squares), and the attempts the clients gave up waiting for,
// crosses that fall away; each flow's marks grow with its rate, and its
// rate is written over it.
function picFlows(c, s, t, x, y, fw, fh) {
  fw = Math.max(10, fw);
  const yIn = y + fh * 0.24, yBack = y + fh * 0.58, yLost = y + fh * 0.86;
  c.strokeStyle = T.line;
  c.lineWidth = 1;
  c.beginPath();
  c.moveTo(x, yIn);
  c.lineTo(x + fw, yIn);
  c.moveTo(x + fw - 5, yIn - 4);
  c.lineTo(x + fw, yIn);
  c.lineTo(x + fw - 5, yIn + 4);
  c.moveTo(x + fw, yBack);
  c.lineTo(x, yBack);
  c.moveTo(x + 5, yBack - 4);
  c.lineTo(x, yBack);
  c.lineTo(x + 5, yBack + 4);
  c.stroke();
  const phase = (m, speed, j) => (t == null ? (j + 0.5) / m : (((t * speed + j / m) % 1) + 1) % 1);
  const flow = (m, yy, dir, speed, jitter) => {
    const pts = [];
    for (let j = 0; j < m; j++) {
      const ph = phase(m, speed, j);
      pts.push([dir > 0 ? x + ph * fw : x + fw - ph * fw, yy + (((j * 37) % 7) - 3) * jitter]);
    }
    return pts;
  };
  const nIn = picFlow(s.attempts), nRe = s.attempts > 0 ? Math.round((nIn * s.retries) / s.attempts) : 0;
  const inPts = flow(nIn, yIn, 1, 0.6, 1.2);
  picMarks(c, 'dot', T.accent, inPts.slice(nRe), 2.4);
  picMarks(c, 'triangle', T.warn, inPts.slice(0, nRe), 3);
  picMarks(c, 'dot', T.good, flow(picFlow(s.ok), yBack, -1, 0.6, 1.2), 2.4);
  picMarks(c, 'square', T.bad, flow(picFlow(s.errors), yBack + 6, -1, 0.8, 0.6), 2.2);
  const nLost = picFlow(s.timeouts);
  const lost = [];
  for (let j = 0; j < nLost; j++) lost.push([x + (((j * 53) % 97) / 97) * fw * 0.36, yLost - 9 + phase(nLost, 0.5, j) * 12]);
  picMarks(c, 'cross', T.bad, lost, 2.6);
  c.fillStyle = T.fg;
  c.fillText(`${picRate(s.attempts)}/s sent`, x, yIn - 6);
  c.fillText(`${picRate(s.ok)}/s served`, x, yBack - 7);
  c.fillStyle = s.timeouts > 0 ? T.bad : T.muted;
  // Right of the crosses, within the flows' box: on two lines where one
  // would run into the server's.
  const lostText = `${picRate(s.timeouts)}/s timed out`;
  if (c.measureText(lostText).width <= fw * 0.58) c.fillText(lostText, x + fw * 0.42, yLost);
  else {
    c.fillText(`${picRate(s.timeouts)}/s`, x + fw * 0.42, yLost - 6);
    c.fillText('timed out', x + fw * 0.42, yLost + 6);
  }
}

// picServer draws the server from (x, y) down, sw wide: its workers, each
// a slot filled while it serves (a queue server), or its load against the
// level it is healthy at (a latency curve); then its queue, the requests
// waiting for a worker and the connections waiting in the accept backlog,
// against the backlog's room they share; and the requests inside that no
// client waits for any more, at least.
function picServer(c, s, l, x, y, sw) {
  c.fillStyle = T.fg;
  c.font = 'bold 11px system-ui, sans-serif';
  c.fillText(`server: ${picCount(s.inside)} inside`, x, y + 11);
  c.font = '11px system-ui, sans-serif';
  y += 18;
  if (picture.workers > 0) {
    const nw = Math.max(picture.workers, s.service);
    const wper = Math.max(1, Math.ceil(nw / picMaxSlots));
    const slots = Math.ceil(nw / wper), busy = Math.ceil(s.service / wper);
    const scols = Math.max(1, Math.min(slots, Math.floor(sw / 9)));
    const busyPts = [], idlePts = [];
    for (let j = 0; j < slots; j++) (j < busy ? busyPts : idlePts).push([x + (j % scols) * 9 + 4, y + Math.floor(j / scols) * 9 + 4]);
    picMarks(c, 'square', T.accent, busyPts, 3.4);
    c.beginPath();
    for (const [px, py] of idlePts) c.rect(px - 3, py - 3, 6, 6);
    c.strokeStyle = T.muted;
    c.lineWidth = 1;
    c.stroke();
    y += Math.ceil(slots / scols) * 9 + 12;
    c.fillStyle = T.muted;
    c.fillText(`${picCount(s.service)} of ${picCount(picture.workers)} workers busy`, x, y);
  } else {
    // The scale holds the lane's peak so far: a recovery shows as a
    // gauge that empties.
    l.peak = Math.max(l.peak || 0, s.inside);
    const scale = Math.max(3 * picture.healthy, l.peak, 1);
    const bh = 12, hx = x + (picture.healthy / scale) * sw;
    c.fillStyle = s.inside > picture.healthy ? T.bad : T.accent;
    c.fillRect(x, y, Math.min(1, s.inside / scale) * sw, bh);
    c.strokeStyle = T.muted;
    c.lineWidth = 1;
    c.strokeRect(x + 0.5, y + 0.5, sw - 1, bh - 1);
    c.strokeStyle = T.fg;
    c.beginPath();
    c.moveTo(hx, y - 3);
    c.lineTo(hx, y + bh + 3);
    c.stroke();
    y += bh + 12;
    c.fillStyle = T.muted;
    c.fillText(`healthy ≤ ${picCount(picture.healthy)}; latency ${dur(s.latency, 2)}`, x, y);
  }
  y += 8;
  const qh = 12, room = Math.max(1, picture.backlog);
  const qw = Math.min(1, s.queued / room) * sw, aw = Math.min(1 - qw / sw, s.accept / room) * sw;
  c.fillStyle = T.warn;
  c.fillRect(x, y, qw, qh);
  if (aw > 0) {
    // The accept backlog, hatched: connections a paused server left there.
    c.save();
    c.beginPath();
    c.rect(x + qw, y, aw, qh);
    c.clip();
    c.strokeStyle = T.bad;
    c.beginPath();
    for (let hx = x + qw - qh; hx < x + qw + aw; hx += 4) {
      c.moveTo(hx, y + qh);
      c.lineTo(hx + qh, y);
    }
    c.stroke();
    c.restore();
  }
  c.strokeStyle = T.muted;
  c.lineWidth = 1;
  c.strokeRect(x + 0.5, y + 0.5, sw - 1, qh - 1);
  y += qh + 12;
  c.fillStyle = s.queued + s.accept > 0 ? T.fg : T.muted;
  const words = [];
  if (picture.workers > 0 || s.queued > 0) words.push(`${picCount(s.queued)} queued`);
  if (s.accept > 0 || picture.workers === 0) words.push(`${picCount(s.accept)} in backlog`);
  const full = `${words.join(', ')} of ${picCount(picture.backlog)}`;
  c.fillText(c.measureText(full).width <= sw ? full : words.join(', '), x, y);
  // Work nobody waits for: more inside than the clients waiting.
  const orphans = picture.open ? 0 : s.inside + s.accept - s.flight;
  if (orphans > 0) {
    c.fillStyle = T.bad;
    c.fillText(`≥ ${picCount(orphans)} abandoned`, x, y + 14);
  }
}

// picLegend writes the marks' meanings, in shapes as well as colours,
// from (x, y) to the width w, on a second line below when they do not fit
// on one.
function picLegend(c, x, y, w) {
  const legend = [['dot', T.accent, 'waiting'], ['square', T.warn, 'to retry'], ['hollow', T.muted, 'thinking'], ['cross', T.bad, 'timed out']];
  const x0 = x;
  for (const [kind, color, word] of picture.open ? legend.filter(g => g[0] !== 'hollow') : legend) {
    const ww = 9 + c.measureText(word).width;
    if (x + ww > w - 4 && x > x0) {
      x = x0;
      y += 14;
    }
    picMarks(c, kind, color, [[x + 3, y - 3]], 3);
    c.fillStyle = T.muted;
    c.fillText(word, x + 9, y);
    x += ww + 10;
  }
}

// picSentence says lane i's picture in words, with its numbers.
export function picSentence(i) {
  const s = picState(i);
  const name = `Lane ${LETTERS[i]}`;
  if (!s || !picture) return `${name}: waiting for the first ticks.`;
  if (s.halted) return `${name}: stopped.`;
  const L = picture.labels;
  const who = picture.open
    ? `${picCount(s.alive)} ${L.alive}: ${picCount(s.flight)} waiting for an answer, ${picCount(s.backoff)} waiting to retry`
    : `${picCount(s.thinking + s.alive)} clients: ${picCount(s.thinking)} thinking, ${picCount(s.flight)} waiting for an answer, ${picCount(s.backoff)} waiting to retry`;
  const inside = picture.workers > 0
    ? `${picCount(s.inside)} ${L.concurrency} (${picCount(s.service)} in service, ${picCount(s.queued)} queued)`
    : `${picCount(s.inside)} ${L.concurrency} (healthy at ${picCount(picture.healthy)} or fewer)`;
  const accept = s.accept > 0 ? `, ${picCount(s.accept)} ${L.backlog}` : '';
  return `${name}: ${who}; ${inside}${accept}; ${picRate(s.attempts)}/s ${L.attempts}, ${picRate(s.ok)}/s ${L.ok}, ${picRate(s.timeouts)}/s ${L.timeouts}.`;
}

// picSay says lane i's sentence in its live region, when the last one
// said there is old enough (or force), and it is a new one.
function picSay(l, i, now, force) {
  if (!l.live || (!force && now - l.saidAt < picSpeakEvery)) return;
  const said = picSentence(i);
  if (said !== l.said) {
    l.live.textContent = l.said = said;
    l.saidAt = now;
  }
}

// picDrawAll draws every shown lane's picture now, with its sentence in
// sight, and says it in the live region when the last said is old enough
// (or force).
export function picDrawAll(force) {
  const t0 = performance.now();
  const still = picReduce.matches;
  const n = laneCount();
  for (let i = 0; i < n; i++) {
    const l = picLane(i);
    if (!l || !l.w) continue;
    l.ctx.setTransform(l.dpr, 0, 0, l.dpr, 0, 0);
    picDraw(l.ctx, i, l.w, l.h, still ? null : picClock, l);
    if (l.text) {
      const shown = picSentence(i);
      if (l.text.textContent !== shown) l.text.textContent = shown;
    }
    picSay(l, i, performance.now(), force);
  }
  const dt = performance.now() - t0;
  picStats.times[picStats.frames % picStats.times.length] = dt;
  picStats.frames++;
  picStats.total += dt;
  picStats.worst = Math.max(picStats.worst, dt);
}

// picFrame is the picture's animation frame: it moves the marks while the
// run plays (not with reduced motion) and redraws when rows arrived, the
// size changed, or the marks move. Hidden, the browser stops calling it.
function picFrame(now) {
  const dt = picLastNow ? Math.min(0.1, (now - picLastNow) / 1000) : 0;
  picLastNow = now;
  const playing = !!(lastState && lastState.playing && !lastState.done);
  const moving = playing && !picReduce.matches;
  if (moving) picClock += dt;
  const first = rows.length ? rows[0] : null;
  if (rows.length !== picSeenRows || first !== picSeenFirst) {
    picSeenRows = rows.length;
    picSeenFirst = first;
    picDirty = true;
  }
  // A new run starts its gauges afresh.
  if (!rows.length) picLanes.forEach(l => l && (l.peak = 0));
  if (picDirty || moving) {
    picDirty = false;
    picDrawAll(false);
  } else {
    // Nothing to draw; the live region still catches up with the state.
    const n = laneCount();
    const nowMs = performance.now();
    for (let i = 0; i < n; i++) if (picLanes[i]) picSay(picLanes[i], i, nowMs, false);
  }
  requestAnimationFrame(picFrame);
}

// exportPicture downloads lane i's picture as a PNG at twice its size,
// with the lane's caption and its sentence under it, as a chart's export.
function exportPicture(i) {
  const l = picLane(i);
  if (!l) return;
  const w = l.w, k = 2, lineH = 14, font = '10.5px system-ui, sans-serif';
  // The caption and the sentence, broken into lines that fit.
  const out = document.createElement('canvas');
  const c = out.getContext('2d');
  c.font = font;
  const lines = [];
  for (const text of [captionOf(i), picSentence(i)].filter(Boolean)) {
    let line = '';
    for (const word of text.split(' ')) {
      const next = line ? line + ' ' + word : word;
      if (line && c.measureText(next).width > w - 16) {
        lines.push(line);
        line = word;
      } else line = next;
    }
    lines.push(line);
  }
  const h = l.h + 8 + lineH * lines.length;
  out.width = w * k;
  out.height = h * k;
  c.setTransform(k, 0, 0, k, 0, 0);
  c.fillStyle = T.card;
  c.fillRect(0, 0, w, h);
  picDraw(c, i, w, l.h, null, { peak: l.peak });
  c.fillStyle = T.muted;
  c.font = font;
  lines.forEach((line, j) => c.fillText(line, 8, l.h + 4 + lineH * (j + 1)));
  const strategy = lanes[i] ? lanes[i].strategy : '';
  out.toBlob(b => b && download(`backofflab-${LETTERS[i]}-${strategy}-picture.png`, b, 'image/png'), 'image/png');
}

// startPicture wires the pictures' export buttons and starts their frames.
// pictureProgress says how far the picture has got, for the page's tests:
// its animation's clock, the rows it has drawn and whether it must draw
// again.
export function pictureProgress() {
  return { clock: picClock, seenRows: picSeenRows, dirty: picDirty };
}

export function startPicture() {
  document.querySelectorAll('[data-picture-png]').forEach(b =>
    b.addEventListener('click', () => exportPicture(LETTERS.indexOf(b.dataset.picturePng))));
  picReduce.addEventListener('change', () => (picDirty = true));
  onThemeChange(() => (picDirty = true));
  requestAnimationFrame(picFrame);
}
