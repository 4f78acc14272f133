// The contention study's page (/contention): it streams the study its URL
// holds from /contention/stream (NDJSON, one line per finished point) and
// draws the AWS blog's two charts, calls and completion time against N,
// one line per strategy, named by the labels Go sends. Leaving the page
// aborts the stream, which cancels the study on the server.
import { $, $$, readJSON, sig, dur, count, theme, onThemeChange, readLines, exportChart } from './common.js';

(() => {
  const st = readJSON('contention-data');
  const lines = st.lines.filter(l => l.on);
  // points[strategy] holds [N, mean, sd] rows of calls and of time (s).
  const points = Object.fromEntries(lines.map(l => [l.strategy, { calls: [], time: [] }]));
  const state = { done: 0, total: st.points, finished: false, error: '' };

  // The form's strategies: the checked boxes, joined into the URL's list.
  $('#cn-form').addEventListener('submit', () => {
    $('#cn-strategies').value = $$('[data-strategy]').filter(b => b.checked).map(b => b.dataset.strategy).join(',');
  });

  // The lines' colours: the page's custom properties --cn-1 to --cn-5,
  // which carry the dark scheme too.
  function colours() {
    const cs = getComputedStyle(document.documentElement);
    return st.lines.map((_, i) => cs.getPropertyValue(`--cn-${i + 1}`).trim() || undefined);
  }

  const CHARTS = {
    'cn-calls': { key: 'calls', axis: 'calls (writes)', fmt: v => count(v), tip: v => `${sig(v, 4)} calls` },
    'cn-time': { key: 'time', axis: 'completion time', fmt: v => dur(v, 2), tip: v => dur(v, 3) },
  };
  const charts = {};

  // legendRows guesses how many rows the legend wraps into at the chart's
  // width, from its labels' widths, so that the plot leaves it room.
  const measure = document.createElement('canvas').getContext('2d');
  function legendRows(width) {
    measure.font = '12px sans-serif';
    let rows = 1, x = 0;
    for (const l of lines) {
      const w = measure.measureText(l.label).width + 25 + 12; // icon, gap
      if (x > 0 && x + w > width - 16) { rows++; x = 0; }
      x += w;
    }
    return rows;
  }

  function option(id) {
    const spec = CHARTS[id];
    const rows = legendRows($(`#${id}`).clientWidth);
    const T = theme();
    const all = colours();
    const axis = {
      axisLabel: { color: T.muted }, axisLine: { lineStyle: { color: T.line } },
      splitLine: { lineStyle: { color: T.line } }, nameTextStyle: { color: T.muted },
    };
    return {
      animation: false,
      backgroundColor: T.card,
      grid: { left: 56, right: 18, top: 34, bottom: 48 + 22 * rows },
      legend: { bottom: 4, left: 8, right: 8, textStyle: { color: T.fg }, itemGap: 12 },
      tooltip: {
        trigger: 'axis', renderMode: 'richText', confine: true,
        backgroundColor: T.card, borderColor: T.line, textStyle: { color: T.fg },
        formatter: ps => [`N = ${ps[0].axisValue}`, ...ps.map(p => `${p.seriesName}: ${spec.tip(p.value[1])} ± ${spec.tip(p.value[2])}`)].join('\n'),
      },
      xAxis: { type: 'value', name: 'clients (N)', nameLocation: 'middle', nameGap: 26, min: 'dataMin', max: 'dataMax', ...axis },
      yAxis: { type: $(`[data-log="${id}"]`).checked ? 'log' : 'value', name: spec.axis, nameLocation: 'end', axisLabel: { color: T.muted, formatter: spec.fmt },
        axisLine: axis.axisLine, splitLine: axis.splitLine, nameTextStyle: { color: T.muted, align: 'left' } },
      series: lines.map(l => ({
        name: l.label, type: 'line', showSymbol: true, symbolSize: 5,
        color: all[st.lines.indexOf(l)],
        data: points[l.strategy][spec.key],
      })),
    };
  }

  function draw(id) {
    if (!charts[id]) charts[id] = echarts.init($(`#${id}`), null, { renderer: 'canvas' });
    charts[id].setOption(option(id), { notMerge: true });
  }
  const drawAll = () => Object.keys(CHARTS).forEach(draw);

  // add files a point under its strategy, in increasing N.
  function add(p) {
    const rows = points[p.strategy];
    if (!rows) return;
    for (const [key, v] of [['calls', p.calls], ['time', p.time]]) {
      rows[key].push([p.clients, v.mean, v.sd]);
      rows[key].sort((a, b) => a[0] - b[0]);
    }
  }

  function status(text, tone) {
    const s = $('#cn-status');
    s.textContent = text;
    s.className = 'status' + (tone ? ' ' + tone : '');
  }

  function progress() {
    $('#cn-progress').value = state.done;
    const left = state.left > 0 ? `, about ${dur(state.left, 2)} left` : '';
    status(`${state.done} of ${state.total} points (${st.runs} runs each)${left}`);
  }

  function handle(m) {
    switch (m.type) {
      case 'start':
        state.total = m.total;
        progress();
        break;
      case 'point':
        add(m.point);
        state.done = m.done;
        state.left = m.left || 0;
        progress();
        drawAll();
        break;
      case 'done':
        state.finished = true;
        status(`done: ${state.total} points, ${st.runs} runs each`, 'ok');
        if (m.conclusion) {
          const c = $('#cn-conclusion');
          c.textContent = m.conclusion;
          c.hidden = false;
        }
        break;
      case 'error':
        state.error = m.message;
        status(`stopped: ${m.message}`, 'bad');
        break;
    }
  }

  async function stream() {
    const ac = new AbortController();
    window.addEventListener('pagehide', () => ac.abort());
    let res;
    try {
      res = await fetch(`/contention/stream?${st.query}`, { signal: ac.signal });
    } catch (e) {
      if (!ac.signal.aborted) handle({ type: 'error', message: `the server could not be reached (${e.message})` });
      return;
    }
    if (!res.ok) {
      handle({ type: 'error', message: (await res.text()).trim() });
      return;
    }
    try {
      await readLines(res, line => handle(JSON.parse(line)));
    } catch (e) {
      if (ac.signal.aborted) return;
      handle({ type: 'error', message: `the stream was cut (${e.message})` });
      return;
    }
    if (!state.finished && !state.error) handle({ type: 'error', message: 'the stream ended before the study did (the server may be shutting down)' });
  }

  for (const b of $$('[data-export]')) {
    b.addEventListener('click', () => {
      const id = b.dataset.export;
      const dom = $(`#${id}`);
      const caption = `backofflab · ${dom.dataset.title}: ${dom.dataset.caption}. ${st.runs} runs a point; ${location.href}`;
      exportChart(charts[id], `backofflab-contention-${CHARTS[id].key}.${b.dataset.format}`, caption, b.dataset.format);
    });
  }

  for (const b of $$('[data-log]')) b.addEventListener('change', () => draw(b.dataset.log));

  drawAll();
  new ResizeObserver(() => {
    Object.values(charts).forEach(c => c.resize());
    drawAll(); // the legend may wrap into more or fewer rows
  }).observe($('.cn-charts'));
  onThemeChange(drawAll);
  if (st.query) stream();

  // For the tests: where the study stands and what each chart draws.
  window.backofflabContention = {
    state: () => ({ ...state }),
    series: id => charts[id].getOption().series.map(s => ({ name: s.name, points: s.data.length })),
    axis: id => charts[id].getOption().yAxis[0].type,
  };
})();
