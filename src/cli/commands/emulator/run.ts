import { access, constants } from 'node:fs/promises';
import type { Context } from '../../context.js';
import { sanitize } from '../../output/output.js';
import { parseDuration, parseIntOption } from '../../option-parse.js';
import { UsageError } from '../../errors/usage-error.js';
import { ExitStatus } from '../../errors/exit.js';
import { ExitCode } from '../../../shared/exit-codes.js';
import { ConfigError } from '../../../core/errors.js';
import type { ProfileSettings } from '../../../core/config/settings.js';
import type { EmulatorRequestsOptions, EmulatorStartOptions, EmulatorTargetOptions } from './options.js';
import { explicitEmulatorUrl } from './url.js';

/** The request journal's bounds from LANYARD_EMULATOR_JOURNAL_{ENTRIES,BYTES,BODY_BYTES} (whole numbers >= 1). */
function journalLimits(env: NodeJS.ProcessEnv): { maxEntries?: number; maxBytes?: number; maxBodyBytes?: number } {
  const out: Record<string, number> = {};
  for (const [name, key] of [
    ['LANYARD_EMULATOR_JOURNAL_ENTRIES', 'maxEntries'],
    ['LANYARD_EMULATOR_JOURNAL_BYTES', 'maxBytes'],
    ['LANYARD_EMULATOR_JOURNAL_BODY_BYTES', 'maxBodyBytes'],
  ] as const) {
    const v = env[name];
    if (v === undefined) continue;
    if (!/^\d+$/.test(v.trim()) || !Number.isSafeInteger(Number(v)) || Number(v) < 1)
      throw new UsageError(`${name} must be a whole number >= 1, got "${sanitize(v)}"`);
    out[key] = Number(v);
  }
  return out;
}

export async function runEmulatorStart(ctx: Context, opts: EmulatorStartOptions): Promise<void> {
  const port = parseIntOption(opts.port ?? '0', '--port', 0, 65535);
  const host = opts.host ?? '127.0.0.1';
  const { isLoopback, startEmulator } = await import('../../../emulator/server.js');
  if (!isLoopback(host === 'localhost' ? '127.0.0.1' : host))
    throw new UsageError(`--host must be a loopback address (127.0.0.1, another 127.x.y.z, or ::1), got ${host}`);
  if (!!opts.tlsCert !== !!opts.tlsKey) throw new UsageError('--tls-cert and --tls-key go together');
  if (opts.tls && opts.tlsCert) throw new UsageError('--tls makes its own certificate: give either --tls or --tls-cert and --tls-key');
  for (const [flag, file] of [
    ['--tls-cert', opts.tlsCert],
    ['--tls-key', opts.tlsKey],
  ] as const) {
    if (file)
      await access(file, constants.R_OK).catch(() => {
        throw new UsageError(`${flag}: cannot read ${file}`);
      });
  }
  const emu = await startEmulator({
    port,
    host: host === 'localhost' ? '127.0.0.1' : host,
    dataDir: opts.dataDir,
    tlsCertFile: opts.tlsCert,
    tlsKeyFile: opts.tlsKey,
    tlsSelfSigned: opts.tls,
    allowedHosts: opts.allowHost,
    ...(opts.publicHost ? { publicHost: publicHostOption(opts.publicHost) } : {}),
    log: opts.quiet ? undefined : (line) => ctx.io.err(line),
    journal: journalLimits(ctx.env),
  }).catch((err: unknown) => {
    const code = (err as { code?: string }).code;
    if (code === 'EDATADIR') throw new UsageError(`--data-dir: ${(err as Error).message}`);
    if (code === 'EADDRINUSE') throw new UsageError(`port ${port} on ${host} is already in use`, 'pick another --port, or --port 0 for any free port');
    if (code === 'EACCES') throw new UsageError(`not allowed to listen on port ${port}`);
    if (/PEM|certificate|key/i.test((err as Error).message ?? '')) throw new UsageError(`--tls-cert/--tls-key: ${(err as Error).message}`);
    throw err;
  });
  // The profile is written before the first line: a script that waits for
  // "listening on" and then uses --profile emulator must find it updated.
  const before = opts.profile !== false ? (await ctx.config()).profile('emulator') : undefined;
  if (opts.profile !== false) await writeEmulatorProfile(ctx, emu.services);
  ctx.io.out(`Emulator listening on ${emu.url}`);
  if (emu.selfSigned) {
    const { caFile, reused } = emu.selfSigned;
    ctx.io.err(`HTTPS with a self-signed certificate (${reused ? 'kept from the last start' : 'new'}): ${caFile}`);
    ctx.io.err(`  trust it with NODE_EXTRA_CA_CERTS=${caFile} (Node, lanyard), SSL_CERT_FILE=${caFile} (gh, Go), curl --cacert ${caFile}`);
  }
  if (opts.profile !== false) ctx.io.err(`Profile "emulator" points at ${emu.url} (use --profile emulator or \`lanyard profile use emulator\`)`);
  ctx.io.err(`Console: ${consoleUrl(emu.url)} (requests live, limits, sign-ins, state, controls; \`lanyard emulator console\` opens it)`);
  await new Promise<void>((resolve) => {
    if (ctx.signal.aborted) return resolve();
    ctx.signal.addEventListener('abort', () => resolve(), { once: true });
  });
  ctx.io.err('Shutting down the emulator');
  await emu.close();
  if (opts.profile !== false) await handBackProfile(ctx, emu.url, before);
  // Ctrl-C or SIGTERM is its normal end: exit 0, not 130.
  throw new ExitStatus(ExitCode.Ok);
}

/** The profile "emulator": every service's endpoints pointing at this emulator. */
async function writeEmulatorProfile(ctx: Context, services: readonly { info?(): { profile?: unknown } }[]): Promise<void> {
  const settings: ProfileSettings = {};
  for (const s of services) Object.assign(settings, (s.info?.().profile as ProfileSettings | undefined) ?? {});
  await (await ctx.config()).putProfile('emulator', settings);
}

/**
 * Two emulators on one config directory: the second took the profile over.
 * When it stops while the profile still points at it, the emulator it
 * replaced gets the profile back if that one still answers (else the profile
 * is left as it is, as after any emulator's end).
 */
async function handBackProfile(ctx: Context, url: string, before: ProfileSettings | undefined): Promise<void> {
  const trim = (u: string | undefined) => u?.replace(/\/+$/, '');
  const previous = trim(before?.['hosting.webUrl']);
  if (!before || !previous || previous === trim(url)) return;
  try {
    const http = await ctx.http();
    // The command's own signal has ended (that is why it stops): a short bound of its own.
    const res = await http.request({ url: `${previous}/_emulator/info`, signal: AbortSignal.timeout(2000), oauth: true, retry: false });
    await res.dump();
    if (res.status !== 200) return;
  } catch {
    return;
  }
  const handed = await (await ctx.config()).putProfileIf('emulator', before, (now) => trim(now?.['hosting.webUrl']) === trim(url));
  if (handed) ctx.io.err(`Profile "emulator" points at ${previous} again (the emulator still running there)`);
}

export async function emulatorUrl(ctx: Context, opts: EmulatorTargetOptions): Promise<string> {
  const explicit = explicitEmulatorUrl(ctx, opts.url);
  if (explicit !== undefined) return explicit;
  const store = await ctx.config();
  const url = store.profile('emulator')?.['hosting.webUrl'];
  if (!url) throw new ConfigError('no running emulator known', { hint: 'start one with `lanyard emulator start`, or pass --url' });
  return url;
}

/** Calls the admin API of the emulator (`/_emulator/<path>`). */
export async function emulatorAdmin(ctx: Context, opts: EmulatorTargetOptions, method: string, path: string, json?: unknown): Promise<unknown> {
  const base = await emulatorUrl(ctx, opts);
  const http = await ctx.http();
  const res = await http.request({ method, url: `_emulator/${path}`, baseUrl: base, json, signal: ctx.signal, oauth: true });
  if (res.status === 204) return undefined;
  return res.json();
}

/** The console's page on an emulator's origin. */
export function consoleUrl(base: string): string {
  return `${base.replace(/\/+$/, '')}/_emulator/console`;
}

export async function runEmulatorInfo(ctx: Context, opts: EmulatorTargetOptions): Promise<void> {
  const info = await emulatorAdmin(ctx, opts, 'GET', 'info');
  await ctx.output.document(info, async () => (await import('./render-info.js')).renderInfo(ctx.io, info));
}

export async function runEmulatorAdmin(ctx: Context, opts: EmulatorTargetOptions, verb: string, body: unknown): Promise<void> {
  await emulatorAdmin(ctx, opts, 'POST', verb, body);
  ctx.io.err(`Emulator: ${verb} done`);
}

export async function runEmulatorAdvance(ctx: Context, opts: EmulatorTargetOptions, duration: string): Promise<void> {
  const ms = parseDuration(duration, 'duration', 3650 * 86_400_000); // the emulator's clock may move years
  const r = (await emulatorAdmin(ctx, opts, 'POST', 'advance', { ms })) as { now: string };
  ctx.output.document(r, () => ctx.io.err(`Emulator clock now ${r.now}`));
}

export async function runEmulatorFaultAdd(ctx: Context, opts: Record<string, string>): Promise<void> {
  const body: Record<string, unknown> = { type: opts.type, path: opts.path };
  if (opts.method) body.method = opts.method;
  if (opts.latency) body.latencyMs = parseDuration(opts.latency, '--latency');
  if (opts.status) body.status = parseIntOption(opts.status, '--status', 400, 599);
  if (opts.retryAfter) {
    if (opts.type !== 'status') throw new UsageError('--retry-after goes with --type status');
    body.retryAfter = Math.ceil(parseDuration(opts.retryAfter, '--retry-after') / 1000);
  }
  if (opts.count) body.count = parseIntOption(opts.count, '--count', 1);
  // An empty --rate (an unset shell variable) is refused, not read as no rate at all.
  if (opts.rate !== undefined) body.rate = parseRate(opts.rate);
  if (opts.seed) {
    if (opts.rate === undefined) throw new UsageError('--seed goes with --rate');
    body.seed = parseIntOption(opts.seed, '--seed', 0);
  }
  const f = (await emulatorAdmin(ctx, { url: opts.url }, 'POST', 'faults', body)) as { id: number; rate?: number; seed?: number };
  ctx.output.document(f, () => ctx.io.err(`Fault ${f.id} added${f.rate !== undefined ? ` (rate ${f.rate}, seed ${f.seed})` : ''}`));
}

/** `0.25` or `25%` → 0.25; above 0, at most 1. */
function parseRate(v: string): number {
  const m = /^\s*(\d+(?:\.\d+)?|\.\d+)\s*(%?)\s*$/.exec(v);
  const rate = m ? Number(m[1]) / (m[2] ? 100 : 1) : Number.NaN;
  if (!(rate > 0 && rate <= 1)) throw new UsageError(`--rate must be a share above 0 and at most 1 (0.25 or 25%), got ${JSON.stringify(v)}`);
  return rate;
}

export async function runEmulatorFaultList(ctx: Context, opts: EmulatorTargetOptions): Promise<void> {
  ctx.output.document(await emulatorAdmin(ctx, opts, 'GET', 'faults'));
}

export async function runEmulatorFaultClear(ctx: Context, opts: EmulatorTargetOptions): Promise<void> {
  await emulatorAdmin(ctx, opts, 'DELETE', 'faults');
  ctx.io.err('Faults cleared');
}

export async function runEmulatorAdminVerb(ctx: Context, opts: EmulatorTargetOptions, service: string, verb: string, data: string): Promise<void> {
  let body: unknown;
  try {
    body = JSON.parse(data);
  } catch {
    throw new UsageError('--data must be JSON');
  }
  ctx.output.document(await emulatorAdmin(ctx, opts, 'POST', `${service}/${verb}`, body));
}

interface JournalLine {
  seq: number;
  time: string;
  service: string;
  caller: { ip: string; login?: string; auth?: string };
  method: string;
  path: string;
  status: number;
  durationMs: number;
  fault?: { id: number; type: string; chaos?: boolean };
}

/** One request as a line for people: time, service, method, path, status, duration, who, fault. */
function journalRow(e: JournalLine): string {
  const who = e.caller.login ?? e.caller.auth ?? '-';
  const fault = e.fault ? `  fault ${e.fault.id} ${e.fault.type}${e.fault.chaos ? ' (chaos)' : ''}` : '';
  return sanitize(`${e.time}  ${e.service.padEnd(8)} ${e.method.padEnd(6)} ${e.path}  ${e.status || 'reset'}  ${e.durationMs}ms  ${who}${fault}`);
}

/** How often `emulator requests --follow` reads the journal. */
const FOLLOW_POLL_MS = 250;

/** `emulator requests`: the journal once, or (`--follow`) polled until interrupted. */
export async function runEmulatorRequests(ctx: Context, opts: EmulatorRequestsOptions): Promise<void> {
  const read = async (since: number) => {
    const q = new URLSearchParams({ since: String(since) });
    if (opts.service) q.set('service', opts.service);
    return (await emulatorAdmin(ctx, opts, 'GET', `requests?${q}`)) as { requests: JournalLine[]; last: number };
  };
  const first = await read(0);
  const human = (e: JournalLine) => ctx.io.out(journalRow(e));
  if (!opts.follow) return ctx.output.items(first.requests, human);
  if (ctx.output.format === 'json') throw new UsageError('--follow streams: use --ndjson instead of --json');
  const show = (e: JournalLine) => ctx.output.item(e, human);
  first.requests.forEach(show);
  let since = first.last;
  while (!ctx.signal.aborted) {
    // The pause between reads is on the context's clock (a test moves it); Ctrl-C ends it.
    try {
      await ctx.clock.sleep(FOLLOW_POLL_MS, ctx.signal);
    } catch (err) {
      if (ctx.signal.aborted) break;
      throw err;
    }
    const next = await read(since);
    next.requests.forEach(show);
    since = next.last;
  }
}

/** `--public-host`: a host name (letters, digits, dots, hyphens), as URLs will carry it. */
function publicHostOption(name: string): string {
  if (!/^[a-z0-9]([a-z0-9-]{0,62}\.)*[a-z0-9-]{1,63}$/i.test(name)) throw new UsageError(`--public-host: ${JSON.stringify(name)} is not a host name`);
  return name.toLowerCase();
}
