// backofflab playground: the exports (the rows as CSV or JSON, formatted
// by the server; a chart as PNG or SVG, with the caption the server
// writes) and the link to the run.

import { $, download, exportChart } from './common.js';
import { LETTERS, captions, lanes, lastSummary, query, requests, rows, settings } from './play-state.js';
import { showError } from './play-controls.js';

// ---- exports ---------------------------------------------------------------
// exportRows downloads what the page shows as CSV or JSON. The server
// formats it (POST /export.csv|json, web/playground/pageexport.go), as `backofflab
// run -format csv|json` does: the page only sends its summaries and rows,
// as the socket brought them.
export async function exportRows(format, type) {
  const body = [JSON.stringify(lastSummary), ...rows.map(r => JSON.stringify(r))].join('\n');
  try {
    const res = await fetch(`/export.${format}?${query}`, { method: 'POST', body, headers: { 'Content-Type': 'application/json' } });
    if (!res.ok) throw new Error((await res.text()).trim() || res.statusText);
    download(`backofflab.${format}`, await res.blob(), type);
  } catch (err) {
    showError('', `${format.toUpperCase()} export failed: ${err.message}`);
  }
}

// captionOf says what an exported chart of lane i shows: the server
// writes it (scenario.LaneCaption), in hello and params.
export const captionOf = i => captions[i] || '';

// exportImage downloads lane i's chart c (chart id) as PNG or SVG, its
// caption naming the lane, its strategy and the run's key parameters.
export function exportImage(c, id, i, format) {
  const strategy = lanes[i] ? lanes[i].strategy : '';
  exportChart(c, `backofflab-${LETTERS[i]}-${strategy}-${id}.${format}`, captionOf(i), format);
}

// requestsCSV is lane i's requests chart as CSV, as the requests message
// holds it: a row per latency bin, its edges in seconds (from 0 for the
// first), the requests that ended in it and those of them that
// succeeded; the header alone before the first message.
export function requestsCSV(i) {
  const out = ['lane,strategy,from_s,to_s,ended,succeeded'];
  const l = requests && requests.lanes[i];
  const strategy = lanes[i] ? lanes[i].strategy : '';
  if (l) requests.edges.forEach((e, k) => out.push(`${LETTERS[i]},${strategy},${k ? requests.edges[k - 1] : 0},${e},${l.ended[k]},${l.ok[k]}`));
  return out.join('\n') + '\n';
}

// exportRequests downloads lane i's requests chart as CSV (requestsCSV).
export function exportRequests(i) {
  const strategy = lanes[i] ? lanes[i].strategy : '';
  download(`backofflab-${LETTERS[i]}-${strategy}-requests.csv`, requestsCSV(i), 'text/csv');
}

// copyLink copies the link to the run shown (the page's URL: its values
// at t = 0 and its live changes) or, with fromZero, to the values in
// effect run from t = 0.
export async function copyLink(fromZero) {
  const btn = $(fromZero ? '#copy-settings' : '#copy-link');
  const label = btn.dataset.label || (btn.dataset.label = btn.textContent);
  const url = fromZero ? `${location.origin}${location.pathname}?${settings}` : location.href;
  const done = text => {
    btn.textContent = text;
    setTimeout(() => (btn.textContent = label), 1500);
  };
  try {
    await navigator.clipboard.writeText(url);
    done('Copied');
  } catch {
    // No clipboard API (plain http, old browser): show the link selected.
    const field = $('#link-text');
    field.hidden = false;
    field.value = url;
    field.focus();
    field.select();
    let ok = false;
    try {
      ok = document.execCommand('copy');
    } catch {}
    done(ok ? 'Copied' : 'Select and copy');
  }
}
