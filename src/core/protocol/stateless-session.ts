/**
 * A session in a stateless revision (2026-07-28: no handshake, `_meta` and
 * the `Mcp-*` headers on every request, a request answered in several rounds
 * when the server needs input) over the shared AuthorizedTransport. A refusal
 * that is not one of the stateless revisions' errors marks a server that
 * needs the handshake (undefined answers: handshake-session.ts takes over).
 */
import { randomUUID } from 'node:crypto';
import { HttpError, LanyardError } from '../errors.js';
import { isStatelessRevision, Protocol, type ProtocolRevision } from '../../shared/constants.js';
import type { JsonRpcRequestWire, JsonRpcResponseWire } from '../../shared/protocol.js';
import type { AuthorizedTransport } from './authorized-transport.js';
import { refusalBody } from './jsonrpc.js';
import { keepValidTools, paramHeaders, standardHeaders, statelessError, withRequestMeta, type ClientDescription } from './stateless.js';
import { ToolCache, type Listing, type Tool } from './stateless-tools.js';

/** Rounds of one stateless request that the server answers with input_required. */
export const MAX_INPUT_ROUNDS = 8;
/** Pages of tools/list read to find a tool's input schema before calling it. */
const MAX_TOOL_PAGES = 20;
/** The requests a server may answer with input_required (multi round-trip requests, SEP-2322). */
const INPUT_METHODS = new Set(['tools/call', 'prompts/get', 'resources/read']);
/** Marks a server that needs the handshake. */
const HANDSHAKE = Symbol('handshake');

export class StatelessSession {
  /** A stateless server answered (a refusal is now an error, not a sign of the handshake). */
  #known = false;
  /** The tools' schemas (for the `Mcp-Param-*` headers), kept for the server's ttlMs. */
  readonly #tools: ToolCache;

  /** `client`: who the requests speak for (`_meta` clientInfo and capabilities): Lanyard, or the bridge's host. */
  constructor(
    readonly transport: AuthorizedTransport,
    public client: ClientDescription,
  ) {
    this.#tools = new ToolCache(transport.deps.clock);
  }

  /** Forgets the tools kept: the server said its list changed (`notifications/tools/list_changed`). */
  forgetTools(): void {
    this.#tools.forget();
  }

  get #o() {
    return this.transport.o;
  }

  /**
   * One request, or undefined when the server needs the handshake. A tool
   * call first reads the tool's input schema (tools/list) for the
   * `Mcp-Param-*` headers; an input_required answer is met (the user answers
   * elicitations) and the request sent again with the answers and the
   * server's request state, up to MAX_INPUT_ROUNDS. `id`: the request's id
   * (a subscriptions/listen stream's, which the server names on its
   * messages); else a random one.
   */
  async request(method: string, params?: unknown, signal?: AbortSignal, id?: string): Promise<JsonRpcResponseWire | undefined> {
    this.transport.state.revision = this.#o.revision ?? Protocol.statelessRevisions[0];
    let extra: Record<string, string> = {};
    if (method === 'tools/call') {
      const p = (params ?? {}) as { name?: unknown; arguments?: unknown };
      const tool = await this.#findTool(p.name, signal);
      if (tool === HANDSHAKE) return undefined;
      extra = paramHeaders(tool?.inputSchema, p.arguments);
    }
    let next = params;
    for (let round = 0; ; round++) {
      const r = await this.#post(method, next, extra, signal, undefined, round ? undefined : id);
      if (r === HANDSHAKE) return undefined;
      // A server that answers server/discover without the versions it speaks took the request under an older revision's rules.
      if (method === 'server/discover' && !Array.isArray((r.result as { supportedVersions?: unknown } | undefined)?.supportedVersions)) {
        if (this.#o.revision) throw new LanyardError('protocol_error', `${this.#o.serverUrl} answered server/discover without supportedVersions`);
        return undefined;
      }
      if (method === 'tools/list' && r.result) this.#tools.keep(r.result);
      if (method === 'tools/list' && r.result)
        return { ...r, result: keepValidTools(r.result, (m) => this.transport.deps.notify?.(m)) as Record<string, unknown> };
      const result = r.result as { resultType?: unknown; inputRequests?: unknown; requestState?: unknown } | undefined;
      if (result?.resultType !== 'input_required' || !INPUT_METHODS.has(method)) return r;
      if (round + 1 >= MAX_INPUT_ROUNDS) {
        throw new LanyardError('protocol_error', `${this.#o.serverUrl} still asked for input after ${MAX_INPUT_ROUNDS} rounds of ${method}`);
      }
      // Each retry starts from the original params: answers and state belong to this round only.
      const base = params && typeof params === 'object' ? (params as Record<string, unknown>) : {};
      const inputResponses = await this.#inputResponses(result.inputRequests, signal);
      next = {
        ...base,
        ...(inputResponses ? { inputResponses } : {}),
        ...(typeof result.requestState === 'string' ? { requestState: result.requestState } : {}),
      };
    }
  }

  /**
   * One request of a client that speaks a stateless revision itself (the
   * bridge's host): its params, `_meta` included, go out as they are, with
   * the version header its `_meta` names, the `Mcp-*` headers and the token;
   * the answer comes back as the server gave it (an error of the revision, an
   * input_required result: the client's to handle). Undefined when the
   * server needs the handshake. The client's own tools/list answers are kept
   * for their ttlMs, as a lookup's are.
   */
  async passThrough(method: string, params: unknown, signal?: AbortSignal): Promise<JsonRpcResponseWire | undefined> {
    const meta = (params as { _meta?: Record<string, unknown> } | undefined)?._meta;
    // What the lookup of a tool's schema says about the client: the same as its request (no progress token, no log level).
    const own = { _meta: Object.fromEntries(Object.values(Protocol.meta).flatMap((k) => (meta?.[k] === undefined ? [] : [[k, meta[k]]]))) };
    // The revision a sign-in on the way asks the server's metadata under.
    if (isStatelessRevision(own._meta[Protocol.meta.protocolVersion]))
      this.transport.state.revision = own._meta[Protocol.meta.protocolVersion] as ProtocolRevision;
    let extra: Record<string, string> = {};
    if (method === 'tools/call') {
      const p = (params ?? {}) as { name?: unknown; arguments?: unknown };
      const found = await this.#findTool(p.name, signal, own);
      if (found === HANDSHAKE) return undefined;
      extra = paramHeaders(found?.inputSchema, p.arguments);
    }
    const r = await this.#post(method, params, extra, signal, own);
    if (r === HANDSHAKE) return undefined;
    // A page the client asked for: kept as a lookup's would be; never an answer to a retried round (the revision's caching rules).
    const p = (params ?? {}) as { inputResponses?: unknown; requestState?: unknown };
    const retried = p.inputResponses !== undefined || p.requestState !== undefined;
    if (method === 'tools/list' && r.result && !retried && (r.result as { resultType?: unknown }).resultType !== 'input_required') this.#tools.keep(r.result);
    return r;
  }

  /**
   * The tool's definition: kept from a tools/list answer while fresh, else
   * read (following pages; calls that need it meanwhile share the lookup);
   * undefined when not listed; `asIs`: a client's own request (passThrough).
   */
  async #findTool(name: unknown, signal?: AbortSignal, asIs?: Record<string, unknown>): Promise<Tool | undefined | typeof HANDSHAKE> {
    const found = await this.#tools.find(name, (want, own) => this.#listTools(want, own, asIs), signal);
    return found ? found.tool : HANDSHAKE;
  }

  /** The server's tools, the pages of tools/list read (and kept) until `want` is listed, up to MAX_TOOL_PAGES; undefined: the server needs the handshake. */
  async #listTools(want: unknown, signal: AbortSignal, asIs?: Record<string, unknown>): Promise<Listing> {
    const all = new Map<string, Tool>();
    let cursor: string | undefined;
    for (let page = 0; page < MAX_TOOL_PAGES; page++) {
      const r = await this.#post('tools/list', cursor === undefined ? asIs : { ...asIs, cursor }, {}, signal, asIs);
      if (r === HANDSHAKE) return undefined;
      for (const [n, t] of this.#tools.keep(r.result)) if (!all.has(n)) all.set(n, t);
      const next = (r.result as { nextCursor?: unknown } | undefined)?.nextCursor;
      if ((typeof want === 'string' && all.has(want)) || typeof next !== 'string' || !next) break;
      cursor = next;
    }
    return all;
  }

  /** The client's answers to an input_required result's requests, by key (a request Lanyard cannot answer is left out). */
  async #inputResponses(requests: unknown, signal?: AbortSignal): Promise<Record<string, unknown> | undefined> {
    if (!requests || typeof requests !== 'object') return undefined;
    const { deps } = this.transport;
    const out: Record<string, unknown> = {};
    for (const [key, req] of Object.entries(requests as Record<string, unknown>)) {
      const r = (req ?? {}) as { method?: unknown; params?: unknown };
      const answer =
        typeof r.method !== 'string'
          ? undefined
          : deps.answerInput
            ? await deps.answerInput(r.method, r.params, signal)
            : await this.transport.inputAnswer(r.method, r.params);
      if (answer !== undefined) out[key] = answer;
    }
    return out;
  }

  /**
   * One POST of a stateless revision, signing in on the way. A refusal with
   * one of the stateless revisions' errors shows a stateless server: an
   * unsupported version is retried once with a stateless revision the server
   * lists; any other refusal before that shows a server that needs the
   * handshake (HANDSHAKE). `asIs` (a client's own request, passThrough):
   * the params go out untouched, with the version its `_meta` names in the
   * header, and every refusal of the revision is the client's to handle.
   */
  async #post(
    method: string,
    params: unknown,
    extra: Record<string, string>,
    signal?: AbortSignal,
    asIs?: { _meta?: Record<string, unknown> },
    id?: string,
  ): Promise<JsonRpcResponseWire | typeof HANDSHAKE> {
    const { transport } = this;
    const withSignal = transport.stateWith(signal);
    const version = asIs?._meta?.[Protocol.meta.protocolVersion];
    // The client's version goes into a header only as visible ASCII (a CR/LF in it must not start a header of its own).
    const header = typeof version === 'string' && /^[\x21-\x7e]{1,64}$/.test(version) ? (version as ProtocolRevision) : undefined;
    const stateNow = asIs ? () => ({ ...withSignal(), revision: header }) : withSignal;
    for (let retried = false; ; retried = true) {
      const revision = transport.state.revision!;
      const message: JsonRpcRequestWire = {
        jsonrpc: '2.0',
        id: id ?? randomUUID(),
        method,
        params: asIs ? params : withRequestMeta(params, revision, this.client),
      };
      const res = await transport.post(message, { ...standardHeaders(method, params), ...extra }, stateNow);
      if (res.status >= 200 && res.status <= 299) {
        this.#known = true;
        return transport.answerOf(res, message.id!, stateNow);
      }
      const parsed = await refusalBody(res);
      const err = statelessError(res.status, parsed);
      if (!err) {
        if (this.#known || this.#o.revision) throw new HttpError(res.status, 'POST', this.#o.serverUrl, parsed, res.headers);
        return HANDSHAKE;
      }
      this.#known = true;
      if (asIs || err.code !== Protocol.statelessErrors.unsupportedVersion) return parsed as JsonRpcResponseWire;
      const data = (err.data ?? {}) as { supported?: unknown };
      const supported = Array.isArray(data.supported) ? data.supported.filter((v): v is string => typeof v === 'string') : [];
      const choice = Protocol.statelessRevisions.find((v) => supported.includes(v) && (!this.#o.revision || v === this.#o.revision));
      if (choice && !retried) {
        transport.state.revision = choice;
        continue;
      }
      // A server that speaks a handshake revision Lanyard speaks too (and nothing stateless in common).
      if (!choice && !this.#o.revision && Protocol.revisions.some((v) => supported.includes(v))) return HANDSHAKE;
      throw new LanyardError(
        'protocol_error',
        `${this.#o.serverUrl} refused protocol version ${revision} (it speaks ${supported.join(', ') || 'none it named'}; Lanyard speaks ${[...Protocol.statelessRevisions, ...Protocol.revisions].join(', ')})`,
      );
    }
  }
}
