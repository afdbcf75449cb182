/**
 * Lanyard's answer to a server's request, over real HTTP: when the network fails the POST that carries it
 * (here the server resets it, and with it the stream — a restart), the answer is sent again once the server
 * is back, and the stream resumed then brings the call's response; every send failing fails the call with a
 * line that says the request stays unanswered, after ANSWER_SENDS.max sends and the backoff between them;
 * on the session's own stream that line goes to stderr; a bridge host's answer (sent through the session)
 * is sent again the same way.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { HttpClient } from '../../../../src/core/http/client.js';
import { ANSWER_SENDS } from '../../../../src/core/protocol/server-answers.js';
import { systemClock } from '../../../../src/core/system-clock.js';
import type { Clock } from '../../../../src/core/deps.js';
import { FakeClock } from '../../../fakes/clock.js';
import { sessionWith } from './fake-session-server.js';

let live: Server | undefined;
let http: HttpClient | undefined;
afterEach(async () => {
  await http?.close();
  live?.closeAllConnections();
  await new Promise((r) => live?.close(r));
  live = http = undefined;
});

const ELICIT = { jsonrpc: '2.0', id: 'e1', method: 'elicitation/create', params: { message: 'Sure?', requestedSchema: { type: 'object', properties: {} } } };

/**
 * A server of 2025-06-18 whose tools/call asks an elicitation on its event stream (event 0) and answers once
 * the answer came; the first `resets` answer POSTs are reset (with the call's stream too when `restart`);
 * a resumption brings the response when the answer came, else nothing new.
 */
async function serve(resets: number, restart: boolean, askOnSessionStream = false) {
  const seen = { answers: 0, taken: undefined as unknown, gets: [] as string[], sessionStreams: 0 };
  let stream: ServerResponse | undefined;
  let callId: unknown;
  const response = () => `id: 1\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: callId, result: { content: [], answer: seen.taken } })}\n\n`;
  live = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      if (req.method === 'DELETE') return void res.writeHead(200).end();
      if (req.method === 'GET') {
        const last = req.headers['last-event-id'] as string | undefined;
        // The session's own stream: the first one asks the elicitation (and stays open), later ones are refused.
        if (last === undefined && askOnSessionStream && ++seen.sessionStreams === 1)
          return void res.writeHead(200, { 'content-type': 'text/event-stream' }).write(`id: s0\ndata: ${JSON.stringify(ELICIT)}\n\n`);
        if (last === undefined) return void res.writeHead(405).end();
        seen.gets.push(last);
        return void res.writeHead(200, { 'content-type': 'text/event-stream' }).end(seen.taken ? response() : 'retry: 10\n\n');
      }
      const m = JSON.parse(body) as { id?: unknown; method?: string; result?: unknown };
      if (m.method === 'initialize') {
        const result = { protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 'asks', version: '1' } };
        return void res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 's' }).end(JSON.stringify({ jsonrpc: '2.0', id: m.id, result }));
      }
      if (m.method === 'tools/call') {
        callId = m.id;
        stream = res;
        return void res.writeHead(200, { 'content-type': 'text/event-stream' }).write(`id: 0\nretry: 10\ndata: ${JSON.stringify(ELICIT)}\n\n`);
      }
      if (m.method !== undefined) return void res.writeHead(202).end();
      seen.answers++;
      if (seen.answers <= resets) {
        if (restart) stream?.socket?.destroy();
        return void req.socket.destroy();
      }
      seen.taken = m.result;
      res.writeHead(202).end();
      if (stream && !stream.destroyed) stream.end(response());
    });
  });
  await new Promise<void>((r) => live!.listen(0, '127.0.0.1', () => r()));
  return { url: `http://127.0.0.1:${(live.address() as AddressInfo).port}/mcp`, seen };
}

async function session(url: string, clock: Clock) {
  http = new HttpClient({ clock, userAgent: 'test' });
  const notes: string[] = [];
  const s = sessionWith(http, clock, { elicit: async () => ({ action: 'accept', content: { ok: true } }), notify: (l) => void notes.push(l) }, url);
  await s.start();
  await s.initialize();
  return { s, notes };
}

describe("an answer to a server's request that the network fails", () => {
  it('is sent again once the server is back (the live clock), and the resumed stream brings the response', async () => {
    const { url, seen } = await serve(1, true);
    const { s } = await session(url, systemClock);
    const started = performance.now();
    const r = await s.request('tools/call', { name: 'confirm', arguments: {} });
    expect(performance.now() - started).toBeGreaterThanOrEqual(ANSWER_SENDS.firstMs - 50);
    expect(r.result).toEqual({ content: [], answer: { action: 'accept', content: { ok: true } } });
    expect(seen.answers).toBe(2);
    expect(seen.gets).toEqual(['0']);
    await s.close();
  });

  it(`fails the call, saying the request stays unanswered, after ${ANSWER_SENDS.max} sends with the backoff between them`, async () => {
    const { url, seen } = await serve(Number.POSITIVE_INFINITY, false);
    const clock = new FakeClock();
    const { s } = await session(url, clock);
    const e = await s.request('tools/call', { name: 'confirm', arguments: {} }).catch((x: unknown) => x);
    expect(e).toMatchObject({ code: 'protocol_error' });
    expect((e as Error).message).toMatch(
      new RegExp(
        `^could not send Lanyard's answer to elicitation/create to ${url} \\(${ANSWER_SENDS.max} tries\\): .+; the server's request stays unanswered$`,
      ),
    );
    expect(seen.answers).toBe(ANSWER_SENDS.max);
    expect(clock.sleeps).toEqual([1000, 1500, 2250, 3375]);
    await s.close();
  });

  it("on the session's own stream, an answer no send delivered is said on stderr, once", async () => {
    const { url, seen } = await serve(Number.POSITIVE_INFINITY, false, true);
    const { s, notes } = await session(url, new FakeClock());
    for (let i = 0; i < 1000 && notes.length === 0; i++) await new Promise((r) => setTimeout(r, 5));
    expect(notes).toEqual([
      expect.stringMatching(/^could not send Lanyard's answer to elicitation\/create to .+ \(5 tries\): .+; the server's request stays unanswered$/),
    ]);
    expect(seen.answers).toBe(ANSWER_SENDS.max);
    await s.close();
  });

  it("a bridge host's answer, sent through the session, is sent again too", async () => {
    const { url, seen } = await serve(2, false);
    const clock = new FakeClock();
    const { s } = await session(url, clock);
    await expect(s.send({ jsonrpc: '2.0', id: 'e1', result: { action: 'decline' } })).resolves.toBeUndefined();
    expect(seen.answers).toBe(3);
    expect(seen.taken).toEqual({ action: 'decline' });
    expect(clock.sleeps).toEqual([1000, 1500]);
    await s.close();
  });
});
