// backofflab playground: what the page knows, from the server's JSON
// blocks (web/playground/view.go's pageState, the charts' options) and the socket's
// messages since (web/playground/protocol.go), and the charts' colours.
//
// The playground's scripts (page.templ loads them in this order, deferred:
// play-state.js, play-controls.js, play-socket.js, play-charts.js,
// play-draw.js, play-explain.js, play-exports.js, play-picture.js, play-library.js, then app.js, which
// starts the page) share one scope without a bundler: each is a classic
// script whose top-level declarations the scripts after it see. A script
// only calls, while it loads, what the scripts before it declared; the
// rest runs later, on the page's events, when every one is loaded.
'use strict';

const { $, $$, readJSON, attr, el, fmt, dur, durAxis, unitOf, DUR_STEPS, timeStep, ICONS, fitLegend, resizeWithBox, halfWindow, meanAround, theme, onThemeChange, download, exportChart } = window.backofflabKit;

const page = readJSON('page-state');
const COLS = page.columns;
const NC = COLS.length;
const COL = Object.fromEntries(COLS.map((c, i) => [c, i]));
const LETTERS = page.laneNames;
const KEEP = new Set(page.keep);
// The charts' specs (ChartSpecs in web/scene/charts.go): the script draws what
// they say and names no chart itself. A time chart plots columns of the
// tick rows; a retry chart plots a lane's delays (5 %, median, 95 % by retry). Each series carries its
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

// ---- what the page knows about the run ----------------------------------
let query = page.query; // the run's canonical query, its live changes included (from hello/params)
let settings = page.query; // the values in effect, without the live changes (hello/params)
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
let delays = [];
// The moments that decide each lane's outcome and the levels its
// verdict is judged by (the marks message, web/playground/marks.go).
let marks = { marks: [], levels: [] };
let explain = null; // the run's "What you are seeing" panel (hello, params)
let captions = []; // what an exported chart of each lane shows, from the server (hello, params)
let heads = []; // each lane's heading in words, from the server (hello, params)
const charts = {}; // "chart.letter" → ECharts instance
// Each chart row's options, set from its toolbox: a log scale, y axes
// shared by the lanes (true), each lane's own (false) or, by default
// (null), shared while the lanes' peaks are within the row's share_ratio
// of each other (play-draw.js: shareAxes), 1 s smoothing, the help shown.
const view = Object.fromEntries(CHART_IDS.map(k => [k, { log: false, shared: null, smooth: !!SPEC[k].smooth, help: false }]));
const laneCount = () => lanes.length || page.lanes;

// ---- the theme: the charts' colours, read from the page's CSS (common.js)
let T = theme();
onThemeChange(() => {
  T = theme();
  forCharts((c, id) => c.setOption(themed(id)));
  markDirty();
  drawDelays();
});
