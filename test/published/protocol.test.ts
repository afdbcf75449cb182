/**
 * The emulated protocol server's answers against the protocol's own JSON
 * schema, for each revision it speaks: the vendored extract
 * protocol/schema-extract.json holds the definitions the answers use (with
 * everything they reference), copied from modelcontextprotocol/
 * modelcontextprotocol schema/<revision>/schema.json at the commits its
 * `x-extract` names. initialize, ping, tools/list, tools/call (a result and
 * an error) and the server's elicitation/create request validate with Ajv
 * (draft-07 for 2025-03-26 and 2025-06-18, 2020-12 for 2025-11-25).
 */
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { useInProcessEmulator } from '../e2e/in-process-emulator.js';
import { jsonSchemaValidator } from './validate.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const extract = JSON.parse(readFileSync(new URL('./protocol/schema-extract.json', import.meta.url), 'utf8')) as {
  'x-extract': { revisions: Record<string, { definitionsKey: string; roots: string[] }> };
  revisions: Record<string, Record<string, Record<string, unknown>>>;
};
const REVISIONS = ['2025-03-26', '2025-06-18', '2025-11-25'] as const;

/** A validator of one definition of a revision's schema. */
function definitions(rev: string): (name: string) => ValidateFunction {
  const key = extract['x-extract'].revisions[rev]!.definitionsKey;
  const ajv = key === '$defs' ? addFormats(new Ajv2020({ strict: false, allErrors: true })) : jsonSchemaValidator();
  const id = `https://lanyard.test/mcp/${rev}`;
  ajv.addSchema({ $id: id, [key]: extract.revisions[rev]![key] });
  return (name) => {
    const v = ajv.getSchema(`${id}#/${key}/${name}`);
    if (!v) throw new Error(`${rev} has no ${name}`);
    return v;
  };
}

const ref = useInProcessEmulator({}, { resetEach: false });

async function token(): Promise<string> {
  const c = ref.emu.fixtures.protocol.clients.find((x) => x.grant_types.includes('client_credentials'))!;
  const meta = (await (await fetch(`${ref.emu.urls.protocol.authorizationServer}/.well-known/oauth-authorization-server`)).json()) as {
    token_endpoint: string;
  };
  const res = await fetch(meta.token_endpoint, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${c.client_id}:${c.client_secret}`).toString('base64')}`,
    },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'tools:read tools:call' }),
  });
  const body = (await res.json()) as { access_token?: string };
  expect(res.status, JSON.stringify(body)).toBe(200);
  return body.access_token!;
}

/** One JSON-RPC call; the answer's message (the last of an event stream). */
async function rpc(
  t: string,
  rev: string,
  session: string | undefined,
  method: string,
  params?: unknown,
): Promise<{ session?: string; messages: Record<string, unknown>[] }> {
  const headers: Record<string, string> = { authorization: `Bearer ${t}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  if (session) {
    headers['mcp-session-id'] = session;
    headers['mcp-protocol-version'] = rev;
  }
  const res = await fetch(ref.emu.urls.protocol.server, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: method, method, params }) });
  const text = await res.text();
  const messages = (res.headers.get('content-type') ?? '').includes('event-stream')
    ? text
        .split('\n')
        .filter((l) => l.startsWith('data: ') && l.length > 6)
        .map((l) => JSON.parse(l.slice(6)) as Record<string, unknown>)
    : [JSON.parse(text) as Record<string, unknown>];
  return { session: res.headers.get('mcp-session-id') ?? undefined, messages };
}

function expectValid(v: ValidateFunction, value: unknown, what: string): void {
  expect(v(value), `${what}: ${JSON.stringify(v.errors)}`).toBe(true);
}

describe('protocol answers satisfy the protocol schema of the revision spoken', () => {
  it('the extract is what the schema says (a wrong result fails it)', () => {
    const def = definitions('2025-06-18');
    expect(def('CallToolResult')({ content: [{ type: 'text' }] })).toBe(false);
    expect(def('InitializeResult')({ protocolVersion: '2025-06-18', capabilities: {} })).toBe(false);
  });

  for (const rev of REVISIONS) {
    it(`revision ${rev}: initialize, ping, tools/list, tools/call, an unknown tool`, async () => {
      await ref.emu.admin('protocol', 'configure', { revision: rev });
      const def = definitions(rev);
      const roots = extract['x-extract'].revisions[rev]!.roots;
      const envelope = def(roots.includes('JSONRPCResultResponse') ? 'JSONRPCResultResponse' : 'JSONRPCResponse');
      const errorEnvelope = def(roots.includes('JSONRPCErrorResponse') ? 'JSONRPCErrorResponse' : 'JSONRPCError');
      const t = await token();
      const init = await rpc(t, rev, undefined, 'initialize', {
        protocolVersion: rev,
        capabilities: {},
        clientInfo: { name: 'schema-test', version: '1.0.0' },
      });
      const session = init.session!;
      const answer = init.messages.at(-1)!;
      expectValid(envelope, answer, 'initialize');
      expectValid(def('InitializeResult'), answer.result, 'InitializeResult');
      expect((answer.result as { protocolVersion: string }).protocolVersion).toBe(rev);

      for (const [method, params, result] of [
        ['ping', undefined, 'EmptyResult'],
        ['tools/list', undefined, 'ListToolsResult'],
        ['tools/call', { name: 'echo', arguments: { text: 'hi' } }, 'CallToolResult'],
        ['tools/call', { name: 'time', arguments: {} }, 'CallToolResult'],
      ] as const) {
        const m = (await rpc(t, rev, session, method, params)).messages.at(-1)!;
        expectValid(envelope, m, method);
        expectValid(def(result), m.result, `${method} ${result}`);
      }
      const unknown = (await rpc(t, rev, session, 'tools/call', { name: 'nope', arguments: {} })).messages.at(-1)!;
      expectValid(errorEnvelope, unknown, 'unknown tool');
      const noMethod = (await rpc(t, rev, session, 'no/such/method')).messages.at(-1)!;
      expectValid(errorEnvelope, noMethod, 'unknown method');
      expect((noMethod.error as { code: number }).code).toBe(-32601);

      if (roots.includes('ElicitRequest')) {
        // The confirm tool asks the client first: the server's request is an ElicitRequest; once answered, the call's result follows.
        const headers = {
          authorization: `Bearer ${t}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-session-id': session,
          'mcp-protocol-version': rev,
        };
        const res = await fetch(ref.emu.urls.protocol.server, {
          method: 'POST',
          headers,
          body: JSON.stringify({ jsonrpc: '2.0', id: 'confirm', method: 'tools/call', params: { name: 'confirm', arguments: { question: 'Go?' } } }),
        });
        const seen: Record<string, unknown>[] = [];
        let buffered = '';
        const decoder = new TextDecoder();
        for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
          buffered += decoder.decode(chunk, { stream: true });
          const lines = buffered.split('\n');
          buffered = lines.pop()!;
          for (const l of lines) {
            if (!l.startsWith('data: ') || l.length <= 6) continue;
            const m = JSON.parse(l.slice(6)) as Record<string, unknown>;
            seen.push(m);
            if (m.method === 'elicitation/create') {
              expectValid(def('ElicitRequest'), m, 'ElicitRequest');
              const answered = await fetch(ref.emu.urls.protocol.server, {
                method: 'POST',
                headers,
                body: JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { action: 'accept', content: { confirm: true } } }),
              });
              expect(answered.status).toBe(202);
            }
          }
        }
        const final = seen.at(-1)!;
        expectValid(envelope, final, 'confirm');
        expectValid(def('CallToolResult'), final.result, 'confirm CallToolResult');
        expect(seen.some((m) => m.method === 'elicitation/create')).toBe(true);
      }
    });
  }
});
