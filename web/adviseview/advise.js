// The advice's page (/advise): its form is the request, its URL the
// page's state. A page whose URL names a request streams the search from
// /advise/stream (NDJSON: progress lines, then the advice or an error)
// and draws the advice Go computed and put into words: the
// recommendation, its measurements, the snippet, the Pareto front, the
// small map and the links. Cancel, or leaving the page, aborts the
// stream, which cancels the search on the server.
'use strict';

(() => {
  const { $, $$, readJSON, el, dur, sig, theme, onThemeChange, readLines, download, resizeWithBox } = window.backofflabKit;
  const S = readJSON('advise-state');
  const state = { phase: '', done: 0, total: 0, left: -1, running: false, finished: false, cancelled: false, error: '', advice: null, text: '' };

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
        progress();
        break;
      case 'progress':
        state.phase = m.phase;
        state.done = m.done;
        state.total = m.total;
        state.left = m.left == null ? -1 : m.left;
        progress();
        break;
      case 'advice':
        state.finished = true;
        state.advice = m.advice;
        state.text = m.text;
        $('#adv-progress').value = $('#adv-progress').max;
        status(m.status, m.advice.met ? 'ok' : 'bad');
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
  function draw() {}

  if (S.run) {
    // The link is the request's canonical query.
    history.replaceState(null, '', '/advise?' + S.query);
    stream();
  }

  // For the tests: where the search stands.
  window.backofflabAdvise = {
    state: () => ({ ...state, advice: undefined, text: undefined }),
    advice: () => state.advice,
  };
})();
