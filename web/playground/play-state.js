// backofflab playground: what the page knows, from the server's JSON
// blocks (web/playground/view.go's pageData, the charts' options) and the socket's
// messages since (web/playground/protocol.go), and the charts' colours.
//
// The playground's scripts are ES modules, without a bundler: each imports
// what it uses and exports what the others use. This one owns the state
// the others read; its take* and set* functions are the only ones that
// change it. It imports none of the others, so it is evaluated first, and
// what the others compute while they load from it is there.

import { readJSON, theme, onThemeChange } from './common.js';

export const page = readJSON('page-data');
const COLS = page.columns;
export const NC = COLS.length;
export const COL = Object.fromEntries(COLS.map((c, i) => [c, i]));
export const LETTERS = page.laneNames;
export const KEEP = new Set(page.keep);
// The charts' specs (ChartSpecs in web/scene/charts.go): the script draws what
// they say and names no chart itself. A time chart plots columns of the
// tick rows; a retry chart plots a lane's delays (5 %, median, 95 % by retry); a latency chart
// bins a lane's requests by their latency (the requests message). Each series carries its
// label in words (from Go: the script keeps no copy).
export const SPECS = page.charts;
export const SPEC = Object.fromEntries(SPECS.map(k => [k.id, k]));
export const CHART_IDS = SPECS.map(k => k.id);
export const TIME_CHARTS = CHART_IDS.filter(k => SPEC[k].x === 'time');
export const RETRY_CHARTS = CHART_IDS.filter(k => SPEC[k].x === 'retry');
export const LATENCY_CHARTS = CHART_IDS.filter(k => SPEC[k].x === 'latency');
export const BASE = Object.fromEntries(CHART_IDS.map(k => [k, readJSON('chart-' + k)]));
// LABEL[id][series name] is a series' label and its vocabulary name, as
// the legend and the tooltip show them; the option's series follow the
// spec's in order.
export const LABEL = Object.fromEntries(CHART_IDS.map(id => [id, Object.fromEntries(BASE[id].series.map((s, j) => {
  const sp = SPEC[id].series[j];
  return [s.name, { label: sp.label, name: SPEC[id].x === 'time' ? sp.name : '', unit: SPEC[id].units[sp.axis], color: sp.color }];
}))]));
export const STRATEGIES = Object.fromEntries(page.strategies.map(s => [s.name, s]));
// A duration box's bare decimal is seconds, the box's unit: the page adds
// the unit and leaves the parsing to the server.
export const SECONDS_RE = /^[+-]?(\d+\.?\d*|\.\d+)$/;

// ---- what the page knows about the run ----------------------------------
export let query = page.query; // the run's canonical query, its live changes included (from hello/params)
export let settings = page.query; // the values in effect, without the live changes (hello/params)
export let duration = page.duration;
export let tickLen = 0.1; // seconds a tick row spans (hello)
export let lanes = []; // [{name, strategy}] from hello
// Each number box's text and slider position for the query in effect,
// as the server computes them (hello/params boxes).
export let boxes = {};
export let rows = []; // every tick row received since hello
export let lastState = null; // the latest state, with every outage window the page keeps
export let lastSummary = null;
export let lastVerdicts = null; // each lane's verdict in words and its tone, as the server puts them
// The outage windows, by their index since the run's start: a state
// message carries only those that changed; the latest maxOutages (the
// server's count, from hello) are kept.
const outageWins = new Map();
let maxOutages = 0;
export let faultKinds = {}; // by name: whether it takes the server down, its colour (hello.fault_kinds)
export let plan = []; // the scheduled faults, {at, end, kind} (hello and params)
export let delays = [];
// The latest requests message: the latency bins' edges, and each lane's
// requests by bin with its figures and its sentence (requestsMsg in
// web/playground/requests.go); null before the first.
export let requests = null;
// The moments that decide each lane's outcome and the levels its
// verdict is judged by (the marks message, web/playground/marks.go).
export let marks = { marks: [], levels: [] };
export let explain = null; // the run's "What you are seeing" panel (hello, params)
export let captions = []; // what an exported chart of each lane shows, from the server (hello, params)
export let heads = []; // each lane's heading in words, from the server (hello, params)
// picture is what the picture needs besides the ticks (pictureView in
// web/playground/picture.go): the server's workers, its healthy level, its
// backlog's room, whether the loop is open, and the columns' words
// (hello, params).
export let picture = null;
// rules are what the page shows that follows from the run, as the server
// computes them (pageRules in web/playground/rules.go): the controls it
// hides, the current preset, the links to the other views (the page's
// input, then hello, params and rules).
export let rules = page.rules;
export const laneCount = () => lanes.length || page.lanes;

// ---- the theme: the charts' colours, read from the page's CSS (common.js);
// this module reads them again first, before the charts redraw with them.
export let T = theme();
onThemeChange(() => {
  T = theme();
});

// ---- what the server's messages change -----------------------------------
// These are the only writers of the state above: the socket's messages
// (play-socket.js) and the controls' duration (play-controls.js) call them.

// takeParams takes what hello and params both carry: the query, the
// values in effect, the boxes, the plan and the server's words.
export function takeParams(m) {
  query = m.query;
  settings = m.settings;
  boxes = m.boxes;
  plan = m.plan;
  explain = m.explain;
  captions = m.captions;
  heads = m.heads;
  picture = m.picture;
  rules = m.rules;
}

// takeRules takes a rules message: the server's answer to a refused set.
export function takeRules(m) {
  rules = m.rules;
}

// takeHello starts the page's record of a run over from hello.
export function takeHello(m) {
  takeParams(m);
  maxOutages = m.max_outages;
  faultKinds = Object.fromEntries(m.fault_kinds.map(k => [k.name, k]));
  outageWins.clear();
  duration = m.duration;
  tickLen = m.tick;
  lanes = m.lanes;
  rows = [];
  lastSummary = null;
  lastVerdicts = null;
  delays = [];
  requests = null;
  marks = { marks: [], levels: [] };
}

// takeTicks appends a tick message's rows and returns the index of the
// first.
export function takeTicks(ticks) {
  const from = rows.length;
  for (const row of ticks) rows.push(row);
  return from;
}

// takeDelays takes a lane's delays message.
export function takeDelays(m) {
  delays[m.lane] = m;
}

// takeRequests takes a requests message.
export function takeRequests(m) {
  requests = m;
}

// takeSummary takes a summary message's lanes and verdicts.
export function takeSummary(m) {
  lastSummary = m.lanes;
  lastVerdicts = m.verdicts;
}

// takeState takes a state message, with the outage windows it changed,
// of which the latest maxOutages are kept.
export function takeState(m) {
  m.outages.forEach((w, k) => outageWins.set(m.outages_from + k, w));
  while (outageWins.size > maxOutages) outageWins.delete(outageWins.keys().next().value);
  lastState = { ...m, outages: [...outageWins.values()] };
}

// takeMarks takes a marks message.
export function takeMarks(m) {
  marks = m;
}

// setDuration takes the duration the controls show, in seconds.
export function setDuration(d) {
  duration = d;
}
