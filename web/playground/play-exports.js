// backofflab playground: the exports (the rows as CSV or JSON, formatted
// by the server; a chart as PNG or SVG, with the caption the server
// writes) and the link to the run.

import { $, download, exportChart } from './common.js';
import { LETTERS, captions, lanes, lastSummary, query, rows, settings } from './play-state.js';
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
