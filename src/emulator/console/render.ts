/**
 * The console's HTML, rendered on the server: the whole page (readable with
 * JavaScript off) and the panels and request rows the live page swaps in
 * from the event stream. Every value is escaped here, once; nothing in it is
 * a secret (credentials arrive masked, headers redacted).
 */
import { EmulatorAdminPrefix } from '../../shared/constants.js';
import type { JournalEntry } from '../journal.js';
import { escapeHtml as h } from '../router.js';
import type { Snapshot } from './snapshot.js';

export const CONSOLE_PATH = `${EmulatorAdminPrefix}/console`;
export const SERVICES = ['hosting', 'echo', 'protocol', 'mailbox', 'health', 'admin', 'emulator'] as const;
export const STATUS_CLASSES = ['2xx', '3xx', '4xx', '5xx', 'cut'] as const;

/** A journal entry with the answer's headers (kept by the console while it is watched). */
export interface ConsoleRow {
  entry: JournalEntry;
  answer?: Record<string, string>;
}

/** An emulator time to the second; 'never' for one beyond any date (a seeded token that does not expire). */
const iso = (ms: number) => (Math.abs(ms) <= 8.64e15 ? new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z') : 'never');

export function statusClass(status: number): string {
  return status === 0 ? 'cut' : `${Math.floor(status / 100)}xx`;
}

function headerList(hs: Record<string, string> | undefined): string {
  if (!hs) return '<p class="muted">not recorded (the answer came before the console was open)</p>';
  return `<dl>${Object.entries(hs)
    .map(([k, v]) => `<dt>${h(k)}</dt><dd>${h(v)}</dd>`)
    .join('')}</dl>`;
}

/** The caller as the console shows it: who (the account, else the credential's kind) and from where. */
function callerOf(e: JournalEntry): string {
  const who = e.caller.login ?? (e.caller.auth ? `${e.caller.auth} credential` : 'anonymous');
  return `${who} @ ${e.caller.ip}`;
}

/** Query fields as the journal keeps them (one value or several), back in a query string. */
export function queryString(q: Record<string, string | string[]>): string {
  return new URLSearchParams(Object.entries(q).flatMap(([k, v]) => (Array.isArray(v) ? v : [v]).map((x): [string, string] => [k, x]))).toString();
}

export function renderRow({ entry: e, answer }: ConsoleRow): string {
  const query = Object.keys(e.query).length ? `?${queryString(e.query)}` : '';
  const fault = e.fault ? `${e.fault.type}${e.fault.chaos ? ' (chaos)' : ''} #${e.fault.id}` : '';
  return (
    `<tr data-service="${h(e.service)}" data-status="${statusClass(e.status)}" data-seq="${e.seq}">` +
    `<td class="time">${h(e.time.slice(11, 23))}</td><td>${h(e.service)}</td><td>${h(callerOf(e))}</td><td>${h(e.method)}</td>` +
    `<td class="path"><details><summary>${h(e.path)}</summary>` +
    `<p><b>Query</b> ${h(query || '(none)')}</p>` +
    (e.caller.userAgent ? `<p><b>User agent</b> ${h(e.caller.userAgent)}</p>` : '') +
    `<h4>Request headers</h4>${headerList(e.headers)}<h4>Answer headers</h4>${headerList(answer)}</details></td>` +
    `<td class="st s${statusClass(e.status)}">${e.status || 'cut'}</td><td class="num">${e.durationMs} ms</td><td>${h(fault)}</td></tr>`
  );
}

export function renderRequests(rows: ConsoleRow[], filter: { service?: string; status?: string }): string {
  const shown = rows.filter(
    (r) => (!filter.service || r.entry.service === filter.service) && (!filter.status || statusClass(r.entry.status) === filter.status),
  );
  const opt = (v: string, sel: string | undefined) => `<option value="${h(v)}"${v === (sel ?? '') ? ' selected' : ''}>${h(v || 'all')}</option>`;
  return (
    `<form method="get" action="${CONSOLE_PATH}" id="filters" class="inline">` +
    `<label>Service <select name="service" id="filter-service">${['', ...SERVICES].map((s) => opt(s, filter.service)).join('')}</select></label> ` +
    `<label>Status <select name="status" id="filter-status">${['', ...STATUS_CLASSES].map((s) => opt(s, filter.status)).join('')}</select></label> ` +
    `<button type="submit" class="nojs">Filter</button></form>` +
    `<table id="requests-table"><thead><tr><th>time</th><th>service</th><th>caller</th><th>method</th><th>path (open for headers)</th><th>status</th><th>duration</th><th>fault</th></tr></thead>` +
    `<tbody id="requests-body">${shown
      .slice()
      .reverse()
      .map((r) => renderRow(r))
      .join('')}</tbody></table>`
  );
}

/** A bar of how much of a limit is used (a <meter>: the page's policy allows no inline style). */
function bar(used: number, limit: number): string {
  const pct = limit > 0 ? Math.min(100, Math.round((used / limit) * 100)) : 0;
  return `<meter min="0" max="${limit}" value="${Math.min(used, limit)}" low="${Math.round(limit * 0.5)}" high="${Math.round(limit * 0.9)}" optimum="0" title="${pct}%">${pct}%</meter>`;
}

export function renderLimits(s: Snapshot): string {
  const { buckets, windows, secondaryLimits } = s.limits;
  const b = buckets.length
    ? `<table id="buckets"><thead><tr><th>caller</th><th>resource</th><th>used / limit</th><th>remaining</th><th></th><th>resets</th></tr></thead><tbody>${buckets
        .map(
          (x) =>
            `<tr data-caller="${h(x.caller)}" data-resource="${h(x.resource)}"><td>${h(x.caller)}</td><td>${h(x.resource)}</td><td class="num used">${x.used} / ${x.limit}</td><td class="num remaining">${x.remaining}</td><td>${bar(x.used, x.limit)}</td><td>${h(iso(x.reset * 1000))}</td></tr>`,
        )
        .join('')}</tbody></table>`
    : '<p class="muted">No hosting budget in use yet: a request to the hosting API opens its caller\'s window.</p>';
  const w = windows.length
    ? `<table id="windows"><thead><tr><th>caller</th><th>secondary window</th><th>used / limit</th><th></th></tr></thead><tbody>${windows
        .map((x) => `<tr><td>${h(x.caller)}</td><td>${h(x.name)}</td><td class="num">${x.used} / ${x.limit}</td><td>${bar(x.used, x.limit)}</td></tr>`)
        .join('')}</tbody></table>`
    : '<p class="muted">No secondary window open.</p>';
  const l = Object.entries(secondaryLimits)
    .map(([k, v]) => `<span class="chip">${h(k)} ${v}</span>`)
    .join(' ');
  return `<h3>Primary budgets</h3>${b}<h3>Secondary windows</h3>${w}<p>Secondary limits: ${l}</p>`;
}

export function renderPending(s: Snapshot): string {
  if (!s.pending.length) return '<p class="muted" id="no-pending">No sign-in in progress.</p>';
  return `<table id="pending-table"><thead><tr><th>service</th><th>kind</th><th>code / client</th><th>scopes</th><th>expires</th><th>answer</th></tr></thead><tbody>${s.pending
    .map(
      (p) =>
        `<tr data-code="${h(p.code)}"><td>${h(p.service)}</td><td>${h(p.kind)}</td><td><code>${h(p.code)}</code>${p.code !== p.client ? ` <span class="muted">${h(p.client)}</span>` : ''}</td><td>${h(p.scopes)}</td><td>${h(iso(p.expiresAt))}</td>` +
        `<td><form method="post" action="${CONSOLE_PATH}/actions" class="inline"${p.kind === 'authorization request' ? ' target="_blank" data-native="1"' : ''}><input type="hidden" name="id" value="${h(p.id)}">` +
        (p.users.length ? `<label>as <select name="login">${p.users.map((u) => `<option>${h(u)}</option>`).join('')}</select></label> ` : '') +
        `<button type="submit" name="action" value="approve" class="approve">Approve</button> <button type="submit" name="action" value="deny" class="deny">Deny</button></form></td></tr>`,
    )
    .join('')}</tbody></table>`;
}

function revokeForm(id: string, label: string): string {
  return `<form method="post" action="${CONSOLE_PATH}/actions" class="inline"><input type="hidden" name="id" value="${h(id)}"><button type="submit" name="action" value="revoke">${h(label)}</button></form>`;
}

export function renderState(s: Snapshot): string {
  return s.services
    .map((v) => {
      const parts: string[] = [];
      if (v.users.length)
        parts.push(`<p><b>Users</b> ${v.users.map((u) => `<span class="chip" title="${h(u.note ?? '')}">${h(u.name)}</span>`).join(' ')}</p>`);
      if (v.apps.length)
        parts.push(`<p><b>Apps and clients</b> ${v.apps.map((a) => `<span class="chip" title="${h(a.note ?? '')}">${h(a.name)}</span>`).join(' ')}</p>`);
      if (v.credentials.length)
        parts.push(
          `<table class="credentials"><thead><tr><th>credential</th><th>kind</th><th>whose</th><th>client</th><th>scopes</th><th>expires</th><th>status</th><th></th></tr></thead><tbody>${v.credentials
            .map(
              (c) =>
                `<tr data-status="${c.status}"><td><code>${h(c.masked)}</code></td><td>${h(c.kind)}</td><td>${h(c.subject)}</td><td>${h(c.client ?? '')}</td><td>${h(c.scopes ?? '')}</td><td>${c.expiresAt !== undefined ? h(iso(c.expiresAt)) : 'never'}</td><td class="status ${c.status}">${c.status}</td><td>${c.revocable ? revokeForm(c.id, 'Revoke') : ''}</td></tr>`,
            )
            .join('')}</tbody></table>`,
        );
      if (v.sessions.length)
        parts.push(
          `<table class="sessions"><thead><tr><th>session</th><th>whose</th><th>note</th><th></th></tr></thead><tbody>${v.sessions
            .map((x) => `<tr><td><code>${h(x.masked)}</code></td><td>${h(x.subject)}</td><td>${h(x.note ?? '')}</td><td>${revokeForm(x.id, 'End')}</td></tr>`)
            .join('')}</tbody></table>`,
        );
      if (v.counts.length) parts.push(`<p>${v.counts.map((c) => `<span class="chip">${h(c.name)}: <b>${c.value}</b></span>`).join(' ')}</p>`);
      if (v.events.length)
        parts.push(
          `<table class="events"><thead><tr><th>event</th><th>status</th><th></th></tr></thead><tbody>${v.events
            .map((e) => `<tr><td>${h(e.name)}</td><td>${h(e.status)}</td><td class="muted">${h(e.note ?? '')}</td></tr>`)
            .join('')}</tbody></table>`,
        );
      return `<section class="service" id="state-${h(v.name)}"><h3>${h(v.name)}</h3>${parts.join('') || '<p class="muted">nothing yet</p>'}</section>`;
    })
    .join('');
}

export function renderClock(s: Snapshot): string {
  const off = Math.round(s.clockOffsetMs / 1000);
  return `<span id="now">${h(iso(s.now))}</span> <span class="muted">${s.frozen ? 'frozen' : 'running'}${off ? `, ${off >= 0 ? '+' : ''}${off} s from real time` : ''}</span>`;
}

export function renderFaults(s: Snapshot): string {
  if (!s.faults.length) return '<p class="muted">No fault armed.</p>';
  return `<table id="faults-table"><thead><tr><th>#</th><th>type</th><th>method</th><th>path</th><th>detail</th><th>left</th><th>rate</th></tr></thead><tbody>${s.faults
    .map(
      (f) =>
        `<tr><td>${f.id}</td><td>${h(f.type)}</td><td>${h(f.method ?? 'any')}</td><td>${h(f.path)}</td><td>${f.type === 'status' ? (f.status ?? 503) : f.type === 'latency' ? `${f.latencyMs} ms` : ''}</td><td>${f.count ?? '∞'}</td><td>${f.rate !== undefined ? `${Math.round(f.rate * 1000) / 10}% (seed ${f.seed})` : 'every'}</td></tr>`,
    )
    .join('')}</tbody></table>`;
}

const ACTION = `${CONSOLE_PATH}/actions`;

function controls(): string {
  const field = (name: string, label: string, attrs = '') => `<label>${label} <input name="${name}" ${attrs}></label>`;
  const faultFields = `<label>Type <select name="type"><option>status</option><option>latency</option><option>reset</option><option>truncate</option></select></label> ${field('path', 'Path prefix', 'value="/api/v3" required size="14"')} ${field('method', 'Method', 'size="6" placeholder="any"')} ${field('status', 'Status', 'size="4" placeholder="503"')} ${field('latency', 'Latency', 'size="6" placeholder="2s"')}`;
  return (
    `<div class="controls">` +
    `<form method="post" action="${ACTION}" id="clock-form"><h3>Clock</h3>${field('duration', 'Advance by', 'value="15m" size="6" id="advance-by"')} <button type="submit" name="action" value="advance" id="advance">Advance</button> <button type="submit" name="action" value="freeze">Freeze</button> <button type="submit" name="action" value="unfreeze">Let run</button></form>` +
    `<form method="post" action="${ACTION}" id="fault-form"><h3>Fault</h3>${faultFields} ${field('count', 'Count', 'size="4" placeholder="∞"')} <button type="submit" name="action" value="fault">Add fault</button></form>` +
    `<form method="post" action="${ACTION}" id="chaos-form"><h3>Chaos</h3>${faultFields} ${field('rate', 'Rate', 'value="10%" size="5"')} ${field('seed', 'Seed', 'size="6" placeholder="random"')} <button type="submit" name="action" value="chaos">Add chaos</button> <button type="submit" name="action" value="clear-faults">Clear faults</button></form>` +
    `<form method="post" action="${ACTION}" id="limits-form"><h3>Secondary limits</h3>${field('concurrent', 'Concurrent', 'size="5"')} ${field('pointsPerMinute', 'Points/min', 'size="5"')} ${field('contentPerMinute', 'Content/min', 'size="5"')} ${field('contentPerHour', 'Content/hour', 'size="5"')} <button type="submit" name="action" value="limits">Set limits</button></form>` +
    `<form method="post" action="${ACTION}" id="budget-form"><h3>Primary budget</h3>${field('caller', 'Caller', 'size="16" placeholder="every caller"')} ${field('resource', 'Resource', 'value="core" size="8"')} ${field('remaining', 'Remaining', 'value="0" size="6"')} ${field('resetIn', 'Resets in', 'size="5" placeholder="window"')} <button type="submit" name="action" value="budget">Set budget</button></form>` +
    `<form method="post" action="${ACTION}" id="reset-form"><h3>Everything</h3><button type="submit" name="action" value="reset">Reset to the seed</button></form>` +
    `</div>`
  );
}

export const PANELS = { clock: renderClock, pending: renderPending, limits: renderLimits, state: renderState, faults: renderFaults } as const;

export function renderPage(s: Snapshot, rows: ConsoleRow[], o: { filter: { service?: string; status?: string }; message?: string; error?: string }): string {
  const note = o.error ? `<p class="flash error" role="alert">${h(o.error)}</p>` : o.message ? `<p class="flash" role="status">${h(o.message)}</p>` : '';
  const panel = (id: keyof typeof PANELS) => `<div id="panel-${id}">${PANELS[id](s)}</div>`;
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Lanyard emulator console</title><link rel="stylesheet" href="${CONSOLE_PATH}/console.css"><link rel="icon" href="${CONSOLE_PATH}/icon.svg"></head><body>
<header><h1>Lanyard emulator</h1><div class="clock">${panel('clock')}</div><span id="live" class="muted">static page (reload to refresh)</span></header>
<div id="flash">${note}</div>
<main>
<section id="requests"><h2>Requests</h2>${renderRequests(rows, o.filter)}</section>
<div class="side">
<section id="pending"><h2>Sign-ins in progress</h2>${panel('pending')}</section>
<section id="limits"><h2>Limits</h2>${panel('limits')}</section>
<section id="controls"><h2>Controls</h2>${controls()}<h3>Faults armed</h3>${panel('faults')}</section>
</div>
<section id="state"><h2>State</h2>${panel('state')}</section>
</main>
<script src="${CONSOLE_PATH}/console.js"></script></body></html>`;
}
