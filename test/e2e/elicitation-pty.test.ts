/**
 * The elicitation prompt as a person at a terminal meets it: what the server
 * sends is sanitised before it reaches the terminal, Ctrl-C cancels (the
 * server is answered `cancel`), Ctrl-D declines, SIGTERM ends with 143 — never
 * a hang and never 0 with the call unfinished. A small protocol server of its
 * own asks the question and records the answer it gets.
 */
import { createServer, type Server } from 'node:http';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runOnPty } from './pty.js';

const EVIL = '\u001b]52;c;ZXZpbA==\u0007\u001b]0;pwned\u0007\u001b[2J\u202e';
const ASK = {
  message: 'Deploy?',
  requestedSchema: {
    type: 'object',
    properties: {
      ['tag' + EVIL]: { type: 'str' + EVIL, description: 'd' + EVIL, default: 'v1' + EVIL },
      region: {
        type: 'string',
        oneOf: [
          { const: 'eu', title: 'Europe' + EVIL },
          { const: 'us', title: 'US' },
        ],
        default: 'eu',
      },
    },
  },
};

let server: Server;
let url: string;
let dir: string;
/** The answers the server got to its elicitation, in order. */
const answers: unknown[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lanyard-elicit-'));
  let pending: { res: import('node:http').ServerResponse; id: unknown } | undefined;
  server = createServer(async (req, res) => {
    let body = '';
    for await (const c of req) body += c;
    if (req.method !== 'POST') return res.writeHead(req.method === 'DELETE' ? 200 : 405).end();
    const msg = JSON.parse(body) as { id?: unknown; method?: string; result?: unknown };
    if (msg.method === 'initialize') {
      res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 's1' });
      const result = { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'asker', version: '1' } };
      return res.end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result }));
    }
    if (msg.method?.startsWith('notifications/')) return res.writeHead(202).end();
    if (msg.method === 'tools/call') {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: 'e1', method: 'elicitation/create', params: ASK })}\n\n`);
      pending = { res, id: msg.id };
      return;
    }
    if (msg.id === 'e1' && pending) {
      answers.push(msg.result);
      res.writeHead(202).end();
      const p = pending;
      pending = undefined;
      const result = { content: [{ type: 'text', text: `got ${JSON.stringify(msg.result)}` }] };
      p.res.end(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: p.id, result })}\n\n`);
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: {} }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}/mcp`;
});

afterAll(() => server?.close());

const call = (keys: { send?: string; sendAfter?: string[]; signal?: NodeJS.Signals }) => {
  const before = answers.length;
  return runOnPty({
    args: ['protocol', 'request', url, '--method', 'tools/call', '--params', '{"name":"deploy"}', '--json'],
    env: { LANYARD_CONFIG_DIR: dir, LANYARD_PAGER: '' },
    waitFor: 'Answer\\?',
    timeout: 20,
    ...keys,
  }).then((r) => ({ ...r, answer: answers.length > before ? answers.at(-1) : undefined }));
};

describe('the elicitation prompt on a terminal', () => {
  it("shows the server's field names, types, descriptions, choices' labels and defaults sanitised (no escape reaches the terminal)", async () => {
    // y, then Enter on the first field (its default), then a choice.
    const r = await call({ send: '790d', sendAfter: ['0d', '75730d'] });
    expect(r.exitCode).toBe(0);
    expect(r.output).toContain('[str^[]52;c;');
    expect(r.output).toContain('eu (Europe^[]52;c;');
    expect(r.output).not.toMatch(/\u001b\]52|\u001b\]0;|\u001b\[2J|\u202e/);
    expect(r.answer).toEqual({ action: 'accept', content: { ['tag' + EVIL]: 'v1' + EVIL, region: 'us' } });
  });

  it('Ctrl-C cancels: the server is answered `cancel` and the call goes on to its result', async () => {
    const r = await call({ send: '03' });
    expect(r.answer).toEqual({ action: 'cancel' });
    expect(r.output).toContain('Cancelled');
    expect(r.output).toContain('got {\\"action\\":\\"cancel\\"}');
    expect(r.exitCode).toBe(0);
    expect(r.modeAfter).toBe(r.modeBefore);
  });

  it('Ctrl-C at a field (after answering yes) cancels too', async () => {
    const r = await call({ send: '790d', sendAfter: ['03'] });
    expect(r.answer).toEqual({ action: 'cancel' });
    expect(r.exitCode).toBe(0);
  });

  it('Ctrl-D (end of input) declines', async () => {
    const r = await call({ send: '04' });
    expect(r.answer).toEqual({ action: 'decline' });
    expect(r.output).toContain('Declined');
    expect(r.exitCode).toBe(0);
  });

  it('SIGTERM at the prompt ends with 143 and "Interrupted", not 0 with the call unfinished', async () => {
    const r = await call({ signal: 'SIGTERM' });
    expect(r.exitCode).toBe(143);
    expect(r.output).toContain('Interrupted');
    expect(r.output).not.toContain('"content"');
    expect(r.modeAfter).toBe(r.modeBefore);
  });
});
