// backofflab's shared page kit: what every view of the playground (the live
// run, the phase map, the seed bands, the contention study) needs the same
// way, defined once: DOM helpers, numbers and durations as a reader says
// them, the charts' colours read from the page's CSS, downloads, and the
// image export of a chart with its caption. It defines window.backofflabKit
// and nothing else; each view's script is loaded after it. No inline code
// anywhere: the page's Content-Security-Policy forbids it.
'use strict';

window.backofflabKit = (() => {
  const $ = (sel, root = document) => root.querySelector(sel);
  const $$ = (sel, root = document) => Array.from(root.querySelectorAll(sel));
  const readJSON = id => JSON.parse(document.getElementById(id).textContent);
  const attr = (name, value) => `[${name}="${CSS.escape(value)}"]`;
  const el = (tag, props = {}, ...kids) => {
    const e = Object.assign(document.createElement(tag), props);
    e.append(...kids);
    return e;
  };

  // ---- numbers, durations and units ----------------------------------------
  // plain writes a number without exponent, for display.
  function plain(v) {
    const s = String(v);
    const e = s.indexOf('e');
    if (e < 0) return s;
    const exp = Number(s.slice(e + 1));
    const frac = (s.slice(0, e).split('.')[1] || '').length;
    return exp < 0 ? v.toFixed(Math.min(100, frac - exp)) : BigInt(Math.round(v)).toString();
  }
  const fmt = v => plain(Number(v.toPrecision(12))); // trims float noise for display
  const sig = (v, n = 3) => fmt(Number(v.toPrecision(n)));
  // thousands groups a whole number with thin spaces: 43 170.
  const thousands = v => String(Math.round(v)).replace(/\B(?=(\d{3})+(?!\d))/g, '\u2009');

  // dur writes seconds as a reader says them: 100 ms, 20 s, 2.5 min, 1 h,
  // 1 h 15 min; n significant digits.
  function dur(v, n = 3) {
    if (v == null || Number.isNaN(v)) return '–';
    const a = Math.abs(v);
    if (a === 0) return '0';
    if (a < 1) return `${sig(v * 1000, n)} ms`;
    if (a < 600) return `${sig(v, n)} s`;
    if (a < 3600) return `${sig(v / 60, n)} min`;
    const h = Math.floor(a / 3600), m = Math.round((a - h * 3600) / 60);
    return m ? `${h} h ${m} min` : `${h} h`;
  }

  // count writes a count compactly for an axis: 950, 12k, 1.2M.
  function count(v) {
    const a = Math.abs(v);
    if (a >= 1e6) return `${sig(v / 1e6)}M`;
    if (a >= 1e4) return `${sig(v / 1e3)}k`;
    return sig(v);
  }

  // ---- the theme: the charts' colours, read from the page's CSS ------------
  // One place for every colour the charts draw with: the page's custom
  // properties, read at draw time, so that a theme (dark mode) that
  // changes them changes the charts. The fallbacks are the light theme's.
  function theme() {
    const cs = getComputedStyle(document.documentElement);
    const v = (name, fallback) => cs.getPropertyValue(name).trim() || fallback;
    return {
      fg: v('--fg', '#1d2330'),
      muted: v('--muted', '#5b6475'),
      line: v('--line', '#dde1e8'),
      card: v('--card', '#fff'),
      bad: v('--bad', '#b42318'),
      good: v('--good', '#1a7f37'),
      warn: v('--warn', '#9a6700'),
      accent: v('--accent', '#2f5fd0'),
      mark: v('--chart-mark', '#6b4fbb'),
      level: v('--chart-level', '#8a93a6'),
      outage: v('--chart-outage', ''), // '' keeps each fault kind's own colour
    };
  }

  // onThemeChange calls fn when the reader's colour scheme changes, after
  // the page's custom properties have.
  const onThemeChange = fn => matchMedia('(prefers-color-scheme: dark)').addEventListener('change', fn);

  // ---- exports ---------------------------------------------------------------
  function download(name, data, type) {
    const url = URL.createObjectURL(new Blob([data], { type }));
    const a = document.createElement('a');
    a.href = url;
    a.download = name;
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10000);
  }

  // readLines calls onLine with each line of a streamed response's body
  // (NDJSON: how the many-run views stream their work), without its end,
  // skipping empty lines. It resolves when the body ends and rejects when
  // reading fails (a cut connection, an abort) or onLine throws.
  async function readLines(res, onLine) {
    const reader = res.body.getReader();
    const dec = new TextDecoder();
    let buf = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buf += dec.decode(value, { stream: true });
      let i;
      while ((i = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        if (line) onLine(line);
      }
    }
  }

  // captionHeight is the height the caption adds under an exported chart.
  const captionHeight = 50;

  // exportChart downloads ECharts chart c as name (PNG at twice its size,
  // or SVG) with caption, which says what it shows, drawn under it: the
  // same option, drawn again off screen with the caption and without the
  // toolbox, the tooltip and any graphic but the one with id 'empty' (a
  // chart's word for no data).
  function exportChart(c, name, caption, format) {
    const T = theme();
    const w = c.getWidth(), h = c.getHeight() + captionHeight;
    const opt = c.getOption();
    opt.animation = false;
    opt.toolbox = [{ show: false }];
    opt.tooltip = [{ show: false }];
    opt.backgroundColor = T.card;
    opt.graphic = (opt.graphic && opt.graphic[0] ? opt.graphic[0].elements : []).filter(g => g.id === 'empty');
    opt.grid = (opt.grid || []).map(g => ({ ...g, bottom: (g.bottom === undefined ? 26 : Number(g.bottom)) + captionHeight }));
    if (opt.legend && opt.legend[0]) opt.legend = [{ ...opt.legend[0], bottom: captionHeight + 2 }];
    if (opt.visualMap) opt.visualMap = opt.visualMap.map(v => (v.bottom === undefined ? v : { ...v, bottom: Number(v.bottom) + captionHeight }));
    opt.title = [...(opt.title || []).slice(0, 1), { text: caption, left: 8, bottom: 4,
      textStyle: { fontSize: 10.5, fontWeight: 'normal', color: T.muted, width: w - 16, overflow: 'break', lineHeight: 14 } }];
    if (format === 'svg') {
      const svg = echarts.init(null, null, { renderer: 'svg', ssr: true, width: w, height: h });
      svg.setOption(opt);
      download(name, svg.renderToSVGString(), 'image/svg+xml');
      svg.dispose();
      return;
    }
    const x = echarts.init(document.createElement('div'), null, { renderer: 'canvas', width: w, height: h });
    x.setOption(opt);
    const url = x.getDataURL({ type: 'png', pixelRatio: 2, backgroundColor: T.card });
    x.dispose();
    // A data URL's bytes, without fetch (the page may connect to itself only).
    const bin = atob(url.slice(url.indexOf(',') + 1));
    download(name, Uint8Array.from(bin, ch => ch.charCodeAt(0)), 'image/png');
  }

  return { $, $$, readJSON, attr, el, plain, fmt, sig, thousands, dur, count, theme, onThemeChange, download, readLines, exportChart };
})();
