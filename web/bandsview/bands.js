// backofflab seed bands: runs the page's scenario with many seeds and draws,
// per lane and per chart of the playground, each series' median line and
// its 5–95 % band across the seeds, and how many seeds collapsed.
//
// The server runs the seeds and computes the bands (web/bandsview/bands.go, the
// bands package): this script reads its NDJSON stream (progress lines,
// then the result as `backofflab bands -format json` and `-format csv`
// write it), and leaving the page aborts the stream, which stops the
// seeds. The charts' rows, series, labels, units and colours are the
// playground's (web/scene/charts.go's ChartSpecs, in the page's JSON block).
import { $, readJSON, attr, el, dur, unitOf, timeStep, ICONS, fitLegend, resizeWithBox, halfWindow, meanAround, theme, onThemeChange, download, exportChart } from './common.js';

(() => {
  const S = readJSON('bands-data');
  const [Q5, Q50, Q95] = S.quantiles; // "p5", "p50", "p95"

  let band = null; // the result's JSON, parsed
  let files = null; // the result's CSV and JSON as the server wrote them
  let words = null; // the result's captions and collapsed seeds, in the server's words (web/bandsview/bands.go)
  const charts = {}; // "chart.letter" → ECharts instance
  // Each smoothing chart row shows 1 s averages of its quantiles unless
  // its toolbox turns that off, as the playground's do.
  const smooth = Object.fromEntries(S.charts.map(k => [k.id, !!k.smooth]));
  let T = theme();

  // ---- the run ---------------------------------------------------------------
  const abort = new AbortController();
  addEventListener('pagehide', () => abort.abort());

  function status(text, tone) {
    const s = $('#bands-status');
    s.textContent = text;
    s.className = 'status' + (tone ? ' ' + tone : '');
  }

  async function run() {
    if (!S.run) return;
    const t0 = performance.now();
    let res;
    try {
      res = await fetch(S.run, { signal: abort.signal });
    } catch (e) {
      if (!abort.signal.aborted) status(`could not reach the server: ${e.message}`, 'bad');
      return;
    }
    if (!res.ok) {
      const text = (await res.text()).trim() || res.statusText;
      $('#bands-errors').replaceChildren(...text.split('\n').map(l => el('p', { textContent: l })));
      status('nothing ran', 'bad');
      return;
    }
    // NDJSON lines until the result's; then the band's JSON, one line,
    // and its CSV, csv_bytes of ASCII, to the end (web/bandsview/bands.go).
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    let buf = '', from = 0; // the result is long: look for a line's end in the new text only
    let mode = 'lines', csvBytes = 0, json = '';
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buf += value;
        for (let i; mode !== 'csv' && (i = buf.indexOf('\n', from)) >= 0; from = 0) {
          const line = buf.slice(0, i);
          buf = buf.slice(i + 1);
          if (mode === 'json') {
            json = line;
            mode = 'csv';
            break;
          }
          const m = JSON.parse(line);
          if (m.type === 'result') {
            mode = 'json';
            csvBytes = m.csv_bytes;
            words = m;
          } else handle(m);
        }
        from = buf.length;
      }
    } catch (e) {
      if (!abort.signal.aborted) status(`the run was cut: ${e.message}`, 'bad');
      return;
    }
    if (mode === 'csv' && buf.length === csvBytes) {
      result(json, buf, t0);
    } else if (!$('#bands-status').classList.contains('bad')) {
      status('the run was cut before its end', 'bad');
    }
  }

  function result(json, csv, t0) {
    files = { csv, json: json + '\n' };
    band = JSON.parse(json);
    $('#bands-csv').disabled = false;
    $('#bands-json').disabled = false;
    status(`done: ${band.seeds} seeds in ${dur((performance.now() - t0) / 1000, 2)}`, 'ok');
    showOutcomes();
    draw();
  }

  function handle(m) {
    switch (m.type) {
      case 'progress': {
        $('#bands-progress').value = m.done;
        const left = m.left > 0 ? `, about ${dur(m.left, 2)} left` : '';
        status(`${m.done} of ${m.total} seeds done${left}`);
        break;
      }
      case 'error':
        status(m.message, 'bad');
        break;
    }
  }

  // ---- the lanes' outcomes ---------------------------------------------------
  function showOutcomes() {
    band.lanes.forEach((ln, i) => {
      const p = $(attr('data-collapsed', ln.name));
      const n = ln.collapsed, k = band.seeds;
      p.textContent = words.collapsed[i];
      p.className = 'verdict ' + (n === 0 ? 'good' : n === k ? 'bad' : 'warn');
      $(attr('data-requests', ln.name)).textContent = words.requests ? words.requests[i] : '';
      $(attr('data-outcomes', ln.name)).replaceChildren(...ln.outcomes.map(o =>
        el('li', { textContent: `seed ${o.seed}: ${o.verdict}` })));
    });
  }

  // ---- the charts --------------------------------------------------------------
  // smoothed returns vs as 1 s averages (common.js), or vs itself.
  function smoothed(vs, on) {
    const h = halfWindow(tickLen());
    if (!on || h === 0) return vs;
    return vs.map((_, j) => meanAround(k => vs[k], vs.length, j, h));
  }
  const tickLen = () => (band.t.length > 1 ? band.t[1] - band.t[0] : band.t[0] || 0.1);

  // option is chart id's ECharts option for lane ln: for each series of
  // its spec, an invisible p5 line with the band (p95 − p5) stacked on it,
  // shaded in the series' colour, and the median line on top. The three
  // share the series' label, so that its legend entry toggles them all.
  function option(spec, ln, c) {
    const t = band.t;
    const series = [];
    for (const s of spec.series) {
      const q = band.lanes[ln].bands[s.name];
      const lo = smoothed(q[Q5], smooth[spec.id]), mid = smoothed(q[Q50], smooth[spec.id]), hi = smoothed(q[Q95], smooth[spec.id]);
      const pts = f => t.map((_, j) => f(j));
      const common = { type: 'line', name: s.label, yAxisIndex: s.axis, symbol: 'none', animation: false, connectNulls: false };
      series.push(
        { ...common, id: `${s.name}.lo`, stack: s.name, silent: true, lineStyle: { opacity: 0 }, data: pts(j => lo[j]) },
        { ...common, id: `${s.name}.band`, stack: s.name, silent: true, lineStyle: { opacity: 0 },
          areaStyle: { color: s.color, opacity: 0.2 }, data: pts(j => (lo[j] == null || hi[j] == null ? null : hi[j] - lo[j])) },
        { ...common, id: `${s.name}.p50`, color: s.color, lineStyle: { width: 1.5, color: s.color }, itemStyle: { color: s.color },
          data: pts(j => mid[j]) });
    }
    const axis = { axisLabel: { color: T.muted }, axisLine: { lineStyle: { color: T.line } }, splitLine: { lineStyle: { color: T.line } } };
    const narrow = c.getWidth() < 320;
    return {
      animation: false,
      backgroundColor: T.card,
      title: { text: spec.title, left: 4, top: narrow ? 20 : 2, textStyle: { fontSize: 12, color: T.fg } },
      legend: { bottom: 0, left: 'center', itemWidth: 14, itemHeight: 8, textStyle: { fontSize: 11, color: T.fg },
        data: spec.series.map(s => ({ name: s.label, itemStyle: { color: s.color } })) },
      grid: { left: 6, right: 18, top: narrow ? 48 : 30, bottom: 26, containLabel: true },
      toolbox: { right: 4, top: 0, itemSize: 13, itemGap: 7, iconStyle: { borderColor: T.muted }, feature: toolbox(spec, ln, c) },
      tooltip: { trigger: 'axis', renderMode: 'richText', confine: true, backgroundColor: T.card, borderColor: T.line,
        textStyle: { color: T.fg }, formatter: ps => tip(spec, ln, ps) },
      // A category axis of the ticks' times: ECharts stacks the band on
      // its lower edge point by point there (on a value axis it does not).
      xAxis: { type: 'category', data: t, boundaryGap: false, ...axis,
        axisTick: { interval: onStep(narrow ? 3 : 6), lineStyle: { color: T.line } },
        axisLabel: { color: T.muted, interval: onStep(narrow ? 3 : 6), hideOverlap: true, formatter: v => dur(Number(v), 3) } },
      yAxis: spec.units.map((u, k) => ({ type: 'value', position: k ? 'right' : 'left', min: 0, ...axis,
        splitLine: { show: k === 0, lineStyle: { color: T.line } }, axisLabel: { color: T.muted, formatter: v => unitOf(u).axis(v) } })),
      series,
    };
  }

  // onStep returns whether tick j's time (v) is a multiple of a step that
  // gives the x axis at most n labels that read as durations.
  const onStep = n => {
    const step = timeStep(S.duration, n);
    return (j, v) => {
      const k = Number(v) / step;
      return Math.abs(k - Math.round(k)) < 1e-6;
    };
  };

  // tip is a tooltip's text (drawn on the canvas: the page's CSP blocks
  // the HTML tooltip's inline styles): the time, then each series' median
  // and band.
  function tip(spec, ln, ps) {
    if (!ps || !ps.length) return '';
    const j = ps[0].dataIndex;
    const lines = [`lane ${S.lanes[ln]} · t = ${dur(band.t[j], 4)}${smooth[spec.id] ? ' · 1 s average' : ''}`];
    for (const s of spec.series) {
      const q = band.lanes[ln].bands[s.name];
      const f = unitOf(spec.units[s.axis]).tip;
      const v = k => {
        const x = smoothed(q[k], smooth[spec.id])[j];
        return x == null ? 'none' : f(x);
      };
      lines.push(`${s.label}: ${v(Q50)} (5–95 %: ${v(Q5)} – ${v(Q95)})`);
    }
    return lines.join('\n');
  }

  function toolbox(spec, ln, c) {
    const name = f => `backofflab-bands-${spec.id}-${S.lanes[ln]}.${f}`;
    const f = {
      myPng: { show: true, title: 'PNG', icon: ICONS.png, onclick: () => exportChart(c, name('png'), caption(spec, ln), 'png') },
      mySvg: { show: true, title: 'SVG', icon: ICONS.svg, onclick: () => exportChart(c, name('svg'), caption(spec, ln), 'svg') },
    };
    if (spec.smooth) {
      f.mySmooth = { show: true, title: smooth[spec.id] ? 'every tick (no averaging)' : '1 s average', icon: ICONS.smooth,
        iconStyle: { borderColor: smooth[spec.id] ? T.fg : T.muted },
        onclick: () => { smooth[spec.id] = !smooth[spec.id]; draw(); } };
    }
    return f;
  }

  // caption says what an exported chart shows, as the server writes it
  // (bands.Result.Caption), and how to get it again: the page's address,
  // which the browser knows as the reader reached it.
  function caption(spec, ln) {
    const key = `${spec.id}.${S.lanes[ln]}`;
    const said = (smooth[spec.id] ? words.averaged : words.captions) || {};
    return `${said[key] || ''} ${location.origin}/bands?${S.query}`;
  }

  function draw() {
    if (!band) return;
    band.lanes.forEach((_, ln) => {
      for (const spec of S.charts) {
        const dom = $(`.chart${attr('data-chart', spec.id)}${attr('data-lane', S.lanes[ln])}`);
        if (!dom || dom.hidden) continue;
        const key = `${spec.id}.${S.lanes[ln]}`;
        if (!charts[key]) {
          const made = (charts[key] = echarts.init(dom));
          resizeWithBox(dom);
          new ResizeObserver(() => fitLegend(made)).observe(dom);
        }
        const c = charts[key];
        c.setOption(option(spec, ln, c), { notMerge: true });
        fitLegend(c); // wraps, never pages, and the plot makes room
        dom.dataset.drawn = 'true';
      }
    });
  }

  onThemeChange(() => {
    T = theme();
    draw();
  });

  // ---- exports -----------------------------------------------------------------
  $('#bands-csv').addEventListener('click', () => files && download('backofflab-bands.csv', files.csv, 'text/csv'));
  $('#bands-json').addEventListener('click', () => files && download('backofflab-bands.json', files.json, 'application/json'));

  // For the browser tests: the band once it is in, and a chart by
  // "id.letter".
  window.backofflabBands = { result: () => band, chart: key => charts[key] || null };

  run();
})();
