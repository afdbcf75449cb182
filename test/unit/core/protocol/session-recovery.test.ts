/**
 * A lost session (a 404 to the session id) in a handshake revision, many
 * times in a session's life and with many requests at once: one shared
 * re-initialization per lost id, requests that wait for it, a 404 for an id
 * already replaced sent again, and a bound when new sessions are lost at once.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { AuthorizedSession } from '../../../../src/core/protocol/session.js';
import { FakeClock } from '../../../fakes/clock.js';
import { runBridge } from '../../../../src/core/protocol/bridge.js';
import type { JsonRpcResponseWire } from '../../../../src/shared/protocol.js';
import { FakeSessionServer, sessionWith, settle } from './fake-session-server.js';
import { hostHandshake, hostLines, quietBridgeDeps } from './host-stdio.js';
import { CLOSE_WAIT_MS } from '../../../../src/core/protocol/handshake-session.js';

let clock: FakeClock;
let server: FakeSessionServer;
let notes: string[];

beforeEach(() => {
  clock = new FakeClock(Date.UTC(2026, 10, 28, 12), { autoAdvance: false });
  server = new FakeSessionServer(clock);
  notes = [];
});

/** A session with the fake server (not started); `callerBounded`: the bridge's, whose host bounds and cancels each call. */
const unstarted = (callerBounded = false) =>
  sessionWith(server.http, clock, { notify: (l) => void notes.push(l), ...(callerBounded ? { callerBounded } : {}) });

async function session(callerBounded = false): Promise<AuthorizedSession> {
  const s = unstarted(callerBounded);
  await s.start();
  const init = await s.initialize();
  expect(init.error).toBeUndefined();
  return s;
}

const calls = (s: AuthorizedSession, n: number, tag: string) =>
  Promise.allSettled(Array.from({ length: n }, (_, i) => s.request('tools/call', { name: 'echo', arguments: { text: `${tag}${i}` } })));

describe('a lost session', () => {
  it('three losses, twenty concurrent calls each: one initialize per loss, every call answered, none sent without a session id', async () => {
    const s = await session();
    for (const round of [1, 2, 3]) {
      server.loseNext = true;
      const rs = await calls(s, 20, `r${round}-`);
      expect(rs.map((r) => r.status)).toEqual(Array(20).fill('fulfilled'));
      for (const [i, r] of rs.entries()) {
        const v = (r as PromiseFulfilledResult<{ result?: { echo?: unknown } }>).value;
        expect(v.result?.echo).toEqual({ text: `r${round}-${i}` });
      }
      expect(server.count('initialize')).toBe(1 + round);
      expect(s.state.sessionId).toBe(`s${1 + round}`);
    }
    const posts = server.seen.filter((r) => r.method === 'POST' && r.rpc !== 'initialize');
    expect(posts.filter((r) => r.session === undefined)).toEqual([]);
    expect(notes.filter((n) => /no longer knows the session/.test(n))).toHaveLength(3);
    await s.close();
  });

  it('a new session is told again what the lost one was: the resources subscribed to (not those unsubscribed) and the log level, before the calls go on', async () => {
    const s = await session();
    for (const uri of ['file:///a', 'file:///b']) expect((await s.request('resources/subscribe', { uri })).error).toBeUndefined();
    await s.request('resources/unsubscribe', { uri: 'file:///b' });
    await s.request('logging/setLevel', { level: 'debug' });
    server.loseNext = true;
    const r = await s.request('tools/call', { name: 'echo', arguments: { text: 'on' } });
    expect(r.result).toEqual({ echo: { text: 'on' }, session: 's2' });
    const inS2 = server.seen.filter((x) => x.session === 's2' && x.method === 'POST').map((x) => `${x.rpc}${x.uri ? ` ${x.uri}` : ''}`);
    expect(inS2[0]).toBe('notifications/initialized');
    expect(inS2.slice(1, 3).sort()).toEqual(['logging/setLevel', 'resources/subscribe file:///a']);
    expect(inS2.slice(3)).toEqual(['tools/call']);
    await s.close();
  });

  it('a 404 for a session id already replaced is sent again with the new one, with no second initialize', async () => {
    const s = await session();
    server.held.set('slow', () => undefined);
    const slow = s.request('tools/call', { name: 'slow', arguments: { n: 1 } });
    await settle();
    // The slow call went out with s1; the server then forgets s1, and another call recovers.
    server.loseNext = true;
    const [fast] = await calls(s, 1, 'fast');
    expect(fast!.status).toBe('fulfilled');
    expect(s.state.sessionId).toBe('s2');
    server.held.get('slow')!();
    const r = await slow;
    expect(r.result).toEqual({ echo: { n: 1 }, session: 's2' });
    expect(server.count('initialize')).toBe(2);
    expect(server.seen.filter((x) => x.tool === 'slow').map((x) => x.session)).toEqual(['s1', 's2']);
    await s.close();
  });

  it('a server that loses every new session at once: an error after one re-initialization per request, not a loop', async () => {
    const s = await session();
    server.loseAlways = true;
    const rs = await calls(s, 5, 'x');
    for (const r of rs) {
      expect(r.status).toBe('rejected');
      expect(String((r as PromiseRejectedResult).reason)).toMatch(/lost the new session too|HTTP 404|Session not found/);
    }
    // The first loss, then at most one more per request.
    expect(server.count('initialize')).toBeLessThanOrEqual(1 + 1 + 5);
    expect(server.seen.length).toBeLessThan(60);
  });

  it('a re-initialization that fails fails the calls that met the loss, with its error; a later call tries again and succeeds', async () => {
    const s = await session();
    server.loseNext = true;
    server.initReplies.push({ status: 200, body: { jsonrpc: '2.0', id: 'x', error: { code: -32603, message: 'restarting' } } });
    const rs = await calls(s, 10, 'y');
    expect(rs.map((r) => r.status)).toEqual(Array(10).fill('rejected'));
    for (const r of rs) expect(String((r as PromiseRejectedResult).reason)).toMatch(/initialize failed: server error -32603: restarting/);
    expect(server.count('initialize')).toBe(2);
    const later = await s.request('tools/call', { name: 'echo', arguments: { text: 'later' } });
    expect(later.result).toEqual({ echo: { text: 'later' }, session: 's2' });
    expect(server.count('initialize')).toBe(3);
    await s.close();
  });

  it('the first session lost at its notifications/initialized: initialized again, once', async () => {
    server.loseAlways = true;
    const s = unstarted();
    await s.start();
    await expect(s.initialize()).rejects.toThrow(/lost the new session too/);
    expect(server.count('initialize')).toBe(2);
  });

  it("under the bridge (the caller bounds its calls), a re-initialize the server never answers ends at the client's bound for a head; later calls fail with it, a call after it recovers", async () => {
    const s = await session(true);
    server.held.set('initialize', () => undefined);
    server.loseNext = true;
    const outcome = (p: Promise<unknown>) =>
      p.then(
        () => 'fulfilled',
        (e: unknown) => `rejected: ${String(e)}`,
      );
    const first = outcome(s.request('tools/call', { name: 'echo', arguments: { text: 'a' } }));
    await server.advance(1000);
    expect(server.held.has('initialize')).toBe(true);
    const later = outcome(s.request('tools/call', { name: 'echo', arguments: { text: 'b' } }));
    let done = 0;
    void Promise.all([first, later]).then(() => done++);
    await server.advance(27_000, 1000);
    expect(done).toBe(0);
    // The client's 30 s bound for a head, whatever the bridge's own calls get.
    await server.advance(3000, 1000);
    expect(done).toBe(1);
    for (const r of [await first, await later]) expect(r).toMatch(/rejected: .*timed out waiting for headers/);
    const again = await s.request('tools/call', { name: 'echo', arguments: { text: 'c' } });
    expect(again.result).toEqual({ echo: { text: 'c' }, session: 's2' });
    await s.close();
  });

  it('closing (as the bridge does when its host has gone) gives up a re-initialization under way after a short bound', async () => {
    const s = await session(true);
    server.held.set('initialize', () => undefined);
    server.loseNext = true;
    const call = s.request('tools/call', { name: 'echo', arguments: { text: 'a' } }).then(
      () => 'fulfilled',
      (e: unknown) => `rejected: ${String(e)}`,
    );
    await server.advance(1000);
    expect(server.held.has('initialize')).toBe(true);
    let closed = false;
    const closing = s.close(new AbortController().signal).then(() => (closed = true));
    await server.advance(CLOSE_WAIT_MS - 500, 250);
    expect(closed).toBe(false);
    await server.advance(1000, 250);
    expect(closed).toBe(true);
    await closing;
    expect(await call).toMatch(/rejected: .*gave up the new session/);
    expect(server.held.has('initialize')).toBe(false);
  });

  it('a bridge whose server took the re-initialize and never answers: the calls waiting for it get -32051 after 30 s, and the bridge ends once stdin does', async () => {
    const lines = hostLines();
    const sent: JsonRpcResponseWire[] = [];
    let ended = false;
    const done = runBridge(
      { ...quietBridgeDeps(server.http, clock), notify: (l) => void notes.push(l) },
      { serverUrl: 'http://fake/mcp', clientInfo: { name: 'lanyard', version: '0' }, signInWaitMs: 5000 },
      { lines, send: (m) => void sent.push(m as JsonRpcResponseWire) },
    ).then(() => (ended = true));
    const answered = (id: number) => sent.find((m) => m.id === id);
    hostHandshake(lines);
    lines.push({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { text: 'a' } } });
    await server.advance(1000);
    expect(answered(2)?.result).toEqual({ echo: { text: 'a' }, session: 's1' });
    server.held.set('initialize', () => undefined);
    server.loseNext = true;
    for (const id of [3, 4]) lines.push({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: { text: `${id}` } } });
    await server.advance(1000);
    expect(server.held.has('initialize')).toBe(true);
    lines.end();
    await server.advance(25_000, 1000);
    expect([answered(3), answered(4), ended]).toEqual([undefined, undefined, false]);
    await server.advance(10_000, 1000);
    for (const id of [3, 4]) expect(answered(id)?.error?.code).toBe(-32051);
    expect(ended).toBe(true);
    await done;
  });
});
