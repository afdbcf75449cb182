/**
 * A small router over node:http for the emulator: method + path patterns with
 * `:params`, middleware, and request/response helpers. Parameters of OAuth
 * endpoints may come from the query, a form body or a JSON body: `params()`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

export interface EmuRequest {
  readonly raw: IncomingMessage;
  readonly method: string;
  readonly url: URL;
  readonly path: string;
  readonly query: URLSearchParams;
  params: Record<string, string>;
  readonly headers: IncomingMessage['headers'];
  /** Remote IP (for per-IP buckets). */
  readonly ip: string;
  /** Whole body as bytes (buffered once, limit 64 MiB or the first caller's `limit`: over it, HttpError 413). Don't call after streaming raw. */
  bytes(limit?: number): Promise<Buffer>;
  /** The body when a handler has read it whole (for the request journal); undefined otherwise. */
  bodyIfRead(): Buffer | undefined;
  text(limit?: number): Promise<string>;
  json<T = unknown>(): Promise<T>;
  /** Form (x-www-form-urlencoded) body fields. */
  form(): Promise<URLSearchParams>;
  /** Query, then form or JSON body fields, merged (body wins). */
  params_(): Promise<Record<string, string>>;
  header(name: string): string | undefined;
  /** Per-request scratch space for middleware (e.g. the authenticated caller). */
  locals: Record<string, unknown>;
}

export interface EmuResponse {
  readonly raw: ServerResponse;
  /** Headers added to whatever is sent (middleware: rate-limit headers, Date). */
  extraHeaders: Record<string, string>;
  json(status: number, body: unknown, headers?: Record<string, string>): void;
  /** Sends JSON text already serialised (what `json` sends after `JSON.stringify`). */
  jsonText(status: number, text: string, headers?: Record<string, string>): void;
  text(status: number, body: string, headers?: Record<string, string>): void;
  html(status: number, body: string, headers?: Record<string, string>): void;
  redirect(status: number, location: string, headers?: Record<string, string>): void;
  empty(status: number, headers?: Record<string, string>): void;
  /** Writes status and headers (merged with extraHeaders) for streaming bodies. */
  head(status: number, headers?: Record<string, string>): ServerResponse;
  readonly sent: boolean;
}

export type Handler = (req: EmuRequest, res: EmuResponse) => void | Promise<void>;

/** An error a handler throws to answer with a status in its service's error shape (bad body, too large, ...). */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * How a service writes an error it did not write itself (no such route, a
 * wrong method, an unreadable body): the body and extra headers of its real
 * error shape. Chosen by the longest matching path prefix.
 */
export type ErrorShape = (
  status: number,
  message: string,
  req: EmuRequest,
) => {
  body: unknown;
  headers?: Record<string, string> /** The service's own status for it (a gateway answers an unknown method 404, not 405). */;
  status?: number;
};

const defaultShape: ErrorShape = (_status, message) => ({ body: { message } });

const REASON: Record<number, string> = {
  400: 'Bad Request',
  404: 'Not Found',
  405: 'Method Not Allowed',
  413: 'Payload Too Large',
  500: 'Internal Server Error',
};
/** Middleware: call next() to continue; or answer and don't. */
export type Middleware = (req: EmuRequest, res: EmuResponse, next: () => Promise<void>) => void | Promise<void>;

interface Route {
  /** The service that registered it. */
  owner: string;
  method: string;
  pattern: RegExp;
  keys: string[];
  handler: Handler;
  source: string;
}

const MAX_BODY = 64 * 1024 * 1024;

/** What the router works out once per path: the routes matching it, in order, and the middleware over it. */
interface PathPlan {
  routes: Route[];
  chain: Middleware[];
}

/** Paths whose plans are kept (then the cache starts again: a bound however many distinct paths arrive). */
const PLAN_CACHE = 2048;

export class Router {
  readonly #routes: Route[] = [];
  readonly #middleware: Array<{ prefix: string; fn: Middleware }> = [];
  readonly #shapes: Array<{ prefix: string; shape: ErrorShape; owner: string }> = [];
  /** Per path recently asked for: the routes whose pattern matches it (in order) and the middleware over it. */
  readonly #byPath = new Map<string, PathPlan>();
  #owner = 'emulator';

  /** The routes matching a path and the middleware chain over it, worked out once per path (a bounded cache). */
  #plan(path: string): PathPlan {
    let plan = this.#byPath.get(path);
    if (!plan) {
      plan = {
        routes: this.#routes.filter((r) => r.pattern.test(path)),
        chain: this.#middleware.filter((m) => !m.prefix || underPrefix(path, m.prefix)).map((m) => m.fn),
      };
      if (this.#byPath.size >= PLAN_CACHE) this.#byPath.clear();
      this.#byPath.set(path, plan);
    }
    return plan;
  }

  /** Names the service whose routes and error shapes are registered next. */
  owner(name: string): void {
    this.#owner = name;
  }

  /** The service that owns a path: the first route matching it, else the longest error-shape prefix. */
  serviceOf(path: string): string {
    const r = this.#plan(path).routes[0];
    if (r) return r.owner;
    return this.#shapeOf(path)?.owner ?? 'emulator';
  }

  #shapeOf(path: string): { prefix: string; shape: ErrorShape; owner: string } | undefined {
    let best: { prefix: string; shape: ErrorShape; owner: string } | undefined;
    for (const s of this.#shapes) {
      const hit = s.prefix.startsWith('re:') ? new RegExp(s.prefix.slice(3), 'i').test(path) : underPrefix(path, s.prefix);
      if (hit && (!best || s.prefix.length > best.prefix.length)) best = s;
    }
    return best;
  }

  /** `pattern`: `/api/v3/users/:login`; `*` at the end matches the rest (as params.rest). */
  route(method: string, pattern: string, handler: Handler): void {
    const keys: string[] = [];
    const re = pattern
      .split('/')
      .map((seg) => {
        if (seg === '*') {
          keys.push('rest');
          return '(.*)';
        }
        return seg.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, (_, k: string) => {
          keys.push(k);
          return '([^/]+)';
        });
      })
      .join('/');
    this.#byPath.clear();
    this.#routes.push({
      owner: this.#owner,
      method: method.toUpperCase(),
      pattern: new RegExp(`^${re}/?$`),
      keys,
      handler,
      source: `${method.toUpperCase()} ${pattern}`,
    });
  }
  get(p: string, h: Handler): void {
    this.route('GET', p, h);
  }
  post(p: string, h: Handler): void {
    this.route('POST', p, h);
  }
  put(p: string, h: Handler): void {
    this.route('PUT', p, h);
  }
  delete(p: string, h: Handler): void {
    this.route('DELETE', p, h);
  }

  /** Middleware for paths under `prefix` ('' = all), in registration order. */
  use(prefix: string, fn: Middleware): void {
    this.#byPath.clear();
    this.#middleware.push({ prefix, fn });
  }

  /** The error shape of paths under `prefix` (a path prefix, or a RegExp source tested against the path). */
  errorShape(prefix: string | RegExp, shape: ErrorShape): void {
    this.#shapes.push({ prefix: typeof prefix === 'string' ? prefix : `re:${prefix.source}`, shape, owner: this.#owner });
  }

  /**
   * Answers an error in the shape of the service owning the path. `allow`: the
   * methods the path serves, sent as `Allow` when the answer is a 405 (RFC 9110
   * §15.5.6; a service may answer an unserved method otherwise, e.g. 404).
   */
  sendError(req: EmuRequest, res: EmuResponse, status: number, message = REASON[status] ?? 'Error', allow?: string): void {
    if (res.sent) {
      res.raw.destroy();
      return;
    }
    const shaped = (this.#shapeOf(req.path)?.shape ?? defaultShape)(status, message, req);
    const sent = shaped.status ?? status;
    res.json(sent, shaped.body, sent === 405 && allow ? { allow, ...shaped.headers } : shaped.headers);
  }

  routes(): string[] {
    return this.#routes.map((r) => r.source);
  }

  /**
   * Answers one request. Never rejects: an HttpError thrown anywhere becomes
   * that status in the owning service's error shape; anything else a 500
   * (reported through `onCrash`), so one bad request never stops the server.
   */
  async handle(
    rawReq: IncomingMessage,
    rawRes: ServerResponse,
    extraHeaders: () => Record<string, string>,
    onCrash: (err: unknown) => void = () => undefined,
  ): Promise<void> {
    const res = createResponse(rawRes, extraHeaders());
    let req: EmuRequest;
    try {
      req = createRequest(rawReq);
    } catch {
      // A request target no URL parser accepts.
      res.json(400, { message: 'Bad Request' });
      return;
    }
    const plan = this.#plan(req.path);
    const chain = plan.chain;
    let i = 0;
    // Not async: a middleware's promise is handed on as it is (a promise per middleware, not three).
    const next = (): Promise<void> => {
      const m = chain[i++];
      if (!m) return this.#dispatch(req, res, plan.routes);
      try {
        return Promise.resolve(m(req, res, next));
      } catch (err) {
        return Promise.reject(err);
      }
    };
    try {
      await next();
    } catch (err) {
      if (err instanceof HttpError) return this.sendError(req, res, err.status, err.message);
      onCrash(err);
      this.sendError(req, res, 500, 'Internal emulator error');
    }
  }

  async #dispatch(req: EmuRequest, res: EmuResponse, routes: readonly Route[]): Promise<void> {
    const pathMatched = routes.length > 0;
    for (const r of routes) {
      const m = r.pattern.exec(req.path);
      if (!m) continue;
      if (r.method !== req.method && !(r.method === 'GET' && req.method === 'HEAD')) continue;
      req.params = {};
      r.keys.forEach((k, idx) => {
        try {
          req.params[k] = decodeURIComponent(m[idx + 1]!);
        } catch {
          req.params[k] = m[idx + 1]!;
        }
      });
      if (Object.values(req.params).some(unsafeParam)) {
        req.raw.resume();
        return this.sendError(req, res, 400, 'Invalid path parameter');
      }
      await r.handler(req, res);
      return;
    }
    if (!pathMatched) return this.sendError(req, res, 404);
    this.sendError(req, res, 405, undefined, allowed(routes));
  }
}

/** The methods the routes of a path serve, as an `Allow` value (HEAD wherever GET). */
function allowed(routes: readonly Route[]): string {
  const methods = new Set<string>();
  for (const r of routes) {
    methods.add(r.method);
    if (r.method === 'GET') methods.add('HEAD');
  }
  return [...methods].join(', ');
}

/**
 * A decoded path parameter that names a parent or current directory, holds a
 * backslash or NUL: never a name of anything the emulator serves, and the way
 * out of a data directory (`%2F..%2F`).
 */
export function unsafeParam(v: string): boolean {
  return /(^|\/)\.\.?(\/|$)/.test(v) || /[\\\0]/.test(v);
}

function underPrefix(path: string, prefix: string): boolean {
  return !prefix || path === prefix || path.startsWith(prefix.endsWith('/') ? prefix : prefix + '/');
}

/** The query's fields, then a form's or a JSON object's (strings; arrays joined by spaces), the body's winning. */
async function mergedParams(req: EmuRequest): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const [k, v] of req.query) out[k] = v;
  const ct = (req.raw.headers['content-type'] ?? '').toLowerCase();
  if (req.method === 'GET' || req.method === 'HEAD') return out;
  const text = (await req.bytes()).toString('utf8');
  if (!text) return out;
  if (ct.includes('json')) {
    try {
      const j = JSON.parse(text) as Record<string, unknown>;
      if (j && typeof j === 'object')
        for (const [k, v] of Object.entries(j))
          if (v !== null && v !== undefined) out[k] = typeof v === 'string' ? v : Array.isArray(v) ? v.join(' ') : String(v);
    } catch {
      /* malformed JSON: no body params */
    }
  } else {
    for (const [k, v] of new URLSearchParams(text)) out[k] = v;
  }
  return out;
}

/** The request helpers; the body is read once, whole (at most MAX_BODY: then an HttpError 413), and kept for the journal. */
class Request implements EmuRequest {
  readonly method: string;
  #url: URL | undefined;
  readonly path: string;
  params: Record<string, string> = {};
  readonly headers: IncomingMessage['headers'];
  readonly ip: string;
  locals: Record<string, unknown> = {};
  #bodyP: Promise<Buffer> | undefined;
  #body: Buffer | undefined;

  constructor(readonly raw: IncomingMessage) {
    const path = plainPath(raw.url ?? '/');
    // A plain target is its own path; any other is parsed now (a target no URL parser accepts throws here).
    if (path === undefined) this.#url = new URL(raw.url ?? '/', BASE);
    this.path = path ?? this.#url!.pathname;
    this.method = (raw.method ?? 'GET').toUpperCase();
    this.headers = raw.headers;
    this.ip = raw.socket.remoteAddress ?? '127.0.0.1';
  }

  get url(): URL {
    this.#url ??= new URL(this.raw.url ?? '/', BASE);
    return this.#url;
  }

  get query(): URLSearchParams {
    return this.url.searchParams;
  }

  bytes(limit = MAX_BODY): Promise<Buffer> {
    this.#bodyP ??= new Promise<Buffer>((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const raw = this.raw;
      raw.on('data', (c: Buffer) => {
        size += c.length;
        // Past the limit: refused, and the rest is read and dropped, so the client (still sending) gets the answer.
        if (size > limit) {
          reject(new HttpError(413, 'Request body too large'));
          chunks.length = 0;
        } else chunks.push(c);
      });
      raw.on('end', () => resolve((this.#body = Buffer.concat(chunks))));
      raw.on('error', reject);
    });
    return this.#bodyP;
  }

  bodyIfRead(): Buffer | undefined {
    return this.#body;
  }

  async text(limit?: number): Promise<string> {
    return (await this.bytes(limit)).toString('utf8');
  }

  async json<T = unknown>(): Promise<T> {
    const text = await this.text();
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new HttpError(400, 'Problems parsing JSON');
    }
  }

  async form(): Promise<URLSearchParams> {
    return new URLSearchParams(await this.text());
  }

  header(name: string): string | undefined {
    const v = this.raw.headers[name.toLowerCase()];
    return Array.isArray(v) ? v[0] : v;
  }

  params_(): Promise<Record<string, string>> {
    return mergedParams(this);
  }
}

const BASE = 'http://emulator.invalid';
/** A path the URL parser gives back unchanged: no escapes, no dot segments, nothing it would encode. */
const PLAIN_PATH = /^\/[A-Za-z0-9\-._~!$&'()*+,;=:@/]*$/;
const DOT_SEGMENT = /\/\.\.?(?:\/|$)/;

/** The path of an origin-form request target, when it needs no parsing; undefined otherwise. */
function plainPath(target: string): string | undefined {
  if (target.includes('#') || target.startsWith('//')) return undefined;
  const q = target.indexOf('?');
  const path = q < 0 ? target : target.slice(0, q);
  return PLAIN_PATH.test(path) && !DOT_SEGMENT.test(path) ? path : undefined;
}

function createRequest(raw: IncomingMessage): EmuRequest {
  return new Request(raw);
}

const HTML_HEADERS = {
  'x-frame-options': 'DENY',
  'content-security-policy': "default-src 'self'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; form-action *",
};

/**
 * The response helpers. `extraHeaders` is the object the headers are sent
 * from (it is written into, not copied: one object per answer).
 */
class Response implements EmuResponse {
  constructor(
    readonly raw: ServerResponse,
    public extraHeaders: Record<string, string>,
  ) {}

  get sent(): boolean {
    return this.raw.headersSent;
  }

  head(status: number, headers?: Record<string, string>): ServerResponse {
    const h = this.extraHeaders;
    if (headers) for (const k in headers) h[k] = headers[k]!;
    // An event stream never ends by itself: its type is set where the server can read it when it stops and ends the stream (server.ts).
    if (h['content-type']?.startsWith('text/event-stream')) this.raw.setHeader('content-type', h['content-type']);
    this.raw.writeHead(status, h);
    return this.raw;
  }

  json(status: number, body: unknown, headers?: Record<string, string>): void {
    this.jsonText(status, JSON.stringify(body), headers);
  }

  jsonText(status: number, text: string, headers?: Record<string, string>): void {
    this.#body(status, 'application/json; charset=utf-8', text, headers);
  }

  text(status: number, body: string, headers?: Record<string, string>): void {
    this.#body(status, 'text/plain; charset=utf-8', body, headers);
  }

  html(status: number, body: string, headers?: Record<string, string>): void {
    this.#body(status, 'text/html; charset=utf-8', body, headers ? { ...HTML_HEADERS, ...headers } : HTML_HEADERS);
  }

  redirect(status: number, location: string, headers?: Record<string, string>): void {
    this.extraHeaders.location = location;
    this.extraHeaders['content-length'] = '0';
    this.head(status, headers).end();
  }

  empty(status: number, headers?: Record<string, string>): void {
    this.head(status, headers).end();
  }

  /** A whole body with its type and length (`headers` win over both). */
  #body(status: number, type: string, body: string, headers: Record<string, string> | undefined): void {
    this.extraHeaders['content-type'] = type;
    this.extraHeaders['content-length'] = String(Buffer.byteLength(body));
    this.head(status, headers).end(body);
  }
}

function createResponse(raw: ServerResponse, extra: Record<string, string>): EmuResponse {
  return new Response(raw, extra);
}

/** Escapes text for HTML pages. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}
