/**
 * The emulator's console, `/_emulator/console`: one page on the emulator's
 * own origin showing what it sees and holds — requests live, the hosting
 * limits, sign-ins in progress, every service's state — with the controls of
 * the admin verbs. Read-only with JavaScript off; live (server-sent events)
 * with it on.
 *
 * Safe by construction: the guard in front of every route refuses a foreign
 * `Host` and a state-changing request from another origin; the console's
 * actions are POSTs that must also carry the CSRF token of the page (bound to
 * its SameSite=Strict cookie); the page, its events and its HTML hold no
 * secret (credentials masked, headers redacted, items named by opaque
 * handles) and escape everything a request brought.
 *
 * Costs nothing while nobody watches: answer headers are kept and the stream
 * fed only while a console is connected.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { EmulatorClock } from '../clock.js';
import type { Guard } from '../guard.js';
import { CSRF_COOKIE, cookieValue } from '../guard.js';
import { type Journal, type JournalEntry, redactHeaders, redactQuery } from '../journal.js';
import type { EmuRequest, EmuResponse, Middleware, Router } from '../router.js';
import type { EmulatorService } from '../service.js';
import { CONSOLE_CSS, CONSOLE_ICON, CONSOLE_JS } from './assets.js';
import { type ConsoleOps, runAction } from './actions.js';
import { CONSOLE_PATH, type ConsoleRow, PANELS, queryString, renderPage, renderRow, SERVICES, STATUS_CLASSES } from './render.js';
import { type Snapshot, takeSnapshot } from './snapshot.js';

export { CONSOLE_PATH } from './render.js';

/** Answer headers kept for the newest requests while a console is open. */
const KEPT_ANSWERS = 500;
/** At most this many consoles follow the stream at once (each costs a snapshot per change). */
const MAX_WATCHERS = 16;
/** Panels are re-sent at most this often, and at least this often while watched (the clock moves expiries). */
const PANEL_DEBOUNCE_MS = 200;
const PANEL_TICK_MS = 2000;
const KEEPALIVE_MS = 15_000;
const MAX_FLASHES = 64;

/**
 * Only the page's own script and style; its forms post to it, and an answered
 * browser sign-in redirects on to the client (a loopback or HTTPS redirect
 * URI: CSP checks a form's redirects too).
 */
const PAGE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; form-action 'self' http://127.0.0.1:* http://localhost:* https:; frame-ancestors 'none'; base-uri 'none'";

interface Watcher {
  res: ServerResponse;
  panels: Record<string, string>;
}

export interface ConsoleDeps {
  journal: Journal;
  guard: Guard;
  clock: EmulatorClock;
  services: () => readonly EmulatorService[];
  /** The admin operations (made after the services, hence a function). */
  ops: () => ConsoleOps;
}

export class EmulatorConsole {
  readonly #secret = randomBytes(32);
  readonly #watchers = new Set<Watcher>();
  readonly #answers = new Map<number, Record<string, string>>();
  /** The outcome of a browser's last plain form post, by its CSRF cookie, shown once by the page. */
  readonly #flash = new Map<string, { text: string; error: boolean }>();
  #unsubscribe: (() => void) | undefined;
  #pendingEntries: JournalEntry[] = [];
  /** The entry the journal added last, for the answer headers of the request closing now. */
  #justAdded: JournalEntry | undefined;
  #flushQueued = false;
  #panelTimer: NodeJS.Timeout | undefined;
  #tick: NodeJS.Timeout | undefined;

  constructor(readonly deps: ConsoleDeps) {}

  /**
   * Middleware (right after the journal's): while a console watches, keeps the
   * answer headers of each request (redacted) for its row. Registered before
   * the guard and the faults so refused and faulted requests have theirs.
   */
  capture(): Middleware {
    return (req, res, next) => {
      if (!this.#watchers.size || req.path.startsWith(CONSOLE_PATH)) return next();
      // The router writes its headers through writeHead (not kept by getHeaders()): note them on the way.
      const raw = res.raw;
      const writeHead = raw.writeHead;
      let written: unknown;
      raw.writeHead = function (this: ServerResponse, ...args: unknown[]) {
        written = args.find((a) => a && typeof a === 'object');
        return (writeHead as (...a: unknown[]) => ServerResponse).apply(this, args);
      } as typeof raw.writeHead;
      // The journal's close listener was added before this one: when this runs, the entry it just added is this request's
      // (none when the journal skips the request).
      raw.once('close', () => {
        const e = this.#justAdded;
        this.#justAdded = undefined;
        if (!e || e.path !== req.path || e.method !== req.method) return;
        this.#answers.set(e.seq, answerHeaders(raw, written));
        if (this.#answers.size > KEPT_ANSWERS) this.#answers.delete(this.#answers.keys().next().value!);
      });
      return next();
    };
  }

  register(router: Router): void {
    router.get(CONSOLE_PATH, (req, res) => this.#page(req, res));
    router.get(`${CONSOLE_PATH}/console.js`, (_req, res) => asset(res, 'text/javascript; charset=utf-8', CONSOLE_JS));
    router.get(`${CONSOLE_PATH}/console.css`, (_req, res) => asset(res, 'text/css; charset=utf-8', CONSOLE_CSS));
    router.get(`${CONSOLE_PATH}/icon.svg`, (_req, res) => asset(res, 'image/svg+xml', CONSOLE_ICON));
    router.get(`${CONSOLE_PATH}/events`, (req, res) => this.#events(req, res));
    router.post(`${CONSOLE_PATH}/actions`, (req, res) => this.#action(req, res));
  }

  #snapshot() {
    return takeSnapshot(this.deps.services(), this.deps.clock, this.deps.ops().faults(), this.#secret);
  }

  #rows(limit = 200): ConsoleRow[] {
    const entries = this.deps.journal.list().filter((e) => !e.path.startsWith(CONSOLE_PATH));
    return entries.slice(-limit).map((entry) => ({ entry, answer: this.#answers.get(entry.seq) }));
  }

  #page(req: EmuRequest, res: EmuResponse): void {
    const pick = (k: string, allowed: readonly string[]) => {
      const v = req.query.get(k) ?? '';
      return allowed.includes(v) ? v : undefined;
    };
    const { snapshot } = this.#snapshot();
    const cookie = cookieValue(req, CSRF_COOKIE);
    const flash = cookie !== undefined ? this.#flash.get(cookie) : undefined;
    if (cookie !== undefined) this.#flash.delete(cookie);
    const html = renderPage(snapshot, this.#rows(), {
      filter: { service: pick('service', SERVICES), status: pick('status', STATUS_CLASSES) },
      ...(flash ? { [flash.error ? 'error' : 'message']: flash.text } : {}),
    });
    res.html(200, html, { 'cache-control': 'no-store', 'content-security-policy': PAGE_CSP, 'referrer-policy': 'same-origin' });
  }

  #events(req: EmuRequest, res: EmuResponse): void {
    if (req.method === 'HEAD') return res.empty(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store' });
    if (this.#watchers.size >= MAX_WATCHERS) return res.json(503, { message: `at most ${MAX_WATCHERS} consoles follow the emulator at once` });
    const raw = res.head(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      'x-accel-buffering': 'no',
    });
    raw.write(': lanyard emulator console\nretry: 1000\n\n');
    const w: Watcher = { res: raw, panels: {} };
    this.#watchers.add(w);
    this.#watch();
    const keepalive = setInterval(() => raw.write(': keepalive\n\n'), KEEPALIVE_MS).unref();
    // A reconnecting page says what it has; it gets what it missed.
    const since = Number(req.header('last-event-id') ?? Number.NaN);
    if (Number.isSafeInteger(since)) for (const r of this.#rows().filter((x) => x.entry.seq > since)) send(raw, 'request', { html: renderRow(r) }, r.entry.seq);
    this.#sendPanels(w, this.#snapshot().snapshot);
    raw.once('close', () => {
      clearInterval(keepalive);
      this.#watchers.delete(w);
      if (!this.#watchers.size) this.#unwatch();
    });
  }

  /** The first watcher subscribes to the journal and starts the tick; the last one stops both. */
  #watch(): void {
    this.#unsubscribe ??= this.deps.journal.subscribe((e) => {
      this.#justAdded = e;
      if (e.path.startsWith(CONSOLE_PATH)) return;
      this.#pendingEntries.push(e);
      if (this.#flushQueued) return;
      this.#flushQueued = true;
      // After every close listener of this answer ran (the capture's included).
      setImmediate(() => this.#flush());
    });
    this.#tick ??= setInterval(() => this.#panelsChanged(), PANEL_TICK_MS).unref();
  }

  #unwatch(): void {
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
    clearInterval(this.#tick);
    this.#tick = undefined;
    clearTimeout(this.#panelTimer);
    this.#panelTimer = undefined;
    this.#answers.clear();
  }

  #flush(): void {
    this.#flushQueued = false;
    const entries = this.#pendingEntries;
    this.#pendingEntries = [];
    for (const entry of entries) {
      const html = renderRow({ entry, answer: this.#answers.get(entry.seq) });
      for (const w of this.#watchers) send(w.res, 'request', { html }, entry.seq);
    }
    this.#panelsSoon();
  }

  #panelsSoon(): void {
    this.#panelTimer ??= setTimeout(() => {
      this.#panelTimer = undefined;
      this.#panelsChanged();
    }, PANEL_DEBOUNCE_MS).unref();
  }

  #panelsChanged(): void {
    if (!this.#watchers.size) return;
    const { snapshot } = this.#snapshot();
    for (const w of this.#watchers) this.#sendPanels(w, snapshot);
  }

  /** Sends the panels whose HTML changed since this watcher last got them (a form being filled in is not redrawn needlessly). */
  #sendPanels(w: Watcher, snapshot: Snapshot): void {
    const changed: Record<string, string> = {};
    for (const [id, render] of Object.entries(PANELS)) {
      const html = render(snapshot);
      if (w.panels[id] !== html) changed[id] = w.panels[id] = html;
    }
    if (Object.keys(changed).length) send(w.res, 'panels', changed);
  }

  async #action(req: EmuRequest, res: EmuResponse): Promise<void> {
    const wantsJson = (req.header('accept') ?? '').includes('application/json');
    // A plain form post (JavaScript off) goes back to the page, which shows the outcome once (kept here, not in the URL).
    const back = (text: string, error: boolean) => {
      const cookie = cookieValue(req, CSRF_COOKIE)!;
      this.#flash.delete(cookie);
      this.#flash.set(cookie, { text, error });
      if (this.#flash.size > MAX_FLASHES) this.#flash.delete(this.#flash.keys().next().value!);
      res.redirect(303, CONSOLE_PATH);
    };
    const fail = (status: number, message: string) => (wantsJson ? res.json(status, { message }) : back(message, true));
    const ct = (req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    if (ct !== 'application/x-www-form-urlencoded') {
      req.raw.resume();
      return res.json(415, { message: 'console actions are url-encoded forms' });
    }
    const form = await req.form();
    // The page's token, bound to its SameSite=Strict cookie: a form of another site cannot carry it.
    if (!this.#tokenValid(req, req.header('x-csrf-token') ?? form.get('_csrf') ?? undefined)) {
      return res.json(403, { message: 'Form token missing or invalid: reload the console and submit its form' });
    }
    const { actions } = this.#snapshot();
    let out: { message: string; redirect?: string };
    try {
      out = await runAction(form, actions, this.deps.ops());
    } catch (err) {
      return fail(400, (err as Error).message);
    }
    this.#panelsSoon();
    if (out.redirect) return res.redirect(303, out.redirect);
    if (wantsJson) return res.json(200, out);
    back(out.message, false);
  }

  #tokenValid(req: EmuRequest, given: string | undefined): boolean {
    const cookie = cookieValue(req, CSRF_COOKIE);
    if (!cookie || !given) return false;
    const want = Buffer.from(this.deps.guard.tokenFor(cookie));
    const got = Buffer.from(given);
    return want.length === got.length && timingSafeEqual(want, got);
  }
}

function asset(res: EmuResponse, type: string, body: string): void {
  res.raw.writeHead(200, {
    ...res.extraHeaders,
    'content-type': type,
    'content-length': String(Buffer.byteLength(body)),
    'cache-control': 'no-cache',
    'x-content-type-options': 'nosniff',
  });
  res.raw.end(body);
}

function send(raw: ServerResponse, event: string, data: unknown, id?: number): void {
  raw.write(`${id !== undefined ? `id: ${id}\n` : ''}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}

/** The answer's headers with their secrets redacted (a redirect's code or token in the Location's query too). */
function answerHeaders(raw: ServerResponse, written: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!raw.headersSent) return out;
  out[':status'] = String(raw.statusCode);
  const all: Record<string, string | string[]> = { ...(raw.getHeaders() as Record<string, string | string[]>) };
  if (Array.isArray(written)) for (let i = 0; i + 1 < written.length; i += 2) all[String(written[i]).toLowerCase()] = String(written[i + 1]);
  else if (written) for (const [k, v] of Object.entries(written)) if (v !== undefined) all[k.toLowerCase()] = Array.isArray(v) ? v.map(String) : String(v);
  const hs = redactHeaders(all);
  for (const [k, v] of Object.entries(hs)) {
    if (k === 'location') {
      try {
        const u = new URL(v, 'http://emulator.invalid');
        u.search = queryString(redactQuery(u.searchParams));
        // Implicit grants and some callbacks carry the token in the fragment.
        if (u.hash) u.hash = queryString(redactQuery(new URLSearchParams(u.hash.slice(1))));
        out[k] = u.host === 'emulator.invalid' ? `${u.pathname}${u.search}${u.hash}` : u.toString();
      } catch {
        out[k] = '[redacted]';
      }
    } else out[k] = String(v);
  }
  return out;
}
