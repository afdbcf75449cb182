/**
 * The emulated protocol server speaking the stateless revision 2026-07-28:
 * no `initialize` and no session; every request carries `_meta` (protocol
 * version, client capabilities) and the `MCP-Protocol-Version`, `Mcp-Method`,
 * `Mcp-Name` and tool-designated `Mcp-Param-*` headers (SEP-2243), checked
 * against the body; the confirm tool asks for input with a multi round-trip
 * request (SEP-2322: `input_required`, `inputResponses`, an HMAC-protected
 * `requestState`); resources and prompts (content.ts), and `subscriptions/listen`
 * (SEP-2575): an event stream that acknowledges the resources it will report
 * on, then carries `notifications/resources/updated` for them, each stamped
 * with the listen request's id. Written from the revision's text, not from
 * Lanyard's client.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { Protocol } from '../../../shared/constants.js';
import type { JsonRpcRequestWire } from '../../../shared/protocol.js';
import type { EmuRequest, EmuResponse } from '../../router.js';
import { CONTENT_CAPABILITIES, type ProtocolContent } from './content.js';
import type { ProtocolState } from './state.js';
import { CONFIRM_SCHEMA, SERVER_INFO, callTool, toolsOf } from './tools.js';

export const STATELESS_REVISION = '2026-07-28';
/** Methods a stateless server no longer has (answered 404 + -32601 like any unknown method). */
const HEADER_NAMED: Record<string, 'name' | 'uri'> = { 'tools/call': 'name', 'prompts/get': 'name', 'resources/read': 'uri' };
/** How long a requestState is good for. */
const REQUEST_STATE_TTL_MS = 10 * 60_000;
const E = Protocol.statelessErrors;

/** The `_meta` key that names the subscriptions/listen request a frame of its stream belongs to. */
const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';

/** An answer; `listen`: the resources a subscriptions/listen stream reports on. */
type Reply = { status: number; body: Record<string, unknown>; listen?: string[] };

export class StatelessServer {
  readonly #key = randomBytes(32);
  /** The open subscriptions/listen streams: how to end each gracefully. */
  readonly #listening = new Set<() => void>();

  constructor(
    readonly state: ProtocolState,
    readonly content: ProtocolContent,
  ) {}

  /** Ends every listen stream with its result (the emulator's reset). */
  reset(): void {
    for (const end of [...this.#listening]) end();
  }

  /** One POSTed request of an authorized caller (`clientId`); `record` sets the status in the stats. */
  handle(req: EmuRequest, res: EmuResponse, msg: JsonRpcRequestWire, clientId: string, record: (status: number, version?: string) => void): void {
    const r = this.#answer(req, msg, clientId);
    record(r.status, req.header(Protocol.laterVersionHeader));
    if (r.listen) return this.#listen(res, msg.id ?? null, r.listen);
    if (r.status === 200 && this.state.settings.sse) {
      const out = res.head(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' });
      // Log messages only for a request that asked for them (io.modelcontextprotocol/logLevel); no event ids (streams are not resumable).
      if (metaOf(msg)?.['io.modelcontextprotocol/logLevel'] !== undefined) {
        const note = { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: `handling ${msg.method}` } };
        out.write(`event: message\ndata: ${JSON.stringify(note)}\n\n`);
      }
      out.write(`event: message\ndata: ${JSON.stringify(r.body)}\n\n`);
      out.end();
      return;
    }
    if (r.status === 202) return res.empty(202);
    res.json(r.status, r.body);
  }

  #answer(req: EmuRequest, msg: JsonRpcRequestWire, clientId: string): Reply {
    const id = msg.id ?? null;
    const fail = (status: number, code: number, message: string, data?: unknown): Reply => ({
      status,
      body: { jsonrpc: '2.0', id, error: { code, message, ...(data === undefined ? {} : { data }) } },
    });
    const meta = metaOf(msg);
    const headerVersion = req.header(Protocol.laterVersionHeader);
    // A client of a revision with the handshake: say which revision this server speaks.
    if (msg.method === 'initialize' && (headerVersion === undefined || meta === undefined)) {
      const requested = (msg.params as { protocolVersion?: unknown } | undefined)?.protocolVersion;
      return fail(400, E.unsupportedVersion, `Unsupported protocol version: this server speaks ${STATELESS_REVISION} only (stateless, no initialize)`, {
        supported: [STATELESS_REVISION],
        requested: typeof requested === 'string' ? requested : null,
      });
    }
    if (msg.id === undefined) return { status: 202, body: {} };
    const mismatch = this.#headerMismatch(req, msg);
    if (mismatch) return fail(400, E.headerMismatch, `Header mismatch: ${mismatch}`);
    const version = meta?.[Protocol.meta.protocolVersion];
    const caps = meta?.[Protocol.meta.clientCapabilities];
    if (typeof version !== 'string' || !caps || typeof caps !== 'object' || Array.isArray(caps)) {
      return fail(400, -32602, `Invalid params: _meta must carry ${Protocol.meta.protocolVersion} (string) and ${Protocol.meta.clientCapabilities} (object)`);
    }
    if (headerVersion !== version) {
      return fail(400, E.headerMismatch, `Header mismatch: ${Protocol.laterVersionHeader} ${headerVersion} does not match _meta protocolVersion ${version}`);
    }
    if (version !== STATELESS_REVISION) {
      return fail(400, E.unsupportedVersion, 'Unsupported protocol version', { supported: [STATELESS_REVISION], requested: version });
    }
    const p = (msg.params ?? {}) as Record<string, unknown>;
    const ok = (result: Record<string, unknown>): Reply => ({
      status: 200,
      body: { jsonrpc: '2.0', id, result: { resultType: 'complete', ...result, _meta: { 'io.modelcontextprotocol/serverInfo': SERVER_INFO } } },
    });
    const cache = { ttlMs: 60_000, cacheScope: this.state.settings.open ? 'public' : 'private' };
    switch (msg.method) {
      case 'server/discover':
        return ok({
          supportedVersions: [STATELESS_REVISION],
          capabilities: { tools: { listChanged: false }, ...CONTENT_CAPABILITIES },
          instructions:
            'Emulated tools: echo, time, confirm, echo_region. Resources: readme, notes (subscribable), pixel, users/{login}. Prompts: greeting, summarize.',
          ...cache,
        });
      case 'tools/list':
        return ok({ tools: toolsOf(STATELESS_REVISION), ...cache });
      case 'tools/call': {
        if (p.name === 'confirm') return this.#confirm(p, clientId, caps as Record<string, unknown>, ok, fail);
        const r = callTool(p.name, p.arguments, this.state.clock.now(), STATELESS_REVISION);
        return 'error' in r ? fail(200, r.error.code, r.error.message) : ok(r.result);
      }
      default:
        return this.#content(msg.method, p, ok, fail, cache);
    }
  }

  /** Resources, prompts and subscriptions/listen (its answer is a stream: `listen`); -32601 for any other method. */
  #content(
    method: string,
    p: Record<string, unknown>,
    ok: (r: Record<string, unknown>) => Reply,
    fail: (status: number, code: number, message: string, data?: unknown) => Reply,
    cache: Record<string, unknown>,
  ): Reply {
    if (method === 'subscriptions/listen') {
      const filter = p.notifications as { resourceSubscriptions?: unknown } | undefined;
      if (!filter || typeof filter !== 'object' || Array.isArray(filter)) return fail(400, -32602, 'Invalid params: params.notifications (object) is required');
      const asked = Array.isArray(filter.resourceSubscriptions) ? filter.resourceSubscriptions : [];
      // Honoured: the resources that exist (the lists never change here, so no list_changed).
      return { status: 200, body: {}, listen: asked.filter((u): u is string => typeof u === 'string' && this.content.exists(u)) };
    }
    const r = this.content.dispatch(method, p, STATELESS_REVISION);
    if (!r) return fail(404, -32601, `Method not found: ${method}`);
    if ('error' in r) return fail(200, r.error.code, r.error.message, r.error.data);
    return ok(method.endsWith('/list') ? { ...r.result, ...cache } : r.result);
  }

  /**
   * A subscriptions/listen stream: `notifications/subscriptions/acknowledged`
   * first (what it honours), then `notifications/resources/updated` for those
   * resources, until the client closes it; ended by the server (reset) with
   * its result. Every frame carries the request's id in `_meta`.
   */
  #listen(res: EmuResponse, id: unknown, uris: string[]): void {
    const meta = { [SUBSCRIPTION_ID]: id };
    const out = res.head(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' });
    const send = (m: Record<string, unknown>) => out.write(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', ...m })}\n\n`);
    send({ method: 'notifications/subscriptions/acknowledged', params: { notifications: { resourceSubscriptions: uris }, _meta: meta } });
    const stop = this.content.onUpdate((uri) => {
      if (uris.includes(uri)) send({ method: 'notifications/resources/updated', params: { uri, _meta: meta } });
    });
    const end = () => {
      stop();
      this.#listening.delete(end);
      if (out.writableEnded) return;
      send({ id, result: { resultType: 'complete', _meta: meta } });
      out.end();
    };
    this.#listening.add(end);
    out.on('close', () => {
      stop();
      this.#listening.delete(end);
    });
  }

  /**
   * SEP-2243: the standard headers must be there and match the body; each
   * tool-designated `Mcp-Param-*` header must match its argument (after
   * Base64 decoding); a value present in the body needs its header.
   */
  #headerMismatch(req: EmuRequest, msg: JsonRpcRequestWire): string | undefined {
    const bad = (v: string) => !/^[\x20-\x7e\t]*$/.test(v);
    if (req.header(Protocol.laterVersionHeader) === undefined) return `${Protocol.laterVersionHeader} is missing`;
    const method = req.header('mcp-method');
    if (method === undefined) return 'Mcp-Method is missing';
    if (bad(method) || method !== msg.method) return `Mcp-Method ${JSON.stringify(method)} does not match the body's method ${JSON.stringify(msg.method)}`;
    const p = (msg.params ?? {}) as Record<string, unknown>;
    const field = HEADER_NAMED[msg.method];
    if (field) {
      const raw = req.header('mcp-name');
      if (raw === undefined) return 'Mcp-Name is missing';
      const name = decodeHeader(raw);
      if (name === undefined) return 'Mcp-Name holds invalid characters or a malformed Base64 value';
      if (name !== p[field]) return `Mcp-Name ${JSON.stringify(name)} does not match the body's params.${field}`;
    }
    if (msg.method !== 'tools/call') return undefined;
    const tool = toolsOf(STATELESS_REVISION).find((t) => t.name === p.name);
    const args = (p.arguments ?? {}) as Record<string, unknown>;
    for (const [prop, schema] of Object.entries(tool?.inputSchema.properties ?? {})) {
      const name = (schema as { 'x-mcp-header'?: string })['x-mcp-header'];
      if (!name) continue;
      const raw = req.header(`mcp-param-${name}`);
      const value = args[prop];
      if (value === undefined || value === null) {
        if (raw !== undefined) return `Mcp-Param-${name} is sent but arguments.${prop} is absent`;
        continue;
      }
      if (raw === undefined) return `Mcp-Param-${name} is missing (arguments.${prop} is present)`;
      const decoded = decodeHeader(raw);
      if (decoded === undefined) return `Mcp-Param-${name} holds invalid characters or a malformed Base64 value`;
      const same =
        typeof value === 'number'
          ? decoded.trim() !== '' && Number(decoded) === value
          : typeof value === 'boolean'
            ? decoded === String(value)
            : decoded === value;
      if (!same) return `Mcp-Param-${name} does not match arguments.${prop}`;
    }
    return undefined;
  }

  /**
   * The confirm tool as a multi round-trip request: without an answer it
   * returns `input_required` with an elicitation and a requestState bound to
   * the caller, the question and an expiry; the retry with the answer
   * completes. A request state that fails its check is refused.
   */
  #confirm(
    p: Record<string, unknown>,
    clientId: string,
    caps: Record<string, unknown>,
    ok: (r: Record<string, unknown>) => Reply,
    fail: (status: number, code: number, message: string, data?: unknown) => Reply,
  ): Reply {
    if (!caps.elicitation || typeof caps.elicitation !== 'object') {
      return fail(400, E.missingCapability, 'Missing required client capability: elicitation', { requiredCapabilities: { elicitation: {} } });
    }
    const question = String((p.arguments as { question?: unknown } | undefined)?.question ?? 'Go ahead?');
    const now = this.state.clock.now();
    const bound = `${clientId}\n${question}`;
    if (p.requestState !== undefined) {
      if (typeof p.requestState !== 'string' || !this.#verify(p.requestState, bound, now)) {
        return fail(400, -32602, 'Invalid params: requestState failed verification (tampered, expired or for another request)');
      }
    }
    const answer = (p.inputResponses as Record<string, unknown> | undefined)?.confirm as { action?: unknown; content?: { confirm?: unknown } } | undefined;
    if (p.requestState === undefined || !answer || typeof answer !== 'object') {
      return ok({
        resultType: 'input_required',
        inputRequests: { confirm: { method: 'elicitation/create', params: { mode: 'form', message: question, requestedSchema: CONFIRM_SCHEMA } } },
        requestState: this.#sign(bound, now + REQUEST_STATE_TTL_MS),
      });
    }
    this.state.stats.clientAnswers.push({ method: 'elicitation/create', result: answer });
    const text = answer.action === 'accept' ? `confirmed: ${answer.content?.confirm === true}` : `the user chose ${String(answer.action)}`;
    return ok({ content: [{ type: 'text', text }], isError: false });
  }

  #sign(bound: string, expiresAt: number): string {
    const payload = Buffer.from(JSON.stringify({ exp: expiresAt, n: randomBytes(6).toString('base64url') })).toString('base64url');
    return `${payload}.${this.#mac(payload, bound)}`;
  }

  #verify(token: string, bound: string, now: number): boolean {
    const [payload, mac] = token.split('.');
    if (!payload || !mac) return false;
    const want = Buffer.from(this.#mac(payload, bound));
    const got = Buffer.from(mac);
    if (want.length !== got.length || !timingSafeEqual(want, got)) return false;
    try {
      const exp = (JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { exp?: unknown }).exp;
      return typeof exp === 'number' && exp > now;
    } catch {
      return false;
    }
  }

  #mac(payload: string, bound: string): string {
    return createHmac('sha256', this.#key).update(`${payload}\n${bound}`).digest('base64url');
  }
}

function metaOf(msg: JsonRpcRequestWire): Record<string, unknown> | undefined {
  const m = (msg.params as { _meta?: unknown } | undefined)?._meta;
  return m && typeof m === 'object' && !Array.isArray(m) ? (m as Record<string, unknown>) : undefined;
}

/** A header value as SEP-2243 encodes it: plain visible ASCII, or `=?base64?…?=` (UTF-8); undefined when malformed. */
export function decodeHeader(v: string): string | undefined {
  if (!/^[\x20-\x7e\t]*$/.test(v)) return undefined;
  const m = /^=\?base64\?(.*)\?=$/s.exec(v);
  if (!m) return v;
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(m[1]!) || m[1]!.length % 4 !== 0) return undefined;
  return Buffer.from(m[1]!, 'base64').toString('utf8');
}
