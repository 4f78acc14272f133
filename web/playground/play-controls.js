// backofflab playground: the controls. The server renders them; this
// script keeps them and the run's query in step both ways (the whole state
// goes to the server as a query, and what it answers sets the controls),
// shows each lane's and switch's parameters, the errors beside the
// controls they name, and the phone's drawer, skip links and preset menu.
'use strict';

// ---- sliders ---------------------------------------------------------------
// A slider's scale is defined once, in Go (sliderValue in web/playground/view.go):
// the page gets each slider's box text at every position (page.scales),
// and each box's position from the server (boxes).
const sliderOf = box => $(attr('data-slider-for', box.dataset.param));
const textAt = (name, pos) => page.scales[page.sliders[name]][pos];
// A slider says its box's value and unit in words (aria-valuetext, as
// valueText in web/playground/view.go writes it), not its position.
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
  showKnobs();
  const d = seconds('duration');
  if (d > 0 && d !== duration) {
    duration = d;
    forCharts((c, id) => SPEC[id].x === 'time' && c.setOption({ xAxis: [timeAxis(c)] }));
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
  if (about) about.replaceChildren(...proseNodes(info.about_parts));
  const head = $(attr('data-lane-strategy', L));
  if (head) head.textContent = info.label;
  const name = $(attr('data-lane-strategy-name', L));
  if (name) name.textContent = strategy;
}

// showHeads writes each lane's heading as the server words it (heads):
// its strategy and what else sets it apart from the other lanes.
function showHeads() {
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
  presetCurrent();
  seedsLink();
}

// presetCurrent marks the preset whose state the page shows, at any speed
// (aria-current on its chip, selected in the phone's menu), and no other:
// a slider moved off a preset's value leaves it. The server marks the
// same on the page it renders (currentPreset in web/playground/view.go).
function presetCurrent() {
  const bare = q => [...new URLSearchParams(q)].filter(([k]) => k !== 'speed').map(([k, v]) => `${k}=${v}`).sort().join('&');
  const here = bare(query);
  for (const a of $$('a[data-preset]')) {
    const on = bare(a.dataset.presetQuery) === here;
    if (on !== a.hasAttribute('aria-current')) {
      if (on) a.setAttribute('aria-current', 'page');
      else a.removeAttribute('aria-current');
    }
  }
  const menu = $('#preset-select');
  if (menu) {
    const opt = [...menu.options].find(o => o.value && bare(o.value.slice(1)) === here);
    menu.value = opt ? opt.value : '';
  }
}

// seedsLink points the "Run K seeds" link at the seed bands view of the
// run in effect, with the seeds its box asks for (the view names a bad
// value).
// The header's links to the other views follow the run in effect too:
// the phase map over this scenario, its seed bands, the advice for its
// system (the names it keeps: kit.AdviseKeeps, from Go).
function seedsLink() {
  $('#view-map').href = '/map?' + query;
  const keep = new Set(page.adviseKeeps), adv = new URLSearchParams(query);
  for (const name of [...adv.keys()]) if (!keep.has(name)) adv.delete(name);
  $('#view-advise').href = '/advise?' + adv.toString();
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

// proseNodes makes a sentence's nodes from its prose parts (prose in
// web/scene/prose.go): the vocabulary's names as code.
const proseNodes = parts => parts.map(p => (p.code ? el('code', { textContent: p.t }) : document.createTextNode(p.t)));

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
