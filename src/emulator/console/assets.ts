/**
 * The console's style sheet and script, served from the emulator's origin
 * (the page's Content-Security-Policy allows scripts and styles from there
 * only). The script makes the server-rendered page live: it follows the
 * event stream (request rows and panels arrive as HTML rendered and escaped
 * on the server), filters rows, and posts forms with the page's CSRF token.
 */
export const CONSOLE_CSS = `
:root{--fg:#1d2330;--muted:#6b7385;--line:#dde1ea;--bg:#f6f7fb;--card:#fff;--accent:#3559e0;--ok:#1a7f4b;--warn:#b26b00;--bad:#c0352b}
*{box-sizing:border-box}body{margin:0;font:13px/1.4 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--fg);background:var(--bg)}
header{display:flex;gap:16px;align-items:baseline;padding:10px 16px;background:#1d2330;color:#fff}header h1{font-size:16px;margin:0}header .muted{color:#b8bfd0}
main{display:grid;grid-template-columns:minmax(0,3fr) minmax(0,2fr);gap:12px;padding:12px}
section{background:var(--card);border:1px solid var(--line);border-radius:6px;padding:8px 12px;min-width:0}#state{grid-column:1/-1}
.side{display:flex;flex-direction:column;gap:12px;min-width:0}
h2{font-size:14px;margin:2px 0 8px}h3{font-size:12px;margin:10px 0 4px;color:var(--muted);text-transform:uppercase;letter-spacing:.04em}h4{margin:6px 0 2px;font-size:12px}
table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:3px 6px;border-bottom:1px solid var(--line);vertical-align:top}th{font-weight:600;color:var(--muted)}
td.num{text-align:right;white-space:nowrap}td.path{word-break:break-all}td.time{white-space:nowrap;font-variant-numeric:tabular-nums}
#requests{max-height:78vh;overflow:auto}details summary{cursor:pointer}dl{display:grid;grid-template-columns:max-content 1fr;gap:0 8px;margin:2px 0;font-family:ui-monospace,monospace;font-size:11px}dt{color:var(--muted)}dd{margin:0;word-break:break-all}
.s2xx{color:var(--ok)}.s3xx{color:var(--accent)}.s4xx{color:var(--warn)}.s5xx,.scut{color:var(--bad)}.st{font-weight:600}
.status.revoked,.status.expired{color:var(--bad)}.status.active{color:var(--ok)}
meter{width:120px;height:10px;vertical-align:middle}
.chip{display:inline-block;padding:1px 6px;margin:1px;border:1px solid var(--line);border-radius:10px;background:var(--bg)}
.muted{color:var(--muted)}code{font-family:ui-monospace,monospace}
form.inline{display:inline}.controls form{margin:0 0 6px}.controls label{white-space:nowrap}input,select,button{font:inherit}button{cursor:pointer}
button.approve{color:var(--ok)}button.deny{color:var(--bad)}
.flash{margin:8px 16px;padding:6px 10px;border-radius:4px;background:#e8f3ec}.flash.error{background:#fbe9e7}
.live .nojs{display:none}
@media (max-width:900px){main{grid-template-columns:1fr}}
`;

export const CONSOLE_JS = `(function () {
  'use strict';
  var root = document.documentElement;
  root.classList.add('live');
  var tokenInput = document.querySelector('input[name="_csrf"]');
  var token = tokenInput ? tokenInput.value : '';
  var body = document.getElementById('requests-body');
  var service = document.getElementById('filter-service');
  var status = document.getElementById('filter-status');
  var live = document.getElementById('live');
  var flash = document.getElementById('flash');
  var MAX_ROWS = 500;

  function fragment(html) {
    var t = document.createElement('template');
    t.innerHTML = html;
    return t.content;
  }
  function shows(row) {
    return (!service.value || row.getAttribute('data-service') === service.value) && (!status.value || row.getAttribute('data-status') === status.value);
  }
  function refilter() {
    for (var i = 0; i < body.rows.length; i++) body.rows[i].hidden = !shows(body.rows[i]);
  }
  service.addEventListener('change', refilter);
  status.addEventListener('change', refilter);

  function say(text, error) {
    var p = document.createElement('p');
    p.className = error ? 'flash error' : 'flash';
    p.setAttribute('role', error ? 'alert' : 'status');
    p.textContent = text;
    flash.replaceChildren(p);
  }

  var es = new EventSource(location.pathname.replace(/\\/+$/, '') + '/events');
  es.addEventListener('open', function () { live.textContent = 'live'; });
  es.addEventListener('error', function () { live.textContent = 'reconnecting…'; });
  es.addEventListener('request', function (ev) {
    var row = fragment(JSON.parse(ev.data).html).firstElementChild;
    if (!row || (row.getAttribute('data-seq') && body.querySelector('tr[data-seq="' + row.getAttribute('data-seq') + '"]'))) return;
    row.hidden = !shows(row);
    body.insertBefore(row, body.firstChild);
    while (body.rows.length > MAX_ROWS) body.deleteRow(body.rows.length - 1);
  });
  es.addEventListener('panels', function (ev) {
    var panels = JSON.parse(ev.data);
    Object.keys(panels).forEach(function (id) {
      var el = document.getElementById('panel-' + id);
      if (el) el.replaceChildren(fragment(panels[id]));
    });
  });

  document.addEventListener('submit', function (ev) {
    var form = ev.target;
    if (!form || (form.getAttribute('method') || '').toLowerCase() !== 'post') return;
    if (form.hasAttribute('data-native')) {
      // A browser sign-in answered here goes on, in a new tab, to the client's redirect URI: a real form post (no pop-up to block).
      var field = form.querySelector('input[name="_csrf"]');
      if (!field) {
        field = document.createElement('input');
        field.type = 'hidden';
        field.name = '_csrf';
        form.appendChild(field);
      }
      field.value = token;
      return;
    }
    ev.preventDefault();
    var data = new FormData(form);
    if (ev.submitter && ev.submitter.name) data.set(ev.submitter.name, ev.submitter.value);
    data.delete('_csrf');
    var fields = new URLSearchParams(data);
    fetch(form.getAttribute('action'), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json', 'x-csrf-token': token },
      body: fields.toString(),
      credentials: 'same-origin',
    })
      .then(function (res) { return res.json().then(function (j) { return { ok: res.ok, j: j }; }); })
      .then(function (r) {
        if (!r.ok) return say(r.j.message || 'refused', true);
        say(r.j.message || 'done');
      })
      .catch(function (e) { say(String(e), true); });
  });
})();
`;

/** A lanyard's loop, for the tab. */
export const CONSOLE_ICON =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#1d2330"/><path d="M5 3v6a3 3 0 0 0 6 0V3" fill="none" stroke="#7aa2ff" stroke-width="2"/></svg>';
