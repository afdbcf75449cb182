/**
 * `emulator info` for people: one row per thing a user of the emulator needs
 * (each service's endpoint, and the seeded users, apps, tokens and keys to
 * sign in with), read from the admin API's JSON (`--json` prints that as it
 * is).
 */
import type { IO } from '../../io.js';
import { renderTable, sanitize } from '../../output/output.js';

interface Row {
  service: string;
  what: string;
  value: string;
  note: string;
}

type Json = Record<string, unknown>;

const obj = (v: unknown): Json => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : {});
const list = (v: unknown): Json[] => (Array.isArray(v) ? v.map(obj) : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : '');

/** The rows of `emulator info` (exported for the unit test). */
export function infoRows(info: unknown): Row[] {
  const rows: Row[] = [];
  const add = (service: string, what: string, value: string, note = '') => {
    if (value) rows.push({ service, what, value, note });
  };
  const i = obj(info);
  const offset = Number(i.clockOffsetMs);
  add('emulator', 'url', str(i.url));
  add('emulator', 'clock', str(i.now), Number.isFinite(offset) && offset !== 0 ? `moved ${formatOffset(offset)} ahead` : 'real time');
  add('emulator', 'data dir', str(i.dataDir));

  const h = obj(i.hosting);
  add('hosting', 'api', str(h.apiUrl), `web ${str(h.webUrl)}`);
  for (const u of list(h.users)) add('hosting', 'user', str(u.login), `password ${str(u.password)}`);
  for (const a of list(h.apps)) {
    const kind = str(a.kind) === 'installable' ? 'installable app, expiring tokens' : 'OAuth app';
    add('hosting', 'app', str(a.clientId), `${kind}${a.deviceFlowEnabled === false ? ', no device flow' : ''}; secret ${str(a.clientSecret)}`);
  }
  add('hosting', 'token', str(h.personalToken), 'personal token');

  const e = obj(i.echo);
  add('echo', 'api', str(e.baseUrl), `swagger ${str(e.swaggerUrl)}`);
  for (const k of list(e.apiKeys)) add('echo', 'api key', str(k.key), str(k.name));
  for (const s of list(e.serviceAccounts)) add('echo', 'service account', str(s.email), str(s.scheme));
  for (const u of list(obj(e.idp).users)) add('echo', 'idp user', str(u.email), `password ${str(u.password)}`);

  const p = obj(i.protocol);
  const revisions = Array.isArray(p.revisions) ? p.revisions.map(str).join(', ') : '';
  add('protocol', 'server', str(p.serverUrl), revisions && `revisions ${revisions}`);
  for (const c of list(p.clients)) {
    const auth = str(c.token_endpoint_auth_method);
    add('protocol', 'client', str(c.client_id), auth === 'none' ? 'public' : `${auth}; secret ${str(c.client_secret)}`);
  }

  const m = obj(i.mailbox);
  add('mailbox', 'api', str(m.apiUrl), m.messageCount !== undefined ? `${str(m.messageCount)} messages` : '');

  const hl = obj(i.health);
  add('health', 'api', str(hl.managementUrl), `sign-in ${str(hl.authorizeUrl)}`);
  add('health', 'subscription', str(hl.subscriptionId), `client id ${str(hl.clientId)}`);
  for (const u of [obj(hl.user), obj(hl.guest)]) add('health', 'user', str(u.login), u.password ? `password ${str(u.password)}` : '');
  add('health', 'token', str(hl.token), 'long-lived token');
  return rows;
}

function formatOffset(ms: number): string {
  const s = Math.round(ms / 1000);
  if (Math.abs(s) < 120) return `${s}s`;
  if (Math.abs(s) < 7200) return `${Math.round(s / 60)}m`;
  if (Math.abs(s) < 172_800) return `${Math.round(s / 3600)}h`;
  return `${Math.round(s / 86_400)}d`;
}

/**
 * Prints the rows of `info`: on a terminal, one block per service with the
 * values whole (a table would have to cut the secrets and URLs to fit);
 * into a pipe, tab-separated rows (service, what, value, note) as every
 * table of the CLI prints there.
 */
export function renderInfo(io: IO, info: unknown): void {
  const rows = infoRows(info);
  if (!io.stdoutIsTTY) {
    renderTable(io, rows, [
      { header: 'service', value: (r) => r.service },
      { header: 'what', value: (r) => r.what },
      { header: 'value', value: (r) => r.value },
      { header: 'note', value: (r) => r.note },
    ]);
    return;
  }
  const width = Math.max(...rows.map((r) => r.what.length));
  const bold = (t: string) => (io.color ? `\u001b[1m${t}\u001b[22m` : t);
  const dim = (t: string) => (io.color ? `\u001b[2m${t}\u001b[22m` : t);
  let service = '';
  for (const r of rows) {
    // Colour added to sanitised values: the styled writer keeps only it.
    if (r.service !== service) io.printStyled(`${bold((service = r.service))}\n`);
    io.printStyled(`  ${r.what.padEnd(width)}  ${sanitize(r.value)}${r.note ? `  ${dim(sanitize(r.note))}` : ''}\n`);
  }
}
