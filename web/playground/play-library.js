// backofflab playground: each lane's "Your library" section. A library
// picked sets the lane to its defaults and shows its knobs; a
// configuration pasted in goes to the server (POST /config/import), which
// answers the lane's values or the errors naming its fields; the lane goes
// to the server (GET /config/export/{lane}) to come back as every
// library's configuration. The server parses, maps and words everything;
// this script shows it, and sets the lane as a change of its controls
// does: the whole scenario, sent as a set.

import { $, $$, attr, el } from './common.js';
import { LETTERS, boxes, page } from './play-state.js';
import { buildQuery, proseNodes, setBox, setControl, showStrategy } from './play-controls.js';
import { sendSet } from './play-socket.js';

// LIBRARIES[name] is a library's defaults (values, named without the
// lane's letter) and knobs, from Go (libraryViews).
const LIBRARIES = Object.fromEntries(page.libraries.map(l => [l.name, l]));

const libNotes = L => $(attr('data-library-notes', L));

// setLane sets lane L's controls to values, its number boxes to what
// boxes says they show, and sends the whole scenario, as a change of the
// controls does: the server takes it as part of the run.
function setLane(L, values, boxes) {
  for (const [base, v] of Object.entries(values)) {
    const e = $(attr('data-param', L + '.' + base));
    if (!e) continue;
    if (boxes[base] && e.type === 'text') {
      e.value = boxes[base].text;
      setBox(e, boxes[base]);
    } else setControl(e, v);
  }
  showStrategy(LETTERS.indexOf(L), values.strategy);
  sendSet();
}

// showLibrary shows the knobs and presets of library name in lane L's
// section, and no other library's.
function showLibrary(L, name) {
  for (const d of $$(attr('data-library-of', L))) d.hidden = d.dataset.libraryName !== name;
  showKnobs();
}

// showKnobs writes beside each knob the value its lane's control shows.
export function showKnobs() {
  for (const o of $$('output[data-knob]')) {
    const e = $(attr('data-param', o.dataset.knob));
    if (!e) continue;
    let text = e.value;
    if (e.type === 'checkbox') text = e.checked ? 'on' : 'off';
    else if (e.tagName === 'SELECT') text = e.selectedOptions[0] ? e.selectedOptions[0].textContent : e.value;
    const unit = e.closest('.ctl') && e.closest('.ctl').querySelector('.unit');
    o.textContent = '= ' + text + (unit && unit.textContent ? ' ' + unit.textContent : '');
  }
}

// noteList is a list of the server's notes (errors or warnings), each in
// prose parts, with a heading in words.
function noteList(head, notes, cls) {
  return [
    el('p', { className: 'library-head ' + cls, textContent: head }),
    el('ul', { className: 'library-list ' + cls }, ...notes.map(n => el('li', {}, ...proseNodes(n.parts)))),
  ];
}

// importConfig posts lane L's pasted configuration as the picked library's
// and applies the lane it makes, or shows the errors. pick names one of
// several retry policies the configuration holds; when it holds several
// and none is picked, the answer's choices become a button each.
async function importConfig(L, pick) {
  const box = libNotes(L);
  const name = $(attr('data-library-pick', L)).value;
  if (!name) {
    box.replaceChildren(el('p', { className: 'err', textContent: 'Choose the library whose configuration this is first.' }));
    return;
  }
  const text = $(attr('data-library-text', L)).value;
  let ans;
  try {
    const r = await fetch('/config/import', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(pick ? { lib: name, lane: L, text, pick } : { lib: name, lane: L, text }),
    });
    ans = await r.json();
  } catch (e) {
    box.replaceChildren(el('p', { className: 'err', textContent: `The configuration did not reach the server: ${e.message}` }));
    return;
  }
  const out = [];
  if (ans.choices && ans.choices.length > 0) {
    out.push(el('p', { className: 'library-head', textContent: `It holds ${ans.choices.length} retry policies; a lane takes one. Apply which?` }));
    out.push(el('ul', { className: 'library-choices' }, ...ans.choices.map(c => {
      const b = el('button', { type: 'button', textContent: c });
      b.dataset.libraryChoice = c;
      b.addEventListener('click', () => importConfig(L, c));
      return el('li', {}, b);
    })));
  } else if (ans.errors.length > 0) {
    out.push(...noteList(`Not applied: ${LIBRARIES[name].title} reads it otherwise.`, ans.errors, 'err'));
  } else {
    out.push(el('p', { className: 'library-head', textContent: pick ? `Applied ${pick} to lane ${L}.` : `Applied to lane ${L}.` }));
  }
  if (ans.warnings.length > 0) out.push(...noteList('What the lane does not take of it:', ans.warnings, 'warn'));
  box.replaceChildren(...out);
  if (ans.values) {
    showLibrary(L, name);
    setLane(L, ans.values, ans.boxes);
  }
}

// exportLane shows lane L, as the controls set it, written as every
// library's configuration or code, or why one cannot express it.
async function exportLane(L) {
  const out = $(attr('data-library-snippets', L));
  let ans;
  try {
    const r = await fetch(`/config/export/${L}?${buildQuery()}`);
    ans = await r.json();
  } catch (e) {
    out.replaceChildren(el('p', { className: 'err', textContent: `The export did not reach the server: ${e.message}` }));
    return;
  }
  if (ans.errors.length > 0) {
    out.replaceChildren(...noteList('Lane ' + L + ' cannot be written yet:', ans.errors, 'err'));
    return;
  }
  out.replaceChildren(...ans.snippets.map(s => {
    const sec = el('section', { className: 'snippet' }, el('h3', { textContent: s.title }));
    sec.dataset.snippet = s.lib;
    if (s.text) {
      const code = el('code', { textContent: s.text });
      const copy = el('button', { type: 'button', textContent: 'Copy' });
      copy.addEventListener('click', () => copyText(copy, code));
      // A snippet wider or longer than its box scrolls: the keyboard
      // reaches it.
      sec.append(el('pre', { tabIndex: 0 }, code), copy);
      if (s.warning_parts) sec.append(el('ul', { className: 'library-list warn' }, ...s.warning_parts.map(p => el('li', {}, ...proseNodes(p)))));
    } else {
      sec.classList.add('cannot');
      sec.append(el('p', { textContent: `${s.title} cannot express this lane:` }),
        el('ul', { className: 'library-list' }, ...s.cannot_parts.map(p => el('li', {}, ...proseNodes(p)))));
    }
    return sec;
  }));
}

// copyText copies code's text, or selects it where there is no clipboard.
async function copyText(btn, code) {
  try {
    await navigator.clipboard.writeText(code.textContent);
    btn.textContent = 'Copied';
  } catch {
    getSelection().selectAllChildren(code);
    btn.textContent = 'Selected: copy it';
  }
}

export function wireLibraries() {
  for (const s of $$('[data-library-pick]')) {
    s.addEventListener('change', () => {
      const L = s.dataset.libraryPick;
      libNotes(L).replaceChildren();
      showLibrary(L, s.value);
      if (s.value) setLane(L, LIBRARIES[s.value].values, LIBRARIES[s.value].boxes);
    });
  }
  for (const b of $$('[data-library-import]')) b.addEventListener('click', () => importConfig(b.dataset.libraryImport, ''));
  for (const b of $$('[data-library-export]')) b.addEventListener('click', () => exportLane(b.dataset.libraryExport));
  for (const d of $$('[data-lane-library]')) d.addEventListener('toggle', showKnobs);
}
