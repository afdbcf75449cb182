/** ListenedResources: one subscriptions/listen stream for a handshake host's subscriptions, opened again when it ends (injected clock). */
import { describe, expect, it } from 'vitest';
import { ListenedResources, MAX_REOPENS } from '../../../../src/core/protocol/bridge-subscriptions.js';
import { FakeClock } from '../../../fakes/clock.js';

/** Ports whose streams the test acknowledges and ends. */
function fakePorts() {
  const clock = new FakeClock(Date.UTC(2026, 10, 22, 12), { autoAdvance: false });
  const streams: Array<{
    uris: unknown;
    params: { notifications: Record<string, unknown> };
    id: string;
    end(): void;
    fail(err: unknown): void;
    signal: AbortSignal;
  }> = [];
  const notes: string[] = [];
  const ports = {
    listen: (params: unknown, signal: AbortSignal, id: string) =>
      new Promise<void>((resolve, reject) => {
        const p = params as { notifications: { resourceSubscriptions?: unknown } };
        streams.push({ uris: p.notifications.resourceSubscriptions, params: p, id, end: resolve, fail: reject, signal });
        signal.addEventListener('abort', () => reject(signal.reason), { once: true });
      }),
    sleep: (ms: number, signal: AbortSignal) => clock.sleep(ms, signal),
    notify: (l: string) => void notes.push(l),
  };
  return { clock, streams, notes, ports };
}
const tick = () => new Promise((r) => setTimeout(r, 5));

type Streams = ReturnType<typeof fakePorts>['streams'];

/** Subscribes to each of `uris` in turn, each answered by the acknowledgement, unstamped, on the stream opened for it (honouring all so far). */
async function subscribed(r: ListenedResources, streams: Streams, ...uris: string[]) {
  for (let i = 0; i < uris.length; i++) {
    const done = r.subscribe(uris[i]!);
    r.acknowledged({ notifications: { resourceSubscriptions: uris.slice(0, i + 1) } }, streams.at(-1)!.id);
    await done;
  }
}

describe('ListenedResources', () => {
  it('each change opens the stream again with the whole set; the last unsubscribe closes it', async () => {
    const { streams, ports } = fakePorts();
    const r = new ListenedResources(ports);
    await subscribed(r, streams, 'a', 'b');
    expect(streams.map((s) => s.uris)).toEqual([['a'], ['a', 'b']]);
    expect(streams[0]!.signal.aborted).toBe(true);
    const ua = r.unsubscribe('a');
    r.acknowledged({ notifications: { resourceSubscriptions: ['b'] } }, streams.at(-1)!.id);
    await ua;
    await r.unsubscribe('b');
    expect(streams).toHaveLength(3);
    expect(streams.every((s) => s.signal.aborted)).toBe(true);
  });

  it('a stream the server ends is opened again after 1 s on the clock; after MAX_REOPENS in a row without an acknowledgement, dropped', async () => {
    const { clock, streams, notes, ports } = fakePorts();
    const r = new ListenedResources(ports);
    await subscribed(r, streams, 'a');
    for (let i = 1; i <= MAX_REOPENS; i++) {
      streams.at(-1)!.end();
      await tick();
      expect(streams).toHaveLength(i);
      clock.advance(999);
      await tick();
      expect(streams).toHaveLength(i);
      clock.advance(1);
      await tick();
      expect(streams).toHaveLength(i + 1);
    }
    streams.at(-1)!.end();
    await tick();
    clock.advance(10_000);
    await tick();
    expect(streams).toHaveLength(MAX_REOPENS + 1);
    expect(notes.at(-1)).toMatch(/list changes dropped/);
  });

  it('close() ends the stream, refuses a subscribe waiting on it, and no reopen follows', async () => {
    const { clock, streams, ports } = fakePorts();
    const r = new ListenedResources(ports);
    await subscribed(r, streams, 'a');
    const b = r.subscribe('b');
    r.close();
    // A subscribe still waiting is refused, not left pending (the bridge waits for its tasks before it exits).
    await expect(Promise.race([b, tick().then(() => 'still waiting')])).rejects.toThrow(/closing/);
    clock.advance(5000);
    await tick();
    expect(streams).toHaveLength(2);
    expect(streams.every((s) => s.signal.aborted)).toBe(true);
  });

  it('an unsubscribe that meets a broken stream: answered, and the stream is opened again for the rest (resources and list changes)', async () => {
    const { clock, streams, notes, ports } = fakePorts();
    const r = new ListenedResources(ports);
    r.lists({ tools: { listChanged: true } });
    await subscribed(r, streams, 'file:///a', 'file:///b');
    const ub = r.unsubscribe('file:///b');
    expect(streams).toHaveLength(4);
    const outcome = ub.then(
      () => 'unsubscribed',
      (err: unknown) => err,
    );
    streams[3]!.fail(new Error('HTTP 503'));
    await tick();
    expect(notes.at(-1)).toMatch(/ended \(HTTP 503\); listening again in 1 s/);
    clock.advance(1000);
    await tick();
    expect(streams).toHaveLength(5);
    expect(streams[4]!.params).toEqual({ notifications: { toolsListChanged: true, resourceSubscriptions: ['file:///a'] } });
    // file:///b is no longer listened for: the host's unsubscribe is done.
    expect(await outcome).toBe('unsubscribed');
  });

  it('a subscribe that meets a broken stream is refused and the stream is opened again without it', async () => {
    const { clock, streams, ports } = fakePorts();
    const r = new ListenedResources(ports);
    await subscribed(r, streams, 'a');
    const b = r.subscribe('b');
    streams[1]!.fail(new Error('HTTP 503'));
    await expect(b).rejects.toThrow(/HTTP 503/);
    clock.advance(1000);
    await tick();
    expect(streams.map((s) => s.uris)).toEqual([['a'], ['a', 'b'], ['a']]);
  });

  it('a subscribe the host cancels stops waiting; the stream carries on', async () => {
    const { streams, ports } = fakePorts();
    const r = new ListenedResources(ports);
    await subscribed(r, streams, 'a');
    const ac = new AbortController();
    const b = r.subscribe('b', ac.signal);
    ac.abort(new Error('cancelled by the host'));
    await expect(Promise.race([b, tick().then(() => 'still waiting')])).rejects.toThrow(/cancelled by the host/);
    expect(streams).toHaveLength(2);
    expect(streams[1]!.signal.aborted).toBe(false);
    // A later subscribe still waits for (and gets) its own acknowledgement.
    const c = r.subscribe('c');
    r.acknowledged({ notifications: { resourceSubscriptions: ['a', 'c'] } }, streams.at(-1)!.id);
    await expect(c).resolves.toBeUndefined();
    const ud = new AbortController();
    ud.abort();
    await expect(r.unsubscribe('c', ud.signal)).rejects.toThrow();
  });

  it("the acknowledgement of a stream already replaced settles no one; the new stream's does", async () => {
    const { streams, ports } = fakePorts();
    const r = new ListenedResources(ports);
    const a = r.subscribe('a');
    const b = r.subscribe('b');
    expect(streams.map((s) => s.uris)).toEqual([['a'], ['a', 'b']]);
    const meta = (i: number) => ({ 'io.modelcontextprotocol/subscriptionId': streams[i]!.id });
    let settled = false;
    void Promise.allSettled([a, b]).then(() => (settled = true));
    r.acknowledged({ notifications: { resourceSubscriptions: ['a'] }, _meta: meta(0) }, streams[0]!.id);
    await tick();
    expect(settled).toBe(false);
    r.acknowledged({ notifications: { resourceSubscriptions: ['a', 'b'] }, _meta: meta(1) }, streams[1]!.id);
    await expect(a).resolves.toBeUndefined();
    await expect(b).resolves.toBeUndefined();
    expect(streams[0]!.id).not.toBe(streams[1]!.id);
  });

  it("a server that does not stamp its acknowledgement: a late one, from the stream already replaced, settles no one; the new stream's does", async () => {
    const { streams, ports } = fakePorts();
    const r = new ListenedResources(ports);
    const a = r.subscribe('a');
    const b = r.subscribe('b');
    let settled = false;
    void Promise.allSettled([a, b]).then(() => (settled = true));
    // The first stream's acknowledgement arrives after the second stream was opened.
    r.acknowledged({ notifications: { resourceSubscriptions: ['a'] } }, streams[0]!.id);
    await tick();
    expect(settled).toBe(false);
    r.acknowledged({ notifications: { resourceSubscriptions: ['a', 'b'] } }, streams[1]!.id);
    await expect(a).resolves.toBeUndefined();
    await expect(b).resolves.toBeUndefined();
  });

  it('an acknowledgement from no listen stream (neither stamped nor carried by one) settles no one', async () => {
    const { streams, ports } = fakePorts();
    const r = new ListenedResources(ports);
    let settled = false;
    void r.subscribe('a').finally(() => (settled = true));
    r.acknowledged({ notifications: { resourceSubscriptions: ['a'] } }, undefined);
    await tick();
    expect(settled).toBe(false);
    r.acknowledged({ notifications: { resourceSubscriptions: ['a'] } }, streams[0]!.id);
    await tick();
    expect(settled).toBe(true);
  });

  it('a subscribe whose resource is unsubscribed before the acknowledgement (the last one: no stream left) is answered, not left waiting', async () => {
    const { streams, ports } = fakePorts();
    const r = new ListenedResources(ports);
    const a = r.subscribe('a');
    await r.unsubscribe('a');
    expect(streams).toHaveLength(1);
    expect(streams[0]!.signal.aborted).toBe(true);
    await expect(Promise.race([a, tick().then(() => 'still waiting')])).resolves.toBeUndefined();
  });

  it('the same resource subscribed twice before the acknowledgement: both wait for it, and both are refused when the server does not honour it', async () => {
    const { streams, ports } = fakePorts();
    const r = new ListenedResources(ports);
    const first = r.subscribe('a');
    const second = r.subscribe('a');
    expect(streams).toHaveLength(1);
    await expect(Promise.race([second, tick().then(() => 'waiting')])).resolves.toBe('waiting');
    r.acknowledged({ notifications: { resourceSubscriptions: [] } }, streams[0]!.id);
    await expect(first).rejects.toThrow(/does not report updates of a/);
    await expect(second).rejects.toThrow(/does not report updates of a/);
  });
});
