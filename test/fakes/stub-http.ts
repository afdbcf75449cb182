/**
 * A stub HTTP server on 127.0.0.1 for unit tests of core request functions:
 * register expected requests; a stub not used up by the end of the test fails
 * the test (checked automatically after each test that started a server; call
 * verify() to check earlier).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { beforeEach } from 'vitest';

/** Servers started during the running test, verified when it finishes. */
const startedInTest: StubHttp[] = [];

// Every test file that imports StubHttp gets this hook: after the test (and
// its afterEach hooks, which usually close the server) every server it
// started must have served all its stubs. A test that already failed is not
// piled on: its own failure says more.
beforeEach((ctx) => {
  startedInTest.length = 0;
  ctx.onTestFinished(({ task }) => {
    const servers = startedInTest.splice(0);
    if (task.result?.state === 'fail') return;
    for (const s of servers) s.verify();
  });
});

export interface StubReply {
  status?: number;
  headers?: Record<string, string>;
  body?: string | Buffer | object;
  /** Destroy the connection without answering (a connection reset). */
  reset?: boolean;
  /** Send the headers (full content-length) and half of the body, then cut the connection. */
  truncate?: boolean;
  /** Wait this long (real ms) before sending headers. */
  delayMs?: number;
  /** Send headers, then wait this long (real ms) before the body. */
  bodyDelayMs?: number;
}

export interface RecordedRequest {
  method: string;
  path: string;
  url: URL;
  headers: IncomingMessage['headers'];
  body: string;
}

type Responder = StubReply | ((req: RecordedRequest) => StubReply | Promise<StubReply>);

export class StubHttp {
  readonly requests: RecordedRequest[] = [];
  readonly #stubs: Array<{ method: string; path: string; reply: Responder; times: number; used: number }> = [];
  #server = createServer((req, res) => void this.#handle(req, res));
  url = '';

  static async start(): Promise<StubHttp> {
    const s = new StubHttp();
    await new Promise<void>((r) => s.#server.listen(0, '127.0.0.1', () => r()));
    s.url = `http://127.0.0.1:${(s.#server.address() as AddressInfo).port}`;
    startedInTest.push(s);
    return s;
  }

  /** Answers `method path` (path without query) `times` times (default once). */
  on(method: string, path: string, reply: Responder, times = 1): this {
    this.#stubs.push({ method, path, reply, times, used: 0 });
    return this;
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const url = new URL(req.url ?? '/', this.url);
    const rec: RecordedRequest = { method: req.method ?? 'GET', path: url.pathname, url, headers: req.headers, body: Buffer.concat(chunks).toString() };
    this.requests.push(rec);
    const stub = this.#stubs.find((s) => s.method === rec.method && s.path === rec.path && s.used < s.times);
    if (!stub) {
      res.writeHead(599, { 'content-type': 'text/plain' }).end(`no stub for ${rec.method} ${rec.path}`);
      return;
    }
    stub.used++;
    const r = typeof stub.reply === 'function' ? await stub.reply(rec) : stub.reply;
    if (r.reset) return void req.socket.destroy();
    if (r.delayMs) await new Promise((ok) => setTimeout(ok, r.delayMs));
    const body = Buffer.from(r.body === undefined ? '' : typeof r.body === 'string' || Buffer.isBuffer(r.body) ? r.body : JSON.stringify(r.body));
    const headers = { ...(typeof r.body === 'object' && !Buffer.isBuffer(r.body) ? { 'content-type': 'application/json' } : {}), ...r.headers };
    if (r.truncate) {
      res.writeHead(r.status ?? 200, { ...headers, 'content-length': String(body.length) });
      res.write(body.subarray(0, Math.floor(body.length / 2)), () => setTimeout(() => req.socket.destroy(), 10));
      return;
    }
    if (r.bodyDelayMs) {
      res.writeHead(r.status ?? 200, { ...headers, 'content-length': String(body.length) });
      res.flushHeaders();
      await new Promise((ok) => setTimeout(ok, r.bodyDelayMs));
      if (!res.destroyed) res.end(body);
      return;
    }
    res.writeHead(r.status ?? 200, headers).end(body);
  }

  /** Throws when a registered stub was not used up. */
  verify(): void {
    const unused = this.#stubs.filter((s) => s.used < s.times);
    if (unused.length) throw new Error(`unused stubs: ${unused.map((s) => `${s.method} ${s.path}`).join(', ')}`);
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((r) => this.#server.close(() => r()));
  }
}
