/**
 * The token on a request's resumption GET and on the session's GET stream, over real HTTP: a 403
 * `insufficient_scope` on a resumption (GET with Last-Event-ID) steps up as a POST does (the scope named
 * added, MAX_STEP_UP per request, then exit 4); a 401 or 403 of another origin a redirect led a protocol
 * request to (sent there without the token) is that origin's answer — an `http_error`, no refresh, no
 * step-up toward it — and stops the session's stream with one line instead of asking again.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AuthRequiredError, HttpError } from '../../../../src/core/errors.js';
import { HttpClient } from '../../../../src/core/http/client.js';
import { MAX_STEP_UP } from '../../../../src/core/protocol/authorized-transport.js';
import { generateDpopKey } from '../../../../src/core/protocol/dpop.js';
import { AuthorizedSession, type ProtocolSessionDeps } from '../../../../src/core/protocol/session.js';
import { ProtocolCredentials } from '../../../../src/core/protocol/store.js';
import { FakeClock } from '../../../fakes/clock.js';
import { MemoryCredentialStore } from '../../../fakes/credential-store.js';

interface Seen {
  readonly method: string;
  readonly path: string;
  readonly auth?: string;
  readonly last?: string;
  readonly rpc?: string;
  /** The `nonce` of the DPoP proof sent, if any. */
  readonly nonce?: string;
  readonly body: string;
}
type Handler = (req: IncomingMessage, res: ServerResponse, seen: Seen) => void;

const servers: Server[] = [];
let http: HttpClient;
let clock: FakeClock;

/** A server on 127.0.0.1 that records what it is sent; a second one is another origin. */
async function serve(handle: Handler): Promise<{ url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const rpc = body.startsWith('{') ? (JSON.parse(body) as { method?: string }).method : undefined;
      const proof = req.headers.dpop as string | undefined;
      const nonce = proof ? (JSON.parse(Buffer.from(proof.split('.')[1]!, 'base64url').toString()) as { nonce?: string }).nonce : undefined;
      const s = {
        method: req.method!,
        path: req.url!,
        auth: req.headers.authorization,
        last: req.headers['last-event-id'] as string | undefined,
        rpc,
        nonce,
        body,
      };
      seen.push(s);
      handle(req, res, s);
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

beforeEach(() => {
  clock = new FakeClock(Date.UTC(2026, 10, 22, 12));
  http = new HttpClient({ clock, userAgent: 'test' });
});
afterEach(async () => {
  await http.close();
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) =>
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));

/**
 * A protocol server of 2025-06-18 that is its own authorization server (client credentials): a tools/call
 * answers with an event stream the server closes after a priming event; `get` answers the GETs (the
 * session's stream without Last-Event-ID, the resumptions with it); `post` may answer a POST itself.
 */
async function protocolServer(get: Handler, post?: (res: ServerResponse, s: Seen) => boolean) {
  let callId: unknown;
  const srv = await serve((req, res, s) => {
    if (s.path === '/.well-known/oauth-authorization-server') {
      return json(res, 200, {
        issuer: srv.url,
        authorization_endpoint: `${srv.url}/a`,
        token_endpoint: `${srv.url}/token`,
        code_challenge_methods_supported: ['S256'],
      });
    }
    if (s.path === '/token') {
      const n = srv.seen.filter((x) => x.path === '/token').length;
      const scope = new URLSearchParams(s.body).get('scope') ?? '';
      return json(res, 200, { access_token: `wide-${n}`, token_type: 'Bearer', expires_in: 600, scope });
    }
    if (s.method === 'GET') return get(req, res, s);
    if (s.method === 'DELETE') return void res.writeHead(200).end();
    if (post?.(res, s)) return;
    const m = JSON.parse(s.body) as { id?: unknown; method: string };
    if (m.method === 'initialize') {
      const result = { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'scoped', version: '1' } };
      return json(res, 200, { jsonrpc: '2.0', id: m.id, result }, { 'mcp-session-id': 's1' });
    }
    if (m.id === undefined) return void res.writeHead(202).end();
    callId = m.id;
    res.writeHead(200, { 'content-type': 'text/event-stream' }).end('id: 0\nretry: 10\ndata: \n\n');
  });
  const answer = () => `id: 1\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: callId, result: { content: [] } })}\n\n`;
  return { ...srv, answer };
}

/** A session signed in with client credentials for the scope "a" (token "narrow"; `dpop`: bound to a DPoP key). */
async function signedIn(url: string, extra: Partial<ProtocolSessionDeps> = {}, dpop = false): Promise<AuthorizedSession> {
  const credentials = new ProtocolCredentials(new MemoryCredentialStore());
  await credentials.saveClient(url, { clientId: 'svc', clientSecret: 'sec', authMethod: 'client_secret_basic', origin: 'provided' });
  await credentials.saveTokens({
    server: `${url}/mcp`,
    issuer: url,
    tokenEndpoint: `${url}/token`,
    grant: 'client_credentials',
    obtainedAt: 0,
    accessToken: 'narrow',
    ...(dpop ? { tokenType: 'DPoP', dpopKey: await generateDpopKey('ES256') } : { tokenType: 'Bearer' }),
    expiresAt: clock.now() + 600_000,
    scope: 'a',
  });
  const deps: ProtocolSessionDeps = {
    http,
    clock,
    credentials,
    loopbackTimeoutMs: 1000,
    clientSecret: async () => 'sec',
    presentAuthorizationUrl: async () => undefined,
    ...extra,
  };
  const s = new AuthorizedSession(deps, { serverUrl: `${url}/mcp`, clientInfo: { name: 'lanyard', version: '0' }, revision: '2025-06-18' });
  await s.start();
  await s.initialize();
  return s;
}

const insufficient = (scope: string) => ({ 'www-authenticate': `Bearer error="insufficient_scope", scope="${scope}"` });
const resumptions = (seen: Seen[]) => seen.filter((s) => s.method === 'GET' && s.last !== undefined).map((s) => s.auth);
const tokenRequests = (seen: Seen[]) => seen.filter((s) => s.path === '/token').map((s) => new URLSearchParams(s.body).get('scope'));

describe('a 403 insufficient_scope on a resumption GET', () => {
  it('steps up with the scope it names added, as a POST does, and the stream is resumed with the wider token', async () => {
    const srv = await protocolServer((_req, res, s) => {
      if (s.last === undefined) return void res.writeHead(405).end();
      if (s.auth === 'Bearer narrow') return void res.writeHead(403, insufficient('b')).end();
      res.writeHead(200, { 'content-type': 'text/event-stream' }).end(srv.answer());
    });
    const notes: string[] = [];
    const s = await signedIn(srv.url, { notify: (l) => void notes.push(l) });
    const r = await s.request('tools/call', { name: 'needs-b', arguments: {} });
    expect(r.result).toEqual({ content: [] });
    expect(resumptions(srv.seen)).toEqual(['Bearer narrow', 'Bearer wide-1']);
    expect(tokenRequests(srv.seen)).toEqual(['a b']);
    expect(notes).toContain('The server needs the scope "b"; authorizing again with "a b"');
    await s.close();
  });

  it(`gives up after ${MAX_STEP_UP} step-ups for one request (exit 4), as a POST does`, async () => {
    const srv = await protocolServer((_req, res, s) => {
      if (s.last === undefined) return void res.writeHead(405).end();
      res.writeHead(403, insufficient('b')).end();
    });
    const s = await signedIn(srv.url);
    const e = await s.request('tools/call', { name: 'never-enough', arguments: {} }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(AuthRequiredError);
    expect((e as Error).message).toMatch(/insufficient scope \(needs "b"\)/);
    expect(tokenRequests(srv.seen)).toEqual(['a b', 'a b']);
    expect(resumptions(srv.seen)).toHaveLength(MAX_STEP_UP + 1);
    await s.close();
  });
});

describe('a protocol request redirected to another origin that answers 401 or 403', () => {
  /** The other origin: refuses whatever comes (it was sent no token), as `status` with a challenge that would tempt a refresh or a step-up. */
  const otherOrigin = (status: 401 | 403) =>
    serve((_req, res) => {
      const challenge = status === 401 ? 'Bearer error="invalid_token"' : 'Bearer error="insufficient_scope", scope="b"';
      json(res, status, { error: 'nope' }, { 'www-authenticate': challenge });
    });

  for (const status of [401, 403] as const) {
    it(`a resumption GET: ${status} fails the call as that origin's http_error, with no refresh and no step-up`, async () => {
      const other = await otherOrigin(status);
      const srv = await protocolServer((_req, res, s) => {
        if (s.last === undefined) return void res.writeHead(405).end();
        res.writeHead(307, { location: `${other.url}/moved` }).end();
      });
      const s = await signedIn(srv.url);
      const e = await s.request('tools/call', { name: 'moved', arguments: {} }).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(HttpError);
      expect(e).toMatchObject({ code: 'http_error', status, otherOrigin: other.url });
      expect((e as Error).message).toContain(`redirected to ${other.url}, which answered HTTP ${status}`);
      expect(other.seen.map((x) => [x.method, x.auth])).toEqual([['GET', undefined]]);
      expect(tokenRequests(srv.seen)).toEqual([]);
      expect(resumptions(srv.seen)).toHaveLength(1);
      await s.close();
    });
  }

  it("the session's GET stream: stops with one line naming that origin, asks no token and sends no other GET", async () => {
    const other = await otherOrigin(403);
    const srv = await protocolServer((_req, res) => void res.writeHead(307, { location: `${other.url}/moved` }).end());
    const notes: string[] = [];
    const s = await signedIn(srv.url, { notify: (l) => void notes.push(l) });
    for (let i = 0; i < 1000 && notes.length === 0; i++) await new Promise((r) => setTimeout(r, 5));
    // Time for more GETs, were the stream asked again (the clock advances itself at every wait).
    await new Promise((r) => setTimeout(r, 200));
    expect(notes).toEqual([
      `${srv.url}/mcp refused the session's event stream (GET ${srv.url}/mcp: redirected to ${other.url}, which answered HTTP 403 (no credential is sent to another origin)); what the server sends on its own (resource updates, list changes) is not heard in this session`,
    ]);
    expect(srv.seen.filter((x) => x.method === 'GET')).toHaveLength(1);
    expect(other.seen).toHaveLength(1);
    expect(tokenRequests(srv.seen)).toEqual([]);
    await s.close();
  });
});

describe('a DPoP nonce asked for on a GET (the server rotated it)', () => {
  /** GETs need the proof to carry the server's current nonce (`nonce.now`), which the client learns from a GET's own 401. */
  const nonce = { now: 'n-2' };
  const nonceOrAnswer = (answer: (s: Seen) => string | undefined) => (_req: IncomingMessage, res: ServerResponse, s: Seen) => {
    if (s.nonce !== nonce.now)
      return void res.writeHead(401, { 'www-authenticate': 'DPoP error="use_dpop_nonce", algs="ES256"', 'dpop-nonce': nonce.now }).end();
    const body = answer(s);
    if (body === undefined) return void res.writeHead(405).end();
    res.writeHead(200, { 'content-type': 'text/event-stream' }).end(body);
  };

  it('a resumption GET is sent again with the new nonce, as a POST is: no refresh, no sign-in', async () => {
    nonce.now = 'n-2';
    // The nonce rotates while the call's stream is open.
    const rotate = (_res: ServerResponse, s: Seen) => {
      if (s.rpc === 'tools/call') nonce.now = 'n-3';
      return false;
    };
    const srv = await protocolServer(
      nonceOrAnswer((s) => (s.last === undefined ? undefined : srv.answer())),
      rotate,
    );
    const s = await signedIn(srv.url, {}, true);
    const r = await s.request('tools/call', { name: 'slow', arguments: {} });
    expect(r.result).toEqual({ content: [] });
    // (The first carries n-2 or none, as the session's own stream learned n-2 before it or not.)
    const resumed = srv.seen.filter((x) => x.method === 'GET' && x.last !== undefined).map((x) => [x.auth, x.nonce]);
    expect(resumed).toHaveLength(2);
    expect(resumed[1]).toEqual(['DPoP narrow', 'n-3']);
    expect(tokenRequests(srv.seen)).toEqual([]);
    await s.close();
  });

  it('ten calls at once that meet a new nonce are each sent again with it: none takes it for a refused token (no sign-in)', async () => {
    const held: ServerResponse[] = [];
    const challenge = { 'www-authenticate': 'DPoP error="use_dpop_nonce", algs="ES256"', 'dpop-nonce': 'n-9' };
    // The ten POSTs with no nonce are refused together, once all ten have arrived: one learns the nonce first.
    const post = (res: ServerResponse, s: Seen) => {
      if (s.rpc !== 'tools/call') return false;
      const m = JSON.parse(s.body) as { id: unknown };
      if (s.nonce === 'n-9') return !!json(res, 200, { jsonrpc: '2.0', id: m.id, result: { content: [] } });
      held.push(res);
      if (held.length === 10) for (const h of held) h.writeHead(401, challenge).end();
      return true;
    };
    const srv = await protocolServer((_req, res) => void res.writeHead(405).end(), post);
    const s = await signedIn(srv.url, {}, true);
    const calls = Array.from({ length: 10 }, () => s.request('tools/call', { name: 'echo', arguments: {} }));
    expect((await Promise.all(calls)).map((r) => r.result)).toEqual(Array.from({ length: 10 }, () => ({ content: [] })));
    expect(tokenRequests(srv.seen)).toEqual([]);
    expect(
      srv.seen
        .filter((x) => x.rpc === 'tools/call')
        .map((x) => x.nonce ?? 'none')
        .sort(),
    ).toEqual([...Array(10).fill('n-9'), ...Array(10).fill('none')]);
    await s.close();
  });

  it("the session's GET stream is opened again with the new nonce, not paused as if the token were refused", async () => {
    nonce.now = 'n-2';
    const srv = await protocolServer(nonceOrAnswer(() => ': open\n\n'));
    const notes: string[] = [];
    const s = await signedIn(srv.url, { notify: (l) => void notes.push(l) }, true);
    const gets = () => srv.seen.filter((x) => x.method === 'GET');
    for (let i = 0; i < 1000 && !gets().some((x) => x.nonce === 'n-2'); i++) await new Promise((r) => setTimeout(r, 5));
    expect(
      gets()
        .slice(0, 2)
        .map((x) => x.nonce),
    ).toEqual([undefined, 'n-2']);
    expect(notes).toEqual([]);
    expect(tokenRequests(srv.seen)).toEqual([]);
    await s.close();
  });
});
