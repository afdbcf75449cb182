/**
 * Resources and prompts of the emulator's protocol server, at every revision
 * it speaks, through clients that are not Lanyard's: the protocol's
 * TypeScript SDK (@modelcontextprotocol/sdk) at 2025-03-26, 2025-06-18 and
 * 2025-11-25 (list, read, templates, subscribe and the update notification on
 * the session's stream; prompts listed and got with arguments), and plain
 * HTTP as the stateless revision 2026-07-28 describes it (the SDK does not
 * speak it; the Python SDK's client does, in test/interop-py/). The CLI's
 * `protocol request` is tested against them in protocol-revisions.test.ts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ClientCredentialsProvider } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { useInProcessEmulator } from './in-process-emulator.js';

const ref = useInProcessEmulator();
const NOTES = 'emulator://notes/today';
const README = 'emulator://docs/readme';
let client: Client | undefined;
afterEach(async () => {
  await client?.close();
  client = undefined;
});

async function connect(revision: string): Promise<Client> {
  await ref.emu.admin('protocol', 'configure', { revision });
  const c = ref.emu.fixtures.protocol.clients.find((x) => x.grant_types.includes('client_credentials'))!;
  const authProvider = new ClientCredentialsProvider({
    clientId: c.client_id,
    clientSecret: c.client_secret!,
    expectedIssuer: ref.emu.urls.protocol.authorizationServer,
  });
  client = new Client({ name: 'content-interop', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(ref.emu.urls.protocol.server), { authProvider }));
  return client;
}

describe.each(['2025-03-26', '2025-06-18', '2025-11-25'])('the protocol SDK client at %s', (revision) => {
  it('lists and reads resources (text, blob, a template instance); an unknown one is -32002', async () => {
    const c = await connect(revision);
    expect(c.getServerCapabilities()).toMatchObject({ resources: { subscribe: true }, prompts: {} });
    const { resources } = await c.listResources();
    expect(resources.map((r) => r.uri)).toEqual(['emulator://docs/readme', NOTES, 'emulator://images/pixel.png']);
    // `title` came with 2025-06-18.
    if (revision === '2025-03-26') expect(resources[0]).not.toHaveProperty('title');
    else expect(resources[0]!.title).toBe('About this server');
    const readme = await c.readResource({ uri: 'emulator://docs/readme' });
    expect(readme.contents[0]).toMatchObject({
      uri: 'emulator://docs/readme',
      mimeType: 'text/markdown',
      text: expect.stringContaining('# The emulated protocol server'),
    });
    const pixel = await c.readResource({ uri: 'emulator://images/pixel.png' });
    expect(
      Buffer.from(String((pixel.contents[0] as { blob?: string }).blob), 'base64')
        .subarray(1, 4)
        .toString(),
    ).toBe('PNG');
    const { resourceTemplates } = await c.listResourceTemplates();
    expect(resourceTemplates).toEqual([expect.objectContaining({ uriTemplate: 'emulator://users/{login}', mimeType: 'application/json' })]);
    const ada = await c.readResource({ uri: 'emulator://users/ada' });
    expect(JSON.parse(String((ada.contents[0] as { text?: string }).text))).toEqual({ login: 'ada', name: 'Ada Lovelace' });
    await expect(c.readResource({ uri: 'emulator://users/nobody' })).rejects.toMatchObject({ code: -32002 });
  });

  it('subscribes to a resource and is told of its update on the session’s stream; unsubscribed, it is not', async () => {
    const c = await connect(revision);
    const updates: string[] = [];
    c.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
      updates.push(n.params.uri);
    });
    await c.subscribeResource({ uri: NOTES });
    await expect(c.subscribeResource({ uri: 'emulator://nowhere' })).rejects.toMatchObject({ code: -32002 });
    // The SDK opens the session's GET stream after initialize; wait until the server holds it.
    await expect.poll(() => ref.emu.admin('protocol', 'update-resource', { text: 'first' }).then(() => updates.length), { timeout: 10_000 }).toBeGreaterThan(0);
    expect(updates[0]).toBe(NOTES);
    expect(((await c.readResource({ uri: NOTES })).contents[0] as { text?: string }).text).toBe('first');
    // The readme's updates are markers on the same stream: all that was sent before one has come when it comes.
    await c.subscribeResource({ uri: README });
    await ref.emu.admin('protocol', 'update-resource', { uri: README, text: 'before' });
    await expect.poll(() => updates.includes(README), { timeout: 10_000 }).toBe(true);
    await c.unsubscribeResource({ uri: NOTES });
    const seen = updates.length;
    await ref.emu.admin('protocol', 'update-resource', { text: 'second' });
    await ref.emu.admin('protocol', 'update-resource', { uri: README, text: 'after' });
    await expect.poll(() => updates.slice(seen).includes(README), { timeout: 10_000 }).toBe(true);
    expect(updates.slice(seen)).toEqual([README]);
  });

  it('lists prompts and gets them with arguments; a missing required argument is -32602', async () => {
    const c = await connect(revision);
    const { prompts } = await c.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(['greeting', 'summarize']);
    expect(prompts[0]!.arguments).toEqual([
      expect.objectContaining({ name: 'name', required: true }),
      expect.objectContaining({ name: 'style', required: false }),
    ]);
    const hi = await c.getPrompt({ name: 'greeting', arguments: { name: 'Ada', style: 'formal' } });
    expect(hi.messages).toEqual([{ role: 'user', content: { type: 'text', text: 'Please write a formal greeting addressed to Ada.' } }]);
    const sum = await c.getPrompt({ name: 'summarize', arguments: { uri: 'emulator://docs/readme' } });
    expect(sum.messages[1]!.content).toMatchObject({ type: 'resource', resource: { uri: 'emulator://docs/readme', mimeType: 'text/markdown' } });
    await expect(c.getPrompt({ name: 'greeting', arguments: {} })).rejects.toMatchObject({ code: -32602 });
  });
});

describe('the stateless revision 2026-07-28 over plain HTTP', () => {
  const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
  const post = (method: string, params: Record<string, unknown>, name?: string, signal?: AbortSignal) =>
    fetch(ref.emu.urls.protocol.server, {
      method: 'POST',
      signal,
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': method,
        ...(name === undefined ? {} : { 'mcp-name': name }),
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: meta } }),
    });

  it('lists, reads (Mcp-Name is the URI), lists templates and prompts and gets one; the lists say how long they keep', async () => {
    await ref.emu.admin('protocol', 'configure', { revision: '2026-07-28', open: true });
    const list = (await (await post('resources/list', {})).json()) as { result: { resources: unknown[]; ttlMs: number; resultType: string } };
    expect(list.result).toMatchObject({ resultType: 'complete', ttlMs: expect.any(Number) });
    expect(list.result.resources).toHaveLength(3);
    const read = (await (await post('resources/read', { uri: NOTES }, NOTES)).json()) as { result: { contents: Array<{ text: string }> } };
    expect(read.result.contents[0]!.text).toMatch(/No notes yet/);
    expect((await post('resources/read', { uri: NOTES }, 'emulator://docs/readme')).status).toBe(400);
    const templates = (await (await post('resources/templates/list', {})).json()) as { result: { resourceTemplates: unknown[] } };
    expect(templates.result.resourceTemplates).toHaveLength(1);
    const prompts = (await (await post('prompts/list', {})).json()) as { result: { prompts: Array<{ name: string; title: string }> } };
    expect(prompts.result.prompts.map((p) => p.title)).toEqual(['Greeting', 'Summarize a resource']);
    const got = (await (await post('prompts/get', { name: 'greeting', arguments: { name: 'Grace' } }, 'greeting')).json()) as {
      result: { messages: Array<{ content: { text: string } }> };
    };
    expect(got.result.messages[0]!.content.text).toBe('Say hi to Grace in one friendly line.');
    // SEP-2164: Invalid Params with the URI, from 2026-07-28 on.
    const missing = (await (await post('resources/read', { uri: 'emulator://x' }, 'emulator://x')).json()) as { error: { code: number; data: unknown } };
    expect(missing.error).toMatchObject({ code: -32602, data: { uri: 'emulator://x' } });
    // No resources/subscribe at this revision: subscriptions/listen instead.
    expect((await post('resources/subscribe', { uri: NOTES })).status).toBe(404);
  });

  it('subscriptions/listen: acknowledged first, then the update, each frame stamped with the request id', async () => {
    await ref.emu.admin('protocol', 'configure', { revision: '2026-07-28', open: true });
    const ac = new AbortController();
    const res = await post('subscriptions/listen', { notifications: { resourceSubscriptions: [NOTES, 'emulator://nowhere'] } }, undefined, ac.signal);
    expect(res.headers.get('content-type')).toMatch(/text\/event-stream/);
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = '';
    const frames = async (n: number) => {
      while ((text.match(/\n\n/g) ?? []).length < n) text += (await reader.read()).value ?? '';
      return text
        .split('\n\n')
        .filter((e) => e.includes('data: '))
        .map((e) => JSON.parse(e.slice(e.indexOf('data: ') + 6)));
    };
    const [ack] = await frames(1);
    expect(ack).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/subscriptions/acknowledged',
      params: { notifications: { resourceSubscriptions: [NOTES] }, _meta: { 'io.modelcontextprotocol/subscriptionId': 1 } },
    });
    await ref.emu.admin('protocol', 'update-resource', { text: 'listen' });
    const [, update] = await frames(2);
    expect(update).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/resources/updated',
      params: { uri: NOTES, _meta: { 'io.modelcontextprotocol/subscriptionId': 1 } },
    });
    ac.abort();
  });
});
