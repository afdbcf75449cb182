/**
 * A host with the handshake subscribes to a resource of a 2026-07-28 server
 * (the emulator, in process), which has no resources/subscribe: the bridge
 * listens on a subscriptions/listen stream for it and passes the updates on,
 * and none after the host unsubscribed (checked against a marker on the same
 * stream, not a wait).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { HttpClient } from '../../../../src/core/http/client.js';
import { runBridge } from '../../../../src/core/protocol/bridge.js';
import type { JsonRpcRequestWire, JsonRpcResponseWire } from '../../../../src/shared/protocol.js';
import { useInProcessEmulator } from '../../../e2e/in-process-emulator.js';
import { FakeClock } from '../../../fakes/clock.js';
import { StubHttp } from '../../../fakes/stub-http.js';
import { handshakeHost, quietBridgeDeps } from './host-stdio.js';

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
    const notes: string[] = [];
    const deps = { ...quietBridgeDeps(http, new FakeClock()), notify: (l: string) => void notes.push(l) };
    const { lines, sent, done } = await handshakeHost(runBridge, deps, emu.urls.protocol.server);
    const answer = (id: number) => sent.find((m) => 'id' in m && m.id === id && !('method' in m)) as JsonRpcResponseWire | undefined;
    const updates = () => sent.filter((m) => 'method' in m && m.method === 'notifications/resources/updated');
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

  it('a subscribe waiting on a listen stream whose head never comes: the host cancels it and goes, and the bridge ends', async () => {
    const stub = await StubHttp.start();
    let release = () => {};
    const held = new Promise<void>((r) => (release = r));
    stub.on(
      'POST',
      '/mcp',
      async (req) => {
        const m = JSON.parse(req.body) as { id: unknown; method: string };
        if (m.method === 'subscriptions/listen') {
          await held;
          return { headers: { 'content-type': 'text/event-stream' }, body: '' };
        }
        const result = { resultType: 'complete', supportedVersions: ['2026-07-28'], capabilities: { resources: {} } };
        return { body: { jsonrpc: '2.0', id: m.id, result } };
      },
      2, // server/discover, then the one listen
    );
    const http = new HttpClient({ clock: new FakeClock(), userAgent: 'test' });
    const { lines, sent, done } = await handshakeHost(runBridge, quietBridgeDeps(http, new FakeClock()), `${stub.url}/mcp`);
    expect(sent.some((m) => 'id' in m && m.id === 0)).toBe(true);
    lines.push({ jsonrpc: '2.0', id: 1, method: 'resources/subscribe', params: { uri: 'file:///a' } });
    const listens = () => stub.requests.filter((r) => r.body.includes('subscriptions/listen')).length;
    await until(() => listens() === 1);
    lines.push({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1, reason: 'the user gave up' } });
    lines.end();
    let ended = false;
    void done.then(() => (ended = true));
    await until(() => ended);
    // A cancelled request gets no answer.
    expect(sent.some((m) => 'id' in m && m.id === 1)).toBe(false);
    release();
    await http.close();
    await stub.close();
  });

  it('a server that does not stamp the subscription id on its acknowledgement: the one on the stream opened for the subscribe answers it', async () => {
    // A stateless server whose listen streams acknowledge without `_meta` and stay open.
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        const m = JSON.parse(body) as { id: unknown; method: string; params?: { notifications?: { resourceSubscriptions?: unknown } } };
        if (m.method !== 'subscriptions/listen') {
          const result = { resultType: 'complete', supportedVersions: ['2026-07-28'], capabilities: { resources: { subscribe: true } } };
          return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: m.id, result }));
        }
        const ack = { jsonrpc: '2.0', method: 'notifications/subscriptions/acknowledged', params: { notifications: m.params?.notifications ?? {} } };
        res.writeHead(200, { 'content-type': 'text/event-stream' }).write(`event: message\ndata: ${JSON.stringify(ack)}\n\n`);
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const http = new HttpClient({ clock: new FakeClock(), userAgent: 'test' });
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
    const { lines, sent, done } = await handshakeHost(runBridge, quietBridgeDeps(http, new FakeClock()), url);
    const answer = (id: number) => sent.find((m) => 'id' in m && m.id === id && !('method' in m)) as JsonRpcResponseWire | undefined;
    lines.push({ jsonrpc: '2.0', id: 1, method: 'resources/subscribe', params: { uri: NOTES } });
    lines.push({ jsonrpc: '2.0', id: 2, method: 'resources/subscribe', params: { uri: README } });
    await until(() => !!answer(1) && !!answer(2));
    expect([answer(1), answer(2)]).toEqual([
      { jsonrpc: '2.0', id: 1, result: {} },
      { jsonrpc: '2.0', id: 2, result: {} },
    ]);
    lines.end();
    await done;
    await http.close();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });
});
