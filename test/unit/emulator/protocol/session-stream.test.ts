/**
 * The emulator's server-initiated stream of a session (GET without
 * Last-Event-ID): one that a client resumes with Last-Event-ID after its
 * connection broke goes on carrying the session's resource updates, as the
 * transport's resumption promises (a client's session stream reconnects) —
 * also when the server notices the old connection's close only after the
 * resumption, the case resumption exists for. What the server sends while
 * no connection carries the stream is kept (its last KEPT_EVENTS events) and
 * sent on the resumption.
 */
import { describe, expect, it, vi } from 'vitest';
import { useInProcessEmulator } from '../../../e2e/in-process-emulator.js';
import { KEPT_EVENTS } from '../../../../src/emulator/services/protocol/streams.js';

const on = useInProcessEmulator();
const NOTES = 'emulator://notes/today';
const README = 'emulator://docs/readme';

/** Reads `res`'s events until `until` holds for their text; the text so far. */
async function readUntil(res: Response, until: (text: string) => boolean): Promise<string> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  while (!until(text)) {
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  reader.releaseLock();
  return text;
}

/** A session with the emulator (2025-06-18 unless `revision`), subscribed to `uris`: its GET (with Last-Event-ID or not). */
async function openSession(uris: string[], revision = '2025-06-18') {
  await on.emu.admin('protocol', 'configure', { open: true, revision });
  const url = on.emu.urls.protocol.server;
  const post = (body: unknown, session?: string) =>
    fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': revision,
        ...(session ? { 'mcp-session-id': session } : {}),
      },
      body: JSON.stringify(body),
    });
  const init = await post({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: revision, capabilities: {}, clientInfo: { name: 't', version: '1' } },
  });
  const session = init.headers.get('mcp-session-id')!;
  await init.text();
  await (await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, session)).text();
  for (const [i, uri] of uris.entries()) await (await post({ jsonrpc: '2.0', id: 2 + i, method: 'resources/subscribe', params: { uri } }, session)).text();
  const get = (lastEventId?: string, signal?: AbortSignal) =>
    fetch(url, {
      headers: {
        accept: 'text/event-stream',
        'mcp-session-id': session,
        'mcp-protocol-version': revision,
        ...(lastEventId ? { 'last-event-id': lastEventId } : {}),
      },
      signal,
    });
  return { get };
}

/** Connections of session streams the server saw close. */
const closed = async () => ((await on.emu.admin('protocol', 'stats')) as { sessionStreamsClosed: number }).sessionStreamsClosed;
const lastId = (text: string) => [...text.matchAll(/^id: (\S+)$/gm)].at(-1)![1]!;
const updatesOf = (text: string, uri: string) => text.split('\n').filter((l) => l.startsWith('data: ') && l.includes(`"uri":"${uri}"`)).length;

/** Opens the session's stream, reads one update, and cuts the connection (the server has seen it close); the text read. */
async function seenThenCut(get: (lastEventId?: string, signal?: AbortSignal) => Promise<Response>): Promise<string> {
  const connection = new AbortController();
  const stream = await get(undefined, connection.signal);
  await on.emu.admin('protocol', 'update-resource', { text: 'seen' });
  const seen = await readUntil(stream, (t) => t.includes('resources/updated'));
  await cut(connection);
  return seen;
}

/** Cuts a stream's connection and waits until the server has seen it close. */
async function cut(connection: AbortController): Promise<void> {
  const before = await closed();
  connection.abort();
  await vi.waitFor(async () => expect(await closed()).toBe(before + 1), { timeout: 5000, interval: 10 });
}

describe("the protocol server's session stream", () => {
  it('resumed with Last-Event-ID, it still carries the updates of the resources the session subscribed to', async () => {
    const { get } = await openSession([NOTES]);
    let connection = new AbortController();
    let stream = await get(undefined, connection.signal);
    expect(stream.status).toBe(200);
    await on.emu.admin('protocol', 'update-resource', { text: 'one' });
    let text = await readUntil(stream, (t) => t.includes('resources/updated'));
    // Three times in a row: the client resumes where it stopped while the old
    // connection still looks open to the server, which sees it close afterwards.
    const before = await closed();
    for (let round = 1; round <= 3; round++) {
      const next = new AbortController();
      const resumed = await get(lastId(text), AbortSignal.any([next.signal, AbortSignal.timeout(5000)]));
      expect(resumed.status).toBe(200);
      connection.abort();
      await vi.waitFor(async () => expect(await closed()).toBe(before + round), { timeout: 5000, interval: 10 });
      await on.emu.admin('protocol', 'update-resource', { text: `update ${round}` });
      text = await readUntil(resumed, (t) => t.includes('resources/updated'));
      expect(text).toContain(NOTES);
      [connection, stream] = [next, resumed];
    }
    const stats = (await on.emu.admin('protocol', 'stats')) as { streamsResumed: unknown[] };
    expect(stats.streamsResumed).toHaveLength(3);
    connection.abort();
  });

  it('the updates sent while no connection carries it come on the resumption, in order, before the later ones', async () => {
    const { get } = await openSession([NOTES, README]);
    const seen = await seenThenCut(get);
    // While the client is away (a laptop asleep, a proxy's cut): two updates.
    await on.emu.admin('protocol', 'update-resource', { text: 'missed 1' });
    await on.emu.admin('protocol', 'update-resource', { text: 'missed 2' });
    const again = new AbortController();
    const resumed = await get(lastId(seen), AbortSignal.any([again.signal, AbortSignal.timeout(5000)]));
    expect(resumed.status).toBe(200);
    // A marker sent after the resumption: what the resumption had to send came before it.
    await on.emu.admin('protocol', 'update-resource', { uri: README, text: 'marker' });
    const text = await readUntil(resumed, (t) => updatesOf(t, README) === 1);
    expect(updatesOf(text, NOTES)).toBe(2);
    expect(text.indexOf(NOTES)).toBeLessThan(text.indexOf(README));
    again.abort();
  });

  it(`keeps the last ${KEPT_EVENTS} events of a stream without a connection: a Last-Event-ID older than those is unknown (404), a newer one resumes`, async () => {
    const { get } = await openSession([NOTES]);
    const seen = await seenThenCut(get);
    for (let i = 0; i < KEPT_EVENTS + 2; i++) await on.emu.admin('protocol', 'update-resource', { text: `missed ${i}` });
    const old = await get(lastId(seen));
    expect(old.status).toBe(404);
    await old.text();
    // The third of the missed events is kept (the first two were forgotten): the ${KEPT_EVENTS - 1} after it come.
    const third = String(Number(lastId(seen)) + 3);
    const again = new AbortController();
    const resumed = await get(third, AbortSignal.any([again.signal, AbortSignal.timeout(5000)]));
    expect(resumed.status).toBe(200);
    const text = await readUntil(resumed, (t) => updatesOf(t, NOTES) === KEPT_EVENTS - 1);
    expect(lastId(text)).toBe(String(Number(lastId(seen)) + KEPT_EVENTS + 2));
    again.abort();
  });

  it('from 2025-11-25 on it is primed with an event id: a client cut off before any message resumes with it and gets what it missed', async () => {
    const { get } = await openSession([NOTES], '2025-11-25');
    const connection = new AbortController();
    const stream = await get(undefined, connection.signal);
    const primed = await readUntil(stream, (t) => /^id: \S+$/m.test(t));
    expect(primed).toMatch(/^id: \d+\ndata: \n\n$/);
    await cut(connection);
    await on.emu.admin('protocol', 'update-resource', { text: 'missed' });
    const again = new AbortController();
    const resumed = await get(lastId(primed), AbortSignal.any([again.signal, AbortSignal.timeout(5000)]));
    expect(resumed.status).toBe(200);
    const text = await readUntil(resumed, (t) => updatesOf(t, NOTES) === 1);
    expect(text).toContain('notifications/resources/updated');
    again.abort();
  });

  it('a session with two streams open gets each update on one of them (the newest), never on both', async () => {
    const { get } = await openSession([NOTES, README]);
    const older = new AbortController();
    const first = await get(undefined, older.signal);
    const newer = new AbortController();
    const second = await get(undefined, newer.signal);
    await on.emu.admin('protocol', 'update-resource', { text: 'to the newest' });
    expect(updatesOf(await readUntil(second, (t) => updatesOf(t, NOTES) === 1), NOTES)).toBe(1);
    // The newest goes: the next update (a marker) comes on the older one, which had nothing before it.
    await cut(newer);
    await on.emu.admin('protocol', 'update-resource', { uri: README, text: 'marker' });
    const text = await readUntil(first, (t) => updatesOf(t, README) === 1);
    expect(updatesOf(text, NOTES)).toBe(0);
    older.abort();
  });
});
