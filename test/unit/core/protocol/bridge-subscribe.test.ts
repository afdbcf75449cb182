/**
 * A host with the handshake subscribes to a resource of a 2026-07-28 server
 * (the emulator, in process), which has no resources/subscribe: the bridge
 * listens on a subscriptions/listen stream for it and passes the updates on,
 * and none after the host unsubscribed (checked against a marker on the same
 * stream, not a wait).
 */
import { describe, expect, it } from 'vitest';
import { HttpClient } from '../../../../src/core/http/client.js';
import { runBridge } from '../../../../src/core/protocol/bridge.js';
import type { JsonRpcRequestWire, JsonRpcResponseWire } from '../../../../src/shared/protocol.js';
import { useInProcessEmulator } from '../../../e2e/in-process-emulator.js';
import { FakeClock } from '../../../fakes/clock.js';
import { hostLines, quietBridgeDeps } from './host-stdio.js';

const NOTES = 'emulator://notes/today';
const README = 'emulator://docs/readme';
const ref = useInProcessEmulator();

const until = async (ok: () => boolean) => {
  for (let i = 0; i < 1000 && !ok(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(ok()).toBe(true);
};

describe('a host with the handshake in front of a 2026-07-28 server: resource subscriptions', () => {
  it('resources/subscribe becomes a subscriptions/listen stream: the host gets notifications/resources/updated until it unsubscribes', async () => {
    const { emu } = ref;
    await emu.admin('protocol', 'configure', { revision: '2026-07-28', open: true });
    const http = new HttpClient({ clock: new FakeClock(), userAgent: 'test' });
    const lines = hostLines();
    const sent: Array<JsonRpcRequestWire | JsonRpcResponseWire> = [];
    const notes: string[] = [];
    const done = runBridge(
      { ...quietBridgeDeps(http, new FakeClock()), notify: (l) => void notes.push(l) },
      { serverUrl: emu.urls.protocol.server, clientInfo: { name: 'lanyard', version: '0' }, signInWaitMs: 5000 },
      { lines, send: (m) => void sent.push(m) },
    );
    const answer = (id: number) => sent.find((m) => 'id' in m && m.id === id && !('method' in m)) as JsonRpcResponseWire | undefined;
    const updates = () => sent.filter((m) => 'method' in m && m.method === 'notifications/resources/updated');
    lines.push({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'h', version: '1' } },
    });
    await until(() => !!answer(0));
    expect(answer(0)!.result).toMatchObject({ capabilities: { resources: { subscribe: true } } });

    lines.push({ jsonrpc: '2.0', id: 1, method: 'resources/subscribe', params: { uri: NOTES } });
    await until(() => !!answer(1));
    expect(answer(1)).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
    await emu.admin('protocol', 'update-resource', { text: 'first' });
    await until(() => updates().length === 1);
    expect((updates()[0] as JsonRpcRequestWire).params).toMatchObject({ uri: NOTES });
    // The stream's acknowledgement is the bridge's, not the host's.
    expect(sent.some((m) => 'method' in m && m.method === 'notifications/subscriptions/acknowledged')).toBe(false);

    // A resource the server does not report on: an error, not a silent success.
    lines.push({ jsonrpc: '2.0', id: 2, method: 'resources/subscribe', params: { uri: 'emulator://nowhere' } });
    await until(() => !!answer(2));
    expect(answer(2)!.error?.message).toMatch(/does not report updates of emulator:\/\/nowhere/);

    // A second resource, still subscribed to after the unsubscribe below: its
    // update is a marker that comes on the same stream after anything leaked.
    lines.push({ jsonrpc: '2.0', id: 3, method: 'resources/subscribe', params: { uri: README } });
    await until(() => !!answer(3));
    expect(answer(3)).toEqual({ jsonrpc: '2.0', id: 3, result: {} });

    lines.push({ jsonrpc: '2.0', id: 4, method: 'resources/unsubscribe', params: { uri: NOTES } });
    await until(() => !!answer(4));
    expect(answer(4)).toEqual({ jsonrpc: '2.0', id: 4, result: {} });
    await emu.admin('protocol', 'update-resource', { text: 'second' });
    await emu.admin('protocol', 'update-resource', { uri: README, text: 'marker' });
    const uris = () =>
      updates()
        .map((m) => (m as JsonRpcRequestWire).params as { uri?: unknown })
        .map((p) => p.uri);
    await until(() => uris().includes(README));
    // The notes' first update, then the marker: the notes' second update never came.
    expect(uris()).toEqual([NOTES, README]);
    lines.end();
    await done;
    await http.close();
  });
});
