/** ListenedResources: one subscriptions/listen stream for a handshake host's subscriptions, opened again when it ends (injected clock). */
import { describe, expect, it } from 'vitest';
import { ListenedResources, MAX_REOPENS } from '../../../../src/core/protocol/bridge-subscriptions.js';
import { FakeClock } from '../../../fakes/clock.js';

/** Ports whose streams the test acknowledges and ends. */
function fakePorts() {
  const clock = new FakeClock(Date.UTC(2026, 10, 22, 12), { autoAdvance: false });
  const streams: Array<{ uris: unknown; end(): void; signal: AbortSignal }> = [];
  const notes: string[] = [];
  const ports = {
    listen: (params: unknown, signal: AbortSignal) =>
      new Promise<void>((resolve, reject) => {
        streams.push({ uris: (params as { notifications: { resourceSubscriptions: unknown } }).notifications.resourceSubscriptions, end: resolve, signal });
        signal.addEventListener('abort', () => reject(signal.reason), { once: true });
      }),
    sleep: (ms: number, signal: AbortSignal) => clock.sleep(ms, signal),
    notify: (l: string) => void notes.push(l),
  };
  return { clock, streams, notes, ports };
}
const tick = () => new Promise((r) => setTimeout(r, 5));

describe('ListenedResources', () => {
  it('each change opens the stream again with the whole set; the last unsubscribe closes it', async () => {
    const { streams, ports } = fakePorts();
    const r = new ListenedResources(ports);
    const a = r.subscribe('a');
    r.acknowledged({ notifications: { resourceSubscriptions: ['a'] } });
    await a;
    const b = r.subscribe('b');
    r.acknowledged({ notifications: { resourceSubscriptions: ['a', 'b'] } });
    await b;
    expect(streams.map((s) => s.uris)).toEqual([['a'], ['a', 'b']]);
    expect(streams[0]!.signal.aborted).toBe(true);
    const ua = r.unsubscribe('a');
    r.acknowledged({ notifications: { resourceSubscriptions: ['b'] } });
    await ua;
    await r.unsubscribe('b');
    expect(streams).toHaveLength(3);
    expect(streams.every((s) => s.signal.aborted)).toBe(true);
  });

  it('a stream the server ends is opened again after 1 s on the clock; after MAX_REOPENS in a row without an acknowledgement, dropped', async () => {
    const { clock, streams, notes, ports } = fakePorts();
    const r = new ListenedResources(ports);
    const a = r.subscribe('a');
    r.acknowledged({ notifications: { resourceSubscriptions: ['a'] } });
    await a;
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

  it('close() ends the stream and no reopen follows', async () => {
    const { clock, streams, ports } = fakePorts();
    const r = new ListenedResources(ports);
    const a = r.subscribe('a');
    r.acknowledged({ notifications: { resourceSubscriptions: ['a'] } });
    await a;
    r.close();
    clock.advance(5000);
    await tick();
    expect(streams).toHaveLength(1);
    expect(streams[0]!.signal.aborted).toBe(true);
  });
});
