// backofflab playground: the controls. The server renders them; this
// script keeps them and the run's query in step both ways (the whole scenario
// goes to the server as a query, and what it answers sets the controls),
// shows each lane's and switch's parameters, the errors beside the
// controls they name, and the phone's drawer, skip links and preset menu.

import { $, $$, attr, el } from './common.js';
import { KEEP, LETTERS, SECONDS_RE, SPEC, SPECS, STRATEGIES, boxes, duration, heads, laneCount, page, query, rules, setDuration } from './play-state.js';
import { ensureChart, forCharts, timeAxis } from './play-charts.js';
import { showKnobs } from './play-library.js';

// ---- sliders ---------------------------------------------------------------
// A slider's scale is defined once, in Go (sliderValue in web/playground/view.go):
// the page gets each slider's box text at every position (page.scales),
// and each box's position from the server (boxes).
const sliderOf = box => $(attr('data-slider-for', box.dataset.param));
export const textAt = (name, pos) => page.scales[page.sliders[name]][pos];
// A slider says its box's value and unit in words (aria-valuetext, as
// valueText in web/playground/view.go writes it), not its position.
export function speak(slider, text) {
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

// strategyChanged marks lane i's strategy as just changed.
export function strategyChanged(i) {
  freshStrategy.add(i);
}

// strategiesSent forgets the changes of strategy once a set has told the
// server of them.
export function strategiesSent() {
  freshStrategy.clear();
}

// buildQuery writes the whole scenario the controls show, for n lanes. A
// lane being added is left out: the server gives it its defaults.
export function buildQuery(n = laneCount()) {
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

export function ensureOption(select, value) {
  if (![...select.options].some(o => o.value === value)) {
    select.add(new Option(value === 'max' ? 'max' : value + '×', value));
  }
}

export function setControl(el, v) {
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
export function setBox(el, b) {
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
export function applyQuery(q) {
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
  showHidden();
  showLaneCharts(p);
  showKnobs();
  const d = seconds('duration');
  if (d > 0 && d !== duration) {
    setDuration(d);
    forCharts((c, id) => SPEC[id].x === 'time' && c.setOption({ xAxis: [timeAxis(c)] }));
  }
}

// showStrategy shows lane i's strategy in words: its formula, its label
// and its name. Which of the lane's parameters show is the server's to
// say (showHidden).
export function showStrategy(i, strategy) {
  const L = LETTERS[i];
  const info = STRATEGIES[strategy];
  if (!info) return;
  const about = $(attr('data-about-for', L));
  if (about) about.replaceChildren(...proseNodes(info.about_parts));
  const head = $(attr('data-lane-strategy', L));
  if (head) head.textContent = info.label;
  const name = $(attr('data-lane-strategy-name', L));
  if (name) name.textContent = strategy;
}

// showHeads writes each lane's heading as the server words it (heads):
// its strategy and what else sets it apart from the other lanes.
export function showHeads() {
  heads.forEach((h, i) => {
    const head = $(attr('data-lane-strategy', LETTERS[i]));
    if (head) head.textContent = h;
  });
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

// showHidden hides the controls the server's rules say the run does not
// read (a switch's value, a lane's strategy decide them) and shows the
// others.
export function showHidden() {
  const hidden = new Set(rules.hidden);
  for (const ctl of $$('.ctl[data-ctl]')) {
    const off = hidden.has(ctl.dataset.ctl);
    if (ctl.hidden !== off) ctl.hidden = off;
  }
}

export function updateURL() {
  history.replaceState(null, '', '?' + query);
  $('#headless-csv').href = '/export.csv?' + query;
  $('#headless-json').href = '/export.json?' + query;
  presetSpeed();
  presetCurrent();
  seedsLink();
}

// presetCurrent marks the preset the server's rules name, the one whose
// run the page shows at any speed (aria-current on its chip, selected in
// the phone's menu), and no other.
function presetCurrent() {
  for (const a of $$('a[data-preset]')) {
    const on = a.dataset.preset === rules.preset;
    if (on !== a.hasAttribute('aria-current')) {
      if (on) a.setAttribute('aria-current', 'page');
      else a.removeAttribute('aria-current');
    }
  }
  const menu = $('#preset-select');
  if (menu) {
    const p = page.presets.find(p => p.Name === rules.preset);
    menu.value = p ? '?' + p.Query : '';
  }
}

// seedsLink points the header's links to the other views at the links the
// server's rules give for the run in effect: the phase map over this
// scenario, its seed bands, the advice for its system. The "Run K seeds"
// link is the seed bands' with the seeds its box asks for (the view names
// a bad value).
function seedsLink() {
  $('#view-map').href = rules.links.map;
  $('#view-advise').href = rules.links.advise;
  const box = $('#seeds'), a = $('#run-seeds');
  if (!box || !a) return;
  const u = new URL(rules.links.bands, location.href);
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

// proseNodes makes a sentence's nodes from its prose parts (prose in
// web/scene/prose.go): the vocabulary's names as code.
export const proseNodes = parts => parts.map(p => (p.code ? el('code', { textContent: p.t }) : document.createTextNode(p.t)));

// ---- error messages --------------------------------------------------------
const general = $('#errors');
const slotFor = name => (name ? $(attr('data-error-for', name)) : null);
export const hasError = name => {
  const s = slotFor(name);
  return !!s && s.textContent.trim() !== '';
};

export function showError(param, message) {
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

export function clearErrors() {
  for (const slot of $$('[data-error-for]')) if (slot !== general) slot.textContent = '';
  general.replaceChildren();
  for (const c of $$('.ctl.bad')) c.classList.remove('bad');
  for (const b of $$('[aria-invalid]')) b.removeAttribute('aria-invalid');
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

export function wireDrawer() {
  opener.addEventListener('click', () => ('open' in drawer.dataset ? closeDrawer() : openDrawer()));
  $('#drawer-close').addEventListener('click', closeDrawer);
  drawer.addEventListener('keydown', e => {
    if (e.key === 'Escape') closeDrawer();
  });
  // A skip link moves the focus to its target, in the drawer opened for
  // it; the address bar keeps the scenario, without a fragment.
  for (const a of $$('[data-skip]')) {
    a.addEventListener('click', e => {
      const target = document.getElementById(decodeURIComponent(a.hash.slice(1)));
      if (!target) return;
      e.preventDefault();
      const details = target.closest('details') || target.querySelector(':scope > details');
      if (details) details.open = true;
      if (drawer.contains(target) && drawerClosed()) openDrawer(target);
      else target.focus();
    });
  }
  const presets = $('#preset-select');
  if (presets) presets.addEventListener('change', () => presets.value && location.assign(presets.value));
  wireChips();
}

// wireChips shows, beside the one row of preset chips, how many more do
// not fit in it, and all of them at a press; a chip out of the row that
// takes the focus (Tab) shows them all too.
function wireChips() {
  const nav = $('#presets'), more = $('#presets-more');
  if (!nav || !more) return;
  const chips = $$('[data-preset]', nav);
  const open = on => {
    if (on) nav.dataset.open = '';
    else delete nav.dataset.open;
    say();
  };
  function say() {
    const on = 'open' in nav.dataset;
    const row = nav.getBoundingClientRect();
    const out = on ? 0 : chips.filter(c => c.getBoundingClientRect().top >= row.bottom - 1).length;
    more.hidden = !on && out === 0;
    more.setAttribute('aria-expanded', String(on));
    more.textContent = on ? 'Fewer presets' : `${out} more preset${out === 1 ? '' : 's'}`;
  }
  more.addEventListener('click', () => open(!('open' in nav.dataset)));
  nav.addEventListener('focusin', e => {
    if (!('open' in nav.dataset) && e.target.getBoundingClientRect().top >= nav.getBoundingClientRect().bottom - 1) open(true);
  });
  new ResizeObserver(say).observe(nav);
  say();
}
