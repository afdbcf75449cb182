/**
 * `lanyard protocol request`, one call, and the streams around it: against a
 * server with sessions that refuses the session's GET stream with 400 (as
 * many do instead of 405) the stream is asked for, as the protocol SDK's
 * clients ask, but its refusal puts nothing on stderr — the session ends with
 * the call (the server answers the call only after it has refused the GET,
 * so the refusal is in hand before the call ends); and an answer's stream cut
 * while the token expires is resumed with a refreshed token (the emulator).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runProtocolRequest } from '../../../../src/cli/commands/protocol/request.js';
import { ConsentBrowser } from '../../../fakes/consent-browser.js';
import { useEmulatorCommands } from '../on-emulator.js';

const on = useEmulatorCommands();

describe('protocol request against a server that refuses the GET stream with 400', () => {
  let fake: Server;
  let url: string;
  const seen: string[] = [];
  let getRefused = () => {};
  let refused = new Promise<void>((r) => (getRefused = r));
  beforeAll(async () => {
    fake = createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        const json = (status: number, b: unknown, headers: Record<string, string> = {}) =>
          res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(b));
        const m = body ? (JSON.parse(body) as { id?: unknown; method?: string }) : {};
        seen.push(`${req.method} ${m.method ?? ''}`.trim());
        const session = req.headers['mcp-session-id'];
        if (req.method === 'GET') {
          json(400, { jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Bad Request: this server offers no stream' } });
          return void setTimeout(getRefused, 50);
        }
        if (req.method === 'DELETE') return void res.writeHead(200).end();
        if (m.method === 'initialize') {
          const result = { protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 'fake', version: '1' } };
          return json(200, { jsonrpc: '2.0', id: m.id, result }, { 'mcp-session-id': 'one-off' });
        }
        // A server of sessions, as the protocol SDK's: a request without one is refused (the stateless probe too).
        if (!session) return json(400, { jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Bad Request: No valid session ID provided' } });
        if (m.id === undefined) return void res.writeHead(202).end();
        // (At most 2 s: a client that asks for no stream is answered too.)
        void Promise.race([refused, new Promise((r) => setTimeout(r, 2000))]).then(() => json(200, { jsonrpc: '2.0', id: m.id, result: {} }));
      });
    });
    await new Promise<void>((r) => fake.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(fake.address() as AddressInfo).port}/mcp`;
  });
  afterAll(async () => {
    fake.closeAllConnections();
    await new Promise((r) => fake.close(r));
  });

  it('answers the call, and stderr says nothing of the session stream', async () => {
    for (let i = 0; i < 3; i++) {
      seen.length = 0;
      refused = new Promise<void>((r) => (getRefused = r));
      const r = await on.run((c) => runProtocolRequest(c, url, { method: 'ping' }), { format: 'json' });
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ result: {} });
      expect(r.stderr).toBe('');
    }
  });
});

describe("an answer's stream cut while the token expires", () => {
  it('is resumed after a refresh (the GET with Last-Event-ID got 401), not failed', async () => {
    await on.emu.admin('protocol', 'configure', { revision: '2025-06-18' });
    const url = `${on.emu.url}/mcp`;
    const run = (manualClock?: boolean) =>
      on.run((c) => runProtocolRequest(c, url, { method: 'ping' }), { browser: new ConsentBrowser(), env: { LANYARD_BROWSER: 'in-process' }, manualClock });
    // Signed in (the browser's wait is a sleep on a clock that waits for it).
    const first = await run(true);
    expect(first.code, first.stderr).toBe(0);
    // Event-stream answers; the next one (initialize's) is cut after its first event, whose retry is 200 ms.
    await on.emu.admin('protocol', 'configure', { sse: true, breakNextStream: true });
    let expired = false;
    on.clock.onSleep = (ms) => {
      // The wait before the resumption: meanwhile the access token (5 min) expires on the server.
      if (ms === 200 && !expired) (expired = true), on.emu.advance(10 * 60_000);
    };
    const r = await run();
    expect(r.code, r.stderr).toBe(0);
    expect(expired).toBe(true);
    const s = (await on.emu.admin('protocol', 'stats')) as { streamsResumed: unknown[] };
    expect(s.streamsResumed.length).toBeGreaterThanOrEqual(1);
    expect(r.stderr).toMatch(/refreshing it/);
  });
});
