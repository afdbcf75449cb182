/**
 * `lanyard protocol bridge` between the protocol SDK's own ends: its stdio
 * client (the host) and its streamable HTTP server with its OAuth pieces
 * (mcpAuthRouter, requireBearerAuth, the demo in-memory authorization
 * provider, its in-memory event store for resumable streams), in process on
 * loopback. The bridge registers, signs in with PKCE, lists and calls tools,
 * passes the server's elicitation to the host, resumes an event stream the
 * server closed mid-call (GET with Last-Event-ID), and ends the session.
 */
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { mcpAuthRouter, getOAuthProtectedResourceMetadataUrl } from '@modelcontextprotocol/sdk/server/auth/router.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import { DemoInMemoryAuthProvider } from '@modelcontextprotocol/sdk/examples/server/demoInMemoryOAuthProvider.js';
import { InMemoryEventStore } from '@modelcontextprotocol/sdk/examples/shared/inMemoryEventStore.js';
import { isInitializeRequest, LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { newClient } from './protocol-helpers.js';
import { hostBridge } from './bridge-helpers.js';

let http: Server;
let mcp: string;
const seen = { token: 0, deletes: 0, resumes: [] as string[], cancelled: 0 };

function toolServer(): McpServer {
  const s = new McpServer({ name: 'sdk-tools', version: '1.0.0' }, { capabilities: { logging: {} } });
  s.registerTool('echo', { inputSchema: { text: z.string() } }, async ({ text }) => ({ content: [{ type: 'text', text }] }));
  s.registerTool('interrupted', { inputSchema: {} }, async (_args, extra) => {
    await extra.sendNotification({ method: 'notifications/message', params: { level: 'info', data: 'before the break' } });
    // The server ends the call's event stream (SEP-1699); the client resumes it with Last-Event-ID.
    extra.closeSSEStream?.();
    await new Promise((r) => setTimeout(r, 300));
    await extra.sendNotification({ method: 'notifications/message', params: { level: 'info', data: 'after the break' } });
    return { content: [{ type: 'text', text: 'survived the break' }] };
  });
  s.registerTool('slow', { inputSchema: {} }, async (_args, extra) => {
    // Ends only when the client cancels the call.
    await new Promise<void>((r) => extra.signal.addEventListener('abort', () => r(), { once: true }));
    seen.cancelled++;
    return { content: [{ type: 'text', text: 'cancelled' }] };
  });
  s.registerTool('confirm', { inputSchema: { question: z.string() } }, async ({ question }) => {
    const r = await s.server.elicitInput({
      message: question,
      requestedSchema: { type: 'object', properties: { confirm: { type: 'boolean' } }, required: ['confirm'] },
    });
    return { content: [{ type: 'text', text: `${r.action}: ${JSON.stringify(r.content ?? {})}` }] };
  });
  return s;
}

beforeAll(async () => {
  const app = express();
  http = app.listen(0, '127.0.0.1');
  await new Promise<void>((r) => http.once('listening', () => r()));
  const base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  mcp = `${base}/mcp`;
  const provider = new DemoInMemoryAuthProvider();
  app.use('/token', (_req, _res, next) => {
    seen.token++;
    next();
  });
  app.use(mcpAuthRouter({ provider, issuerUrl: new URL(base), resourceServerUrl: new URL(mcp), scopesSupported: ['mcp:tools'] }));
  const auth = requireBearerAuth({ verifier: provider, resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(new URL(mcp)) });
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  app.all('/mcp', express.json(), auth, async (req, res) => {
    const sid = req.headers['mcp-session-id'];
    if (req.method === 'DELETE') seen.deletes++;
    if (req.method === 'GET' && req.headers['last-event-id']) seen.resumes.push(String(req.headers['last-event-id']));
    let t = typeof sid === 'string' ? sessions.get(sid) : undefined;
    if (!t) {
      if (req.method !== 'POST' || !isInitializeRequest(req.body)) {
        res.status(400).json({ jsonrpc: '2.0', id: null, error: { code: -32000, message: 'no such session' } });
        return;
      }
      const created = new StreamableHTTPServerTransport({
        sessionIdGenerator: randomUUID,
        eventStore: new InMemoryEventStore(),
        retryInterval: 100,
        onsessioninitialized: (id) => void sessions.set(id, created),
      });
      t = created;
      await toolServer().connect(created);
    }
    await t.handleRequest(req, res, req.body);
  });
});

afterAll(async () => {
  http?.closeAllConnections();
  await new Promise((r) => http?.close(r));
});

describe('protocol bridge between the SDK stdio client and the SDK streamable HTTP server with OAuth', () => {
  it('signs in, lists and calls tools, forwards an elicitation, resumes a closed stream, ends the session', async () => {
    const c = await newClient('allow');
    const b = await hostBridge(mcp, { env: c.env(), elicit: () => ({ action: 'accept', content: { confirm: true } }) });
    const logs: string[] = [];
    b.client.setNotificationHandler(LoggingMessageNotificationSchema, async (n) => void logs.push(String(n.params.data)));
    const tools = await b.client.listTools();
    expect(tools.tools.map((t) => t.name).sort()).toEqual(['confirm', 'echo', 'interrupted', 'slow']);
    expect(JSON.stringify((await b.client.callTool({ name: 'echo', arguments: { text: 'via the SDK server' } })).content)).toContain('via the SDK server');
    const confirmed = await b.client.callTool({ name: 'confirm', arguments: { question: 'Proceed?' } });
    expect(JSON.stringify(confirmed.content)).toContain('accept: {\\"confirm\\":true}');
    expect(b.elicitations).toEqual([expect.objectContaining({ message: 'Proceed?' })]);
    const resumed = await b.client.callTool({ name: 'interrupted', arguments: {} });
    expect(JSON.stringify(resumed.content)).toContain('survived the break');
    expect(logs).toEqual(['before the break', 'after the break']);
    expect(seen.resumes.length).toBeGreaterThanOrEqual(1);
    // Cancellation: the host's notifications/cancelled reaches the server, which stops the tool.
    const ac = new AbortController();
    const slow = b.client.callTool({ name: 'slow', arguments: {} }, undefined, { signal: ac.signal });
    setTimeout(() => ac.abort('the user pressed stop'), 500);
    await expect(slow).rejects.toThrow(/stop|abort/i);
    for (let i = 0; i < 100 && !seen.cancelled; i++) await new Promise((r) => setTimeout(r, 50));
    expect(seen.cancelled).toBe(1);
    expect(JSON.stringify((await b.client.callTool({ name: 'echo', arguments: { text: 'still here' } })).content)).toContain('still here');
    expect(await b.close()).toBe(0);
    expect(b.errors).toEqual([]);
    expect(seen.deletes).toBe(1);
    expect(seen.token).toBe(1);
    expect(await c.urls()).toHaveLength(1);
    expect(b.stderr()).not.toMatch(/Bearer [\w-]{20,}/);
  });
});
