/**
 * A protocol server of a handshake revision (2025-06-18, as the SDK's server
 * with JSON answers) behind a fake HttpClient, for unit tests of sessions on
 * an injected clock: sessions it can forget, POSTs it can hold or refuse, the
 * session's GET streams the test writes to. It bounds each exchange as the
 * real transport does, on the fake clock: the total deadline
 * (`timeouts.totalMs`, the client's 5 min unless the request names another;
 * 0: none), the idle bound between chunks (`timeouts.bodyMs`) and, for a
 * POST it holds, the bound for a head (`timeouts.headersMs`) and the signal.
 */
import { PassThrough } from 'node:stream';
import type { HttpClient, HttpResponse, RequestSpec } from '../../../../src/core/http/client.js';
import { DEFAULT_TIMEOUTS } from '../../../../src/core/http/client.js';
import type { Clock } from '../../../../src/core/deps.js';
import { AuthorizedSession, type ProtocolSessionDeps } from '../../../../src/core/protocol/session.js';
import { ProtocolCredentials } from '../../../../src/core/protocol/store.js';
import type { FakeClock } from '../../../fakes/clock.js';
import { MemoryCredentialStore } from '../../../fakes/credential-store.js';

export interface SeenRequest {
  readonly method: string;
  readonly rpc?: string;
  /** The tool of a tools/call. */
  readonly tool?: string;
  /** The resource of a resources/* request. */
  readonly uri?: string;
  readonly session?: string;
  readonly lastEventId?: string;
  readonly at: number;
}

type Reply = { status: number; body?: unknown; headers?: Record<string, string> };

export class FakeSessionServer {
  readonly seen: SeenRequest[] = [];
  readonly sessions = new Set<string>();
  /** The GET streams open now. */
  readonly streams: Array<{ session: string; body: PassThrough; last: number }> = [];
  /** Answers the test gives a GET instead of a stream (taken in order). */
  readonly getReplies: Reply[] = [];
  /** GETs (the next this many) whose head never comes: they end only at the client's bound for a head. */
  silentHeads = 0;
  /** Answers the test gives an initialize instead of a new session (taken in order). */
  readonly initReplies: Reply[] = [];
  /** Forget the session at the next request that names it (the emulator's loseNextSession). */
  loseNext = false;
  /** Forget every session at its first request. */
  loseAlways = false;
  /**
   * A tools/call of this name, or a request of this method (`initialize`), waits for `release` before it is
   * looked at — or fails at the exchange's bound for a head or total deadline, or when its signal aborts.
   */
  readonly held = new Map<string, () => void>();
  #n = 0;
  #timers: Array<{ at: number; fire: () => void }> = [];

  constructor(readonly clock: FakeClock) {}

  get http(): HttpClient {
    return { request: (spec: RequestSpec) => this.#request(spec) } as unknown as HttpClient;
  }

  /** Advances the clock by `ms` in steps of `step`, firing the exchanges' bounds and letting the client run between. */
  async advance(ms: number, step = 50): Promise<void> {
    await settle();
    for (let t = 0; t < ms; t += step) {
      this.clock.advance(Math.min(step, ms - t));
      const now = this.clock.monotonic();
      for (const timer of this.#timers.filter((x) => x.at <= now)) {
        this.#timers.splice(this.#timers.indexOf(timer), 1);
        timer.fire();
      }
      await settle();
    }
  }

  /** Writes to every open GET stream (an SSE event or comment, as text). */
  push(text: string): number {
    for (const s of this.streams) {
      s.body.write(text);
      s.last = this.clock.monotonic();
    }
    return this.streams.length;
  }

  /** Ends every open GET stream (the server closes it). */
  endStreams(): void {
    for (const s of this.streams.splice(0)) s.body.end();
  }

  count(rpc: string): number {
    return this.seen.filter((r) => r.rpc === rpc).length;
  }

  async #request(spec: RequestSpec): Promise<HttpResponse> {
    const h = Object.fromEntries(Object.entries(spec.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
    const session = h['mcp-session-id'];
    const method = spec.method ?? 'GET';
    const msg = (spec.json ?? {}) as { id?: unknown; method?: string; params?: { name?: string; arguments?: unknown; uri?: string } };
    this.seen.push({
      method,
      rpc: msg.method,
      tool: msg.params?.name,
      uri: msg.params?.uri,
      session,
      lastEventId: h['last-event-id'],
      at: this.clock.monotonic(),
    });
    await settle();
    if (method === 'DELETE') return this.#answer({ status: 200 });
    if (method === 'GET') return this.#get(spec, session);
    const key = msg.method === 'tools/call' ? msg.params?.name : msg.method;
    if (key !== undefined && this.held.has(key)) await this.#hold(key, spec);
    if (msg.method === 'initialize') {
      const refused = this.initReplies.shift();
      if (refused) return this.#answer(refused.body ? { ...refused, body: { ...(refused.body as object), id: msg.id } } : refused);
      const id = `s${++this.#n}`;
      this.sessions.add(id);
      const result = { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'fake', version: '1' } };
      return this.#answer({ status: 200, body: { jsonrpc: '2.0', id: msg.id, result }, headers: { 'mcp-session-id': id } });
    }
    if (session && (this.loseNext || this.loseAlways) && this.sessions.has(session)) {
      this.loseNext = false;
      this.sessions.delete(session);
      for (const s of this.streams.filter((x) => x.session === session)) s.body.end();
    }
    if (!session || !this.sessions.has(session))
      return this.#answer({ status: 404, body: { jsonrpc: '2.0', id: null, error: { code: -32001, message: 'Session not found' } } });
    if (msg.id === undefined) return this.#answer({ status: 202 });
    return this.#answer({ status: 200, body: { jsonrpc: '2.0', id: msg.id, result: { echo: msg.params?.arguments ?? null, session } } });
  }

  /** Holds a POST until the test releases it, its bound for a head or total deadline passes, or its signal aborts. */
  #hold(key: string, spec: RequestSpec): Promise<void> {
    const t = { ...DEFAULT_TIMEOUTS, ...spec.timeouts };
    const bound = Math.min(t.headersMs, t.totalMs > 0 ? t.totalMs : Number.POSITIVE_INFINITY);
    return new Promise<void>((resolve, reject) => {
      const release = () => {
        this.held.delete(key);
        resolve();
      };
      const fail = (e: unknown) => {
        if (this.held.get(key) === release) this.held.delete(key);
        reject(e);
      };
      this.held.set(key, release);
      this.#timers.push({ at: this.clock.monotonic() + bound, fire: () => fail(new Error('timed out waiting for headers')) });
      spec.signal?.addEventListener('abort', () => fail(spec.signal!.reason), { once: true });
    });
  }

  #get(spec: RequestSpec, session: string | undefined): HttpResponse | Promise<HttpResponse> {
    if (this.silentHeads > 0) {
      this.silentHeads--;
      const headersMs = { ...DEFAULT_TIMEOUTS, ...spec.timeouts }.headersMs;
      return new Promise((_, reject) =>
        this.#timers.push({ at: this.clock.monotonic() + headersMs, fire: () => reject(new Error('timed out waiting for headers')) }),
      );
    }
    const reply = this.getReplies.shift();
    if (reply) return this.#answer(reply);
    if (!session || !this.sessions.has(session)) return this.#answer({ status: 404 });
    const body = new PassThrough();
    const entry = { session, body, last: this.clock.monotonic() };
    this.streams.push(entry);
    body.on('close', () => {
      const i = this.streams.indexOf(entry);
      if (i >= 0) this.streams.splice(i, 1);
    });
    this.#bound(spec, entry);
    // The client gives up on the stream (the session closes): the connection goes, as the real client's does.
    const onAbort = () => body.destroy(Object.assign(new Error('aborted'), { name: 'AbortError' }));
    if (spec.signal?.aborted) onAbort();
    else spec.signal?.addEventListener('abort', onAbort, { once: true });
    body.on('close', () => spec.signal?.removeEventListener('abort', onAbort));
    return response(200, { 'content-type': 'text/event-stream' }, body);
  }

  /** The total deadline and the idle bound of one exchange, on the fake clock. */
  #bound(spec: RequestSpec, entry: { body: PassThrough; last: number }): void {
    const t = { ...DEFAULT_TIMEOUTS, ...spec.timeouts };
    const { body } = entry;
    if (t.totalMs > 0) this.#timers.push({ at: this.clock.monotonic() + t.totalMs, fire: () => body.destroy(new Error('total deadline')) });
    const idle = () => {
      if (body.destroyed || body.writableEnded) return;
      if (this.clock.monotonic() - entry.last >= t.bodyMs) return void body.destroy(new Error('idle'));
      this.#timers.push({ at: entry.last + t.bodyMs, fire: idle });
    };
    this.#timers.push({ at: entry.last + t.bodyMs, fire: idle });
  }

  #answer(r: Reply): HttpResponse {
    const body = new PassThrough();
    const json = r.body !== undefined;
    body.end(json ? JSON.stringify(r.body) : '');
    return response(r.status, { ...(json ? { 'content-type': 'application/json' } : {}), ...r.headers }, body);
  }
}

function response(status: number, headers: Record<string, string>, body: PassThrough): HttpResponse {
  const text = async () => {
    let s = '';
    for await (const c of body) s += String(c);
    return s;
  };
  return {
    status,
    headers,
    url: 'http://fake/mcp',
    body,
    text,
    json: async <T>() => JSON.parse(await text()) as T,
    bytes: async () => new TextEncoder().encode(await text()),
    dump: async () => void body.resume(),
  };
}

/** Lets the client's promises and the streams' events run. */
export async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
}

/** The sign-in ports of a session that never signs in. */
const NEVER_SIGNS_IN = { loopbackTimeoutMs: 1000, clientSecret: async () => undefined, presentAuthorizationUrl: async () => undefined };

/** A session of revision 2025-06-18 (not started) over `http` on `clock`, with nothing stored (the server asks for no token). */
export function sessionWith(http: HttpClient, clock: Clock, extra: Partial<ProtocolSessionDeps> = {}, serverUrl = 'http://fake/mcp'): AuthorizedSession {
  const credentials = new ProtocolCredentials(new MemoryCredentialStore());
  const deps: ProtocolSessionDeps = { http, clock, credentials, ...NEVER_SIGNS_IN, ...extra };
  return new AuthorizedSession(deps, { serverUrl, clientInfo: { name: 'lanyard', version: '0' }, revision: '2025-06-18' });
}
