/**
 * The session's own event stream (GET) in a handshake revision, kept for the
 * life of the session: no total deadline, reconnection after any end or
 * failure (Last-Event-ID, the server's retry, a backoff that starts again
 * after a served stream), stopped by 405, and a lost session recovered.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HttpClient } from '../../../../src/core/http/client.js';
import type { AuthorizedSession } from '../../../../src/core/protocol/session.js';
import { systemClock } from '../../../../src/core/system-clock.js';
import { FakeClock } from '../../../fakes/clock.js';
import { FakeSessionServer, sessionWith } from './fake-session-server.js';

let clock: FakeClock;
let server: FakeSessionServer;
let heard: Array<{ method: string; params: unknown }>;
let notes: string[];

beforeEach(() => {
  clock = new FakeClock(Date.UTC(2026, 10, 28, 12), { autoAdvance: false });
  server = new FakeSessionServer(clock);
  heard = [];
  notes = [];
});

/** A session with `http` on `clock` (the fake server's by default), initialized; its notifications in `heard`. */
async function open(http = server.http, c: FakeClock | typeof systemClock = clock, serverUrl?: string): Promise<AuthorizedSession> {
  const extra = { onNotification: (method: string, params: unknown) => void heard.push({ method, params }), notify: (l: string) => void notes.push(l) };
  const s = sessionWith(http, c, extra, serverUrl);
  await s.start();
  expect((await s.initialize()).error).toBeUndefined();
  return s;
}

const gets = () => server.seen.filter((r) => r.method === 'GET');
const event = (method: string, extra = '') => `${extra}data: ${JSON.stringify({ jsonrpc: '2.0', method, params: { uri: 'file:///x' } })}\n\n`;

describe("the session's stream", () => {
  it('a resource update pushed at 5 min 20 s, on a stream kept alive by comments, reaches the host: no total deadline', async () => {
    const s = await open();
    await server.advance(0);
    expect(gets()).toHaveLength(1);
    for (let t = 0; t < 320_000; t += 25_000) {
      await server.advance(25_000, 5000);
      server.push(': keepalive\n\n');
    }
    expect(server.push(event('notifications/resources/updated'))).toBe(1);
    await server.advance(100);
    expect(heard.map((h) => h.method)).toEqual(['notifications/resources/updated']);
    expect(gets()).toHaveLength(1);
    await s.close();
  });

  it('a quiet stream past its idle bound is opened again, and what comes after reaches the host', async () => {
    const s = await open();
    await server.advance(0);
    await server.advance(10 * 60_000, 5000);
    // Reopened after each idle bound (90 s, then 1 s): never left closed.
    expect(gets().length).toBeGreaterThanOrEqual(5);
    // (It may be between two connections just now.)
    for (let i = 0; i < 10 && server.streams.length === 0; i++) await server.advance(500);
    expect(server.push(event('notifications/resources/list_changed'))).toBe(1);
    await server.advance(100);
    expect(heard.map((h) => h.method)).toEqual(['notifications/resources/list_changed']);
    await s.close();
  });

  it('a GET whose head never comes is given up at the idle bound and opened again', async () => {
    server.silentHeads = 1;
    const s = await open();
    await server.advance(0);
    expect(gets()).toHaveLength(1);
    await server.advance(90_000 + 1000 + 500, 500);
    expect(gets()).toHaveLength(2);
    expect(server.push(event('notifications/resources/list_changed'))).toBe(1);
    await server.advance(100);
    expect(heard.map((h) => h.method)).toEqual(['notifications/resources/list_changed']);
    await s.close();
  });

  it("reconnects after every end: Last-Event-ID, a backoff on failures that starts again after a served stream, the server's retry; 405 stops it", async () => {
    const s = await open();
    await server.advance(0);
    server.push(event('notifications/resources/updated', 'id: e1\n'));
    server.getReplies.push({ status: 503 }, { status: 503 }, { status: 503 });
    server.endStreams();
    // The four waits, and a step of the fake clock's for each.
    await server.advance(1000 + 1000 + 1500 + 2250 + 4 * 50);
    expect(gets()).toHaveLength(5);
    expect(gets().map((g) => g.lastEventId)).toEqual([undefined, 'e1', 'e1', 'e1', 'e1']);
    server.push('retry: 3000\n\n');
    server.getReplies.push({ status: 405 });
    server.endStreams();
    await server.advance(2800);
    expect(gets()).toHaveLength(5);
    await server.advance(400);
    expect(gets()).toHaveLength(6);
    await server.advance(10 * 60_000, 10_000);
    expect(gets()).toHaveLength(6);
    expect(clock.sleeps).toEqual([1000, 1000, 1500, 2250, 3000]);
    expect(heard).toHaveLength(1);
    await s.close();
  });

  it('a 404 once the stream was served: the session is lost, initialized again once, and the new session gets its stream', async () => {
    const s = await open();
    await server.advance(0);
    server.sessions.delete('s1');
    server.endStreams();
    await server.advance(1500);
    expect(server.count('initialize')).toBe(2);
    expect(gets().map((g) => g.session)).toEqual(['s1', 's1', 's2']);
    expect(server.streams.map((x) => x.session)).toEqual(['s2']);
    expect(notes.filter((n) => /no longer knows the session/.test(n))).toHaveLength(1);
    const r = await s.request('tools/call', { name: 'echo', arguments: {} });
    expect(r.result).toEqual({ echo: {}, session: 's2' });
    await s.close();
  });

  it('a server whose first GET is a 404 (no such stream there): no initialize again, no more GETs', async () => {
    server.getReplies.push({ status: 404 });
    const s = await open();
    await server.advance(10 * 60_000, 10_000);
    expect(gets()).toHaveLength(1);
    expect(server.count('initialize')).toBe(1);
    await s.close();
  });
});

describe("the session's stream refused", () => {
  it.each([400, 406, 410])('a GET answered %i: no GET again for 10 min, one line on stderr, calls go on', async (status) => {
    server.getReplies.push({ status, body: { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'no' } } });
    const s = await open();
    await server.advance(10 * 60_000, 10_000);
    expect(gets()).toHaveLength(1);
    expect(notes).toEqual([
      `http://fake/mcp refused the session's event stream (GET: HTTP ${status}); what the server sends on its own (resource updates, list changes) is not heard in this session`,
    ]);
    expect((await s.request('tools/call', { name: 'echo', arguments: {} })).result).toEqual({ echo: {}, session: 's1' });
    await s.close();
  });

  it('503s, 502 and 408 are retried with the backoff, and a 429 or 503 waits its Retry-After; then the stream is served', async () => {
    server.getReplies.push({ status: 503 }, { status: 502 }, { status: 408 }, { status: 429, headers: { 'retry-after': '20' } });
    server.getReplies.push({ status: 503, headers: { 'retry-after': new Date(clock.now() + 60_000).toUTCString() } });
    const s = await open();
    // (Before the served stream's idle bound, 90 s after it opened.)
    await server.advance(150_000, 250);
    const at = gets().map((g) => g.at);
    expect(at).toHaveLength(6);
    const waits = at.slice(1).map((t, i) => t - at[i]!);
    // 1 s, 1.5 s, 2.25 s (the backoff), then the 429's 20 s (not 3.375 s); then what is left of the HTTP date's minute (to the second).
    for (const [i, w] of [1000, 1500, 2250, 20_000].entries()) expect(waits[i]).toBeGreaterThanOrEqual(w), expect(waits[i]).toBeLessThanOrEqual(w + 500);
    const left = 60_000 - (at[4]! - at[0]!);
    expect(waits[4]).toBeGreaterThanOrEqual(left - 1000);
    expect(waits[4]).toBeLessThanOrEqual(left + 500);
    expect(server.streams).toHaveLength(1);
    expect(notes).toEqual([]);
    await s.close();
  });

  it('a GET answered 401 (an expired token) pauses the stream with one line, no GET meanwhile, until the session has another token', async () => {
    server.getReplies.push({ status: 401 });
    const s = await open();
    await server.advance(10 * 60_000, 10_000);
    expect(gets()).toHaveLength(1);
    expect(notes).toEqual(["http://fake/mcp refused the session's event stream (GET: HTTP 401); it is opened again once a call signs in"]);
    // A call signed in again (the token the session holds changed): the stream comes back.
    s.state.accessToken = 'renewed';
    await server.advance(31_000, 1000);
    expect(gets()).toHaveLength(2);
    expect(server.streams).toHaveLength(1);
    await s.close();
  });
});

describe("the session's stream, on the live clock", () => {
  let http: HttpClient;
  let live: Server;
  afterEach(async () => {
    await http?.close();
    await new Promise((r) => live?.close(r));
  });

  /** A live server's answer to a POST or DELETE: a session for initialize, 202 for the rest. */
  const answerPost = (req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const m = body ? (JSON.parse(body) as { id?: unknown; method?: string }) : {};
      if (m.method !== 'initialize') return void res.writeHead(req.method === 'DELETE' ? 200 : 202).end();
      const result = { protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 'live', version: '1' } };
      res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 'live-1' }).end(JSON.stringify({ jsonrpc: '2.0', id: m.id, result }));
    });
  };

  /** A session with the live server, over a real HTTP client on the system clock. */
  const openLive = async () => {
    await new Promise<void>((r) => live.listen(0, '127.0.0.1', () => r()));
    http = new HttpClient({ clock: systemClock, userAgent: 'test' });
    return open(http, systemClock, `http://127.0.0.1:${(live.address() as AddressInfo).port}/mcp`);
  };

  it("a stream the server ends, with or without an event id, is opened again after the server's retry (with Last-Event-ID when it had one)", async () => {
    const getsSeen: Array<{ lastEventId?: string; at: number }> = [];
    live = createServer((req, res) => {
      if (req.method === 'GET') {
        getsSeen.push({ lastEventId: req.headers['last-event-id'] as string | undefined, at: Date.now() });
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        const n = getsSeen.length;
        // The first stream has no event ids; the second has one; both end; the third stays open.
        res.write(`retry: 200\n${n === 2 ? 'id: a2\n' : ''}${event(`notifications/n${n}`)}`);
        if (n < 3) res.end();
        return;
      }
      answerPost(req, res);
    });
    const s = await openLive();
    for (let i = 0; i < 400 && heard.length < 3; i++) await new Promise((r) => setTimeout(r, 25));
    expect(heard.map((h) => h.method)).toEqual(['notifications/n1', 'notifications/n2', 'notifications/n3']);
    expect(getsSeen.map((g) => g.lastEventId)).toEqual([undefined, undefined, 'a2']);
    // The server's retry (200 ms), not the default second (a loaded machine may add to it, never take from it).
    expect(getsSeen[1]!.at - getsSeen[0]!.at).toBeGreaterThanOrEqual(190);
    expect(getsSeen[2]!.at - getsSeen[1]!.at).toBeGreaterThanOrEqual(190);
    await s.close();
  });

  it("a 429's Retry-After is waited out between two real processes' clocks; a 400 then stops the stream", async () => {
    const getsAt: number[] = [];
    live = createServer((req, res) => {
      if (req.method === 'GET') {
        getsAt.push(Date.now());
        return void (getsAt.length === 1 ? res.writeHead(429, { 'retry-after': '2' }).end() : res.writeHead(400).end());
      }
      answerPost(req, res);
    });
    const s = await openLive();
    for (let i = 0; i < 400 && notes.length === 0; i++) await new Promise((r) => setTimeout(r, 25));
    expect(getsAt).toHaveLength(2);
    // Retry-After's 2 s, not the first backoff's 1 s (the HTTP client's rate-limit wait honours it before the stream sees
    // the answer; the stream's own, for what the client gives back, is the fake-clock test's). A loaded machine may add, never take.
    expect(getsAt[1]! - getsAt[0]!).toBeGreaterThanOrEqual(1990);
    expect(notes).toEqual([expect.stringMatching(/refused the session's event stream \(GET: HTTP 400\)/)]);
    await s.close();
  });
});
