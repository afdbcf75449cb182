/**
 * The emulator's server-initiated stream of a session (GET without
 * Last-Event-ID): one that a client resumes with Last-Event-ID after its
 * connection broke goes on carrying the session's resource updates, as the
 * transport's resumption promises (a client's session stream reconnects) —
 * also when the server notices the old connection's close only after the
 * resumption, the case resumption exists for.
 */
import { describe, expect, it, vi } from 'vitest';
import { useInProcessEmulator } from '../../../e2e/in-process-emulator.js';

const on = useInProcessEmulator();
const NOTES = 'emulator://notes/today';

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

describe("the protocol server's session stream", () => {
  it('resumed with Last-Event-ID, it still carries the updates of the resources the session subscribed to', async () => {
    await on.emu.admin('protocol', 'configure', { open: true, revision: '2025-06-18' });
    const url = on.emu.urls.protocol.server;
    const post = (body: unknown, session?: string) =>
      fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-06-18',
          ...(session ? { 'mcp-session-id': session } : {}),
        },
        body: JSON.stringify(body),
      });
    const init = await post({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    });
    const session = init.headers.get('mcp-session-id')!;
    await init.text();
    await (await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, session)).text();
    await (await post({ jsonrpc: '2.0', id: 2, method: 'resources/subscribe', params: { uri: NOTES } }, session)).text();
    const get = (lastEventId?: string, signal?: AbortSignal) =>
      fetch(url, {
        headers: {
          accept: 'text/event-stream',
          'mcp-session-id': session,
          'mcp-protocol-version': '2025-06-18',
          ...(lastEventId ? { 'last-event-id': lastEventId } : {}),
        },
        signal,
      });
    /** Connections of session streams the server saw close. */
    const closed = async () => ((await on.emu.admin('protocol', 'stats')) as { sessionStreamsClosed: number }).sessionStreamsClosed;
    let connection = new AbortController();
    let stream = await get(undefined, connection.signal);
    expect(stream.status).toBe(200);
    await on.emu.admin('protocol', 'update-resource', { text: 'one' });
    let text = await readUntil(stream, (t) => t.includes('resources/updated'));
    // Three times in a row: the client resumes where it stopped while the old
    // connection still looks open to the server, which sees it close afterwards.
    for (let round = 1; round <= 3; round++) {
      const id = [...text.matchAll(/^id: (\S+)$/gm)].at(-1)![1]!;
      const next = new AbortController();
      const resumed = await get(id, AbortSignal.any([next.signal, AbortSignal.timeout(5000)]));
      expect(resumed.status).toBe(200);
      connection.abort();
      await vi.waitFor(async () => expect(await closed()).toBe(round), { timeout: 5000, interval: 10 });
      await on.emu.admin('protocol', 'update-resource', { text: `update ${round}` });
      text = await readUntil(resumed, (t) => t.includes('resources/updated'));
      expect(text).toContain(NOTES);
      [connection, stream] = [next, resumed];
    }
    const stats = (await on.emu.admin('protocol', 'stats')) as { streamsResumed: unknown[] };
    expect(stats.streamsResumed).toHaveLength(3);
    connection.abort();
  });
});
