// The advice's page (/advise): its form is the request, its URL
// everything the page shows. A page whose URL names a request streams the search from
// /advise/stream (NDJSON: progress lines, then the advice or an error)
// and draws the advice Go computed and put into words: the
// recommendation, its measurements, the snippet, the Pareto front, the
// small map and the links. Cancel, or leaving the page, aborts the
// stream, which cancels the search on the server.
import { $, $$, readJSON, el, dur, theme, onThemeChange, readLines, download, resizeWithBox } from './common.js';

(() => {
  const S = readJSON('advise-data');
  const state = { phase: '', done: 0, total: 0, left: -1, running: false, finished: false, cancelled: false, error: '',
    phases: [], lines: 0, advice: null, view: null, text: '' };

  // ---- the form: the switches hide what their value does not read --------
  function follow() {
    const hidden = new Set();
    for (const [sw, byChoice] of Object.entries(S.switches)) {
      const box = $(`[data-param="${sw}"]`);
      if (box) for (const name of byChoice[box.value] || []) hidden.add(name);
    }
    for (const ctl of $$('[data-ctl]')) {
      const off = hidden.has(ctl.dataset.ctl);
      ctl.hidden = off;
      // A hidden control is not sent: the request's link stays short.
      const input = $('[data-param]', ctl);
      if (input) input.disabled = off;
    }
  }
  for (const sw of Object.keys(S.switches)) {
    const box = $(`[data-param="${sw}"]`);
    if (box) box.addEventListener('change', follow);
  }
  follow();

  // Lane a's values from the link are the settings today in the library
  // they came with: another library's today is its own defaults.
  const lib = $('[data-param="library"]');
  if (lib) {
    lib.addEventListener('change', () => {
      for (const h of $$('[data-hidden^="a."]')) h.remove();
      for (const c of $$('[data-carried^="a."]')) c.remove();
    });
  }

  // ---- the status and the progress ----------------------------------------
  function status(text, tone) {
    const s = $('#adv-status');
    s.textContent = text;
    s.className = 'status' + (tone ? ' ' + tone : '');
  }

  function progress() {
    const bar = $('#adv-progress');
    bar.max = Math.max(state.total, 1);
    bar.value = state.done;
    const left = state.left > 0 ? `, about ${dur(state.left, 2)} left` : '';
    status(`${state.phase}: ${state.done} of ${state.total} runs${left}`);
  }

  function running(on) {
    state.running = on;
    $('#adv-cancel').disabled = !on;
    $('#adv-submit').disabled = on;
  }

  // ---- the stream -----------------------------------------------------------
  let ac = null;

  function handle(m) {
    switch (m.type) {
      case 'start':
        state.total = m.total;
        state.phase = m.phase;
        status(m.status);
        break;
      case 'progress':
        state.lines++;
        if (!state.phases.includes(m.phase)) state.phases.push(m.phase);
        state.phase = m.phase;
        state.done = m.done;
        state.total = m.total;
        state.left = m.left == null ? -1 : m.left;
        progress();
        break;
      case 'advice':
        state.finished = true;
        state.advice = m.advice;
        state.view = m.view;
        state.text = m.text;
        $('#adv-progress').value = $('#adv-progress').max;
        status(m.status, m.advice.claimed ? 'ok' : 'bad');
        draw();
        break;
      case 'error':
        state.error = m.message;
        status(`stopped: ${m.message}`, 'bad');
        break;
    }
  }

  // refused shows why the server would not start the search: each error
  // beside the control it names, the others under the form.
  function refused(errors) {
    for (const e of errors) {
      const at = $(`[data-error-for="${CSS.escape(e.name)}"]`) || $('#adv-errors');
      at.append(el('p', { textContent: e.message }));
      const input = $(`[data-param="${CSS.escape(e.name)}"]`);
      if (input) input.setAttribute('aria-invalid', 'true');
    }
    state.error = errors.map(e => e.message).join('\n');
    status('not run: ' + (errors.length === 1 && !errors[0].name ? errors[0].message : 'see the values above'), 'bad');
  }

  async function stream() {
    ac = new AbortController();
    running(true);
    status('estimating the search…');
    let res;
    try {
      res = await fetch(`/advise/stream?${S.query}`, { signal: ac.signal });
      if (!res.ok) {
        const body = await res.text();
        let errs;
        try { errs = JSON.parse(body).errors; } catch (e) { errs = [{ name: '', message: body.trim() }]; }
        refused(errs);
        return;
      }
      await readLines(res, line => handle(JSON.parse(line)));
      if (!state.finished && !state.error) handle({ type: 'error', message: 'the stream ended before the search did (the server may be shutting down)' });
    } catch (e) {
      if (ac.signal.aborted) return;
      handle({ type: 'error', message: `the stream was cut (${e.message})` });
    } finally {
      running(false);
    }
  }

  $('#adv-cancel').addEventListener('click', () => {
    if (!ac) return;
    state.cancelled = true;
    ac.abort();
    status('cancelled: the search stopped on the server; press Get advice to run it again', 'bad');
  });
  window.addEventListener('pagehide', () => ac && ac.abort());

  // ---- the advice -----------------------------------------------------------
  // Everything drawn here is the advice's own words and the figures Go
  // wrote (the stream's view): the script lays them out.
  const para = text => el('p', { textContent: text });
  let pareto = null;

  function draw() {
    const a = state.advice, v = state.view;
    $('#adv-result').hidden = false;
    const h = $('#adv-headline');
    h.textContent = a.headline;
    // Green only for a claim: the goals met on the fresh seeds too.
    h.className = a.claimed ? 'met' : 'unmet';
    $('#adv-details').replaceChildren(...a.details.map(para));
    drawMeasured(v.measured);
    drawFresh(v.fresh);
    $('#adv-margin').replaceChildren(...v.margins.flatMap(m => [
      para(m.words),
      el('pre', { className: 'adv-code', tabIndex: 0, ariaLabel: 'the runs that show this margin' }, el('code', { textContent: m.inside + (m.beyond ? '\n' + m.beyond : '') })),
    ]));
    $('#adv-snippet-lib').textContent = a.library_title + (a.snippet_warnings && a.snippet_warnings.length ? `. ${a.snippet_warnings.join(' ')}` : '');
    $('#adv-snippet').textContent = a.snippet;
    const closest = $('#adv-closest');
    closest.hidden = a.met;
    if (!a.met) {
      closest.replaceChildren(el('h3', { textContent: 'How close the best came' }),
        ...(a.closest || []).map(g => para(g.words)),
        ...(a.suggestion ? [el('h3', { textContent: 'What would meet them' }), para(a.suggestion.words), para(v.suggested)] : []));
    }
    drawPareto();
    drawMap(v.map);
    const link = $('#adv-playground');
    link.href = v.playground;
    link.textContent = v.link_text;
    $('#adv-flags').textContent = v.command;
    $('#adv-headless-json').href = '/advise.json?' + S.query;
    $('#adv-headless-text').href = '/advise.txt?' + S.query;
    // The answer is what the reader waited for: bring it into view, and
    // the focus to its headline, which a screen reader then reads.
    h.focus({ preventScroll: true });
    $('#adv-result').scrollIntoView({ block: 'start' });
  }

  // scroller is a box that scrolls a wide table across on a narrow
  // screen: a region a keyboard can reach, and scroll. Under it a line
  // names the columns out of view while there are some (a phone hides
  // its scroll bars), kept up to date as the box is resized or scrolled.
  const hints = new WeakMap();
  const watchWidth = new ResizeObserver(es => es.forEach(e => hints.get(e.target)?.()));
  function scroller(label, table) {
    const d = el('div', { className: 'adv-scroll', tabIndex: 0 }, table);
    d.setAttribute('role', 'region');
    d.setAttribute('aria-label', label);
    const hint = el('p', { className: 'adv-scroll-hint', hidden: true });
    const say = () => {
      const box = d.getBoundingClientRect();
      const head = table.rows.length ? [...table.rows[0].cells] : [];
      const out = head.filter(c => (r => r.right > box.right + 1 || r.left < box.left - 1)(c.getBoundingClientRect()))
        .map(c => c.textContent.trim()).filter(Boolean);
      hint.hidden = d.scrollWidth <= d.clientWidth + 1;
      hint.textContent = out.length ? `Scroll the table across for ${out.length === 1 ? 'its column' : `its ${out.length} columns`} out of view: ${out.join(', ')}.`
        : 'Scroll the table across: it is wider than its box.';
    };
    hints.set(d, say);
    watchWidth.observe(d);
    d.addEventListener('scroll', say, { passive: true });
    return el('div', {}, d, hint);
  }

  // seedTable lays out a table of settings seed by seed under label, each
  // row named by its label, and each setting in words under it.
  function seedTable(label, t) {
    const head = el('tr', {}, ...t.head.map(c => el('th', { scope: 'col', textContent: c })));
    const rows = t.rows.map(r => el('tr', {}, el('th', { scope: 'row', textContent: r.label }),
      ...r.cells.map((c, i) => el('td', { className: r.tones[i] ? 'tone-' + r.tones[i] : '', textContent: c }))));
    const words = el('dl', { className: 'adv-words' }, ...t.rows.flatMap(r => [el('dt', { textContent: r.label }), el('dd', { textContent: r.words })]));
    return [scroller(label, el('table', { className: 'adv-table' }, el('thead', {}, head), el('tbody', {}, ...rows))), words];
  }

  // drawMeasured lays out the settings measured on the search's seeds.
  function drawMeasured(t) {
    $('#adv-measured').replaceChildren(...seedTable('the settings measured, seed by seed', t));
  }

  // drawFresh lays out the fresh check: its sentence, and the advice and
  // the runner-up on seeds the search never used.
  function drawFresh(f) {
    $('#adv-fresh-card').hidden = !f;
    $('#adv-fresh-words').textContent = f ? f.words : '';
    $('#adv-fresh').replaceChildren(...(f ? seedTable('the advice and the runner-up on fresh seeds', f.table) : []));
  }

  // drawPareto draws the front: recovery across, attempts per request
  // up, the recommended point marked apart. The axes' ticks are the
  // browser's (common.js writes them); the tooltips are Go's words.
  function drawPareto() {
    const pts = state.view.pareto;
    const dom = $('#adv-pareto');
    if (!pareto) {
      pareto = echarts.init(dom, null, { renderer: 'canvas' });
      resizeWithBox(dom);
    }
    const T = theme();
    const axis = { axisLabel: { color: T.muted }, axisLine: { lineStyle: { color: T.line } },
      splitLine: { lineStyle: { color: T.line } }, nameTextStyle: { color: T.muted } };
    const row = p => ({ value: [p.recovery, p.attempts], tip: p.tip });
    const empty = !!state.view.no_front;
    pareto.setOption({
      animation: false,
      graphic: state.view.no_front ? [{ type: 'text', left: 'center', top: 'middle', id: 'empty',
        style: { text: state.view.no_front, fill: T.muted, font: '13px sans-serif', lineHeight: 18,
          width: Math.max(dom.clientWidth - 60, 100), overflow: 'break', align: 'center' } }] : [],
      backgroundColor: T.card,
      grid: { left: 58, right: 24, top: 34, bottom: 70 },
      legend: { show: !empty, bottom: 4, textStyle: { color: T.fg } },
      tooltip: { trigger: 'item', renderMode: 'richText', confine: true, backgroundColor: T.card, borderColor: T.line,
        textStyle: { color: T.fg, width: 260, overflow: 'break' }, formatter: p => p.data.tip },
      xAxis: { show: !empty, type: 'value', name: 'recovery after the outage', nameLocation: 'middle', nameGap: 28, scale: true, ...axis,
        axisLabel: { color: T.muted, formatter: v => dur(v, 2) } },
      yAxis: { show: !empty, type: 'value', name: 'attempts per request', nameLocation: 'middle', nameGap: 40, scale: true, ...axis },
      series: [
        { name: 'the front', type: 'scatter', symbol: 'circle', symbolSize: 9, color: T.accent,
          data: pts.filter(p => !p.recommended).map(row) },
        { name: 'recommended', type: 'scatter', symbol: 'diamond', symbolSize: 18, color: T.good,
          itemStyle: { borderColor: T.fg, borderWidth: 1.5 },
          label: { show: true, position: 'right', formatter: 'recommended', color: T.fg },
          data: pts.filter(p => p.recommended).map(row) },
      ],
    }, { notMerge: true });
  }

  // drawMap lays out the small map as a table: each cell's class gives
  // its colour and pattern, its text its sign, its title its words.
  function drawMap(m) {
    const box = $('#adv-map');
    $('#adv-map-caption').textContent = m ? m.description : 'no map: the recommended setting has fewer than two knobs to vary';
    if (!m) {
      box.replaceChildren();
      $('#adv-map-legend').replaceChildren();
      return;
    }
    const head = el('tr', {}, el('th', { className: 'axis', scope: 'col', textContent: `${m.y_label} ↓ · ${m.x_label} →` }),
      ...m.x_values.map(x => el('th', { scope: 'col', textContent: x })));
    const rows = m.rows.map((r, j) => el('tr', {}, el('th', { scope: 'row', textContent: m.y_values[j] }),
      ...r.map((c, i) => el('td', {
        className: `adv-cell ${c.outcome} pat-${c.pattern}` + (i === m.chosen_x && j === m.chosen_y ? ' chosen' : ''),
        title: c.tip, textContent: c.sign, ariaLabel: c.tip }))));
    box.replaceChildren(scroller(m.description,
      el('table', {}, el('thead', {}, head), el('tbody', {}, ...rows))));
    box.querySelector('table').setAttribute('aria-label', m.description);
    $('#adv-map-legend').replaceChildren(para(m.why), ...m.legend.map(l => el('span', {},
      el('span', { className: `swatch adv-cell ${l.outcome} pat-${l.pattern}`, textContent: l.sign, ariaHidden: 'true' }), `${l.label}, ${l.pattern}`)));
  }

  // ---- copying and saving ---------------------------------------------------
  // copy puts the text of code (a code element) on the clipboard and says
  // so in note; without a clipboard (a page not served securely, a
  // permission denied) it selects the text, for the reader to copy.
  async function copy(code, note, what) {
    try {
      await navigator.clipboard.writeText($(code).textContent);
      $(note).textContent = `${what} copied`;
    } catch (e) {
      const r = document.createRange();
      r.selectNodeContents($(code));
      getSelection().removeAllRanges();
      getSelection().addRange(r);
      $(note).textContent = `${what} selected: press Ctrl+C or ⌘C`;
    }
  }
  $('#adv-copy-snippet').addEventListener('click', () => copy('#adv-snippet', '#adv-copied', 'configuration'));
  $('#adv-copy-flags').addEventListener('click', () => copy('#adv-flags', '#adv-copied-flags', 'command'));
  $('#adv-save-json').addEventListener('click', () => download('backofflab-advice.json', JSON.stringify(state.advice, null, 2) + '\n', 'application/json'));
  $('#adv-save-text').addEventListener('click', () => download('backofflab-advice.txt', state.text, 'text/plain'));
  onThemeChange(() => state.advice && drawPareto());

  if (S.run) {
    // The link is the request's canonical query.
    history.replaceState(null, '', '/advise?' + S.query);
    stream();
  }

  // For the tests: where the search stands.
  window.backofflabAdvise = {
    state: () => ({ ...state, advice: undefined, view: undefined, text: undefined }),
    advice: () => state.advice,
    view: () => state.view,
    pareto: () => pareto && pareto.getOption().series.map(s => ({ name: s.name, points: s.data.length })),
  };
})();
