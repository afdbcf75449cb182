/**
 * `lanyard protocol request` across the context protocol's revisions, as a
 * run function against the in-process emulator (formerly spawned end to
 * end): each revision's negotiation, header and discovery, the stateless
 * 2026-07-28 revision, --protocol-version, elicitations, lost sessions,
 * registration recovery, and bad input from a server (a small fake on
 * loopback). test/e2e/protocol-revisions.test.ts keeps the server's own
 * rules of 2026-07-28 and `protocol forget`'s wiring.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProtocolRequestOptions } from '../../../../src/cli/commands/protocol/options.js';
import { runProtocolRequest } from '../../../../src/cli/commands/protocol/request.js';
import type { Stats } from '../../../../src/emulator/services/protocol/state.js';
import { ConsentBrowser } from '../../../fakes/consent-browser.js';
import { type RunOptions, useEmulatorCommands } from '../on-emulator.js';

const on = useEmulatorCommands();
const mcp = () => `${on.emu.url}/mcp`;
const stats = () => on.emu.admin('protocol', 'stats') as Promise<Stats>;
const configure = (s: Record<string, unknown>) => on.emu.admin('protocol', 'configure', s);
/** `protocol request URL` with a consenting browser; `json`: --json. */
const request = (b: ConsentBrowser, o: ProtocolRequestOptions & { json?: boolean; url?: string } = {}, r: RunOptions = {}) => {
  const { json, url, ...opts } = o;
  return on.run((c) => runProtocolRequest(c, url ?? mcp(), opts), {
    manualClock: true,
    browser: b,
    ...(json ? { format: 'json' as const } : {}),
    ...r,
    env: { LANYARD_BROWSER: 'in-process', ...r.env },
  });
};
const registration = () =>
  [...on.store.data].filter(([k]) => k.startsWith('protocol-client:')).map(([, v]) => JSON.parse(v) as { clientId: string; redirectUris: string[] })[0];
const storedKeys = () => Object.fromEntries([...on.store.data].filter(([k]) => k.startsWith('protocol')));

describe('each revision', () => {
  for (const revision of ['2025-11-25', '2025-06-18', '2025-03-26'] as const) {
    it(`${revision}: negotiates it, sends its header, discovers as it says`, async () => {
      await configure({ revision });
      const c = new ConsentBrowser();
      const r = await request(c, { method: 'tools/list', json: true });
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout).result.tools.map((t: { name: string }) => t.name)).toContain('echo');
      const s = await stats();
      const header = revision === '2025-03-26' ? 'CTX-Protocol-Version' : 'MCP-Protocol-Version';
      // Discovery runs before the server has answered: a later-revision server is asked with the newest revision (stateless, tried first).
      const asked = revision === '2025-03-26' ? revision : '2026-07-28';
      expect(s.metadataRequests).toEqual([{ path: '/.well-known/oauth-authorization-server', versionHeader: asked, header, served: true }]);
      expect(s.mcpRequests.filter((m) => m.method === 'tools/list' && m.status === 200)).toEqual([
        { method: 'tools/list', status: 200, auth: 'bearer', version: revision },
      ]);
      expect(s.sessionsEnded).toBe(1);
      const q = new URL(c.urls[0]!).searchParams;
      // resource (RFC 8707) comes from protected resource metadata, which 2025-03-26 servers do not publish.
      expect(q.get('resource')).toBe(revision === '2025-03-26' ? null : mcp());
      // 2025-11-25 names the scope in the challenge; 2025-06-18 lists it in scopes_supported; 2025-03-26 neither.
      expect(q.get('scope')).toBe(revision === '2025-03-26' ? null : 'tools:read');
      const init = await request(c);
      expect(init.stdout).toMatch(new RegExp(`protocol:\\s+${revision}`));
    });
  }
});

describe('2026-07-28 (stateless)', () => {
  it('no handshake and no session: server/discover, tools/list, a tool with an Mcp-Param header, a multi round-trip elicitation', async () => {
    await configure({ revision: '2026-07-28' });
    const c = new ConsentBrowser();
    const list = await request(c, { method: 'tools/list', json: true });
    expect(list.code, list.stderr).toBe(0);
    const listed = JSON.parse(list.stdout).result;
    expect(listed.tools.map((t: { name: string }) => t.name)).toEqual(['echo', 'time', 'confirm', 'echo_region']);
    expect(listed).toMatchObject({ resultType: 'complete', cacheScope: 'private' });
    // The server checks Mcp-Param-Region against arguments.region (400 -32020 when missing or different).
    const region = await request(c, { method: 'tools/call', params: '{"name":"echo_region","arguments":{"region":"eu-west 1"}}', json: true });
    expect(region.code, region.stderr).toBe(0);
    expect(JSON.parse(region.stdout).result.content[0].text).toBe('region: eu-west 1');
    // confirm answers input_required (an elicitation and a request state); the retry carries the answer and the state.
    const confirm = await request(c, {
      elicitation: 'defaults',
      method: 'tools/call',
      params: '{"name":"confirm","arguments":{"question":"Ship?"}}',
      json: true,
    });
    expect(confirm.code, confirm.stderr).toBe(0);
    expect(JSON.parse(confirm.stdout).result.content[0].text).toBe('confirmed: false');
    const discover = await request(c);
    expect(discover.code, discover.stderr).toBe(0);
    expect(discover.stdout).toMatch(/protocol:\s+2026-07-28/);
    expect(discover.stdout).toMatch(/server:\s+lanyard-emulator-tools 1\.0\.0/);
    expect(discover.stdout).not.toMatch(/session:/);
    const s = await stats();
    expect(s.clientAnswers).toEqual([{ method: 'elicitation/create', result: { action: 'accept', content: { confirm: false } } }]);
    expect(s.sessionsEnded).toBe(0);
    const ok = s.mcpRequests.filter((m) => m.status === 200);
    expect(ok.map((m) => m.method)).not.toContain('initialize');
    expect(new Set(ok.map((m) => m.version))).toEqual(new Set(['2026-07-28']));
    // Two sign-ins for the four commands: tools:read, then the step-up to tools:call (403 insufficient_scope); the tokens were used again after that.
    expect(c.urls).toHaveLength(2);
  });
});

describe('--protocol-version', () => {
  it('forces the revision: no stateless attempt, the forced version offered; without it the stateless one is tried first', async () => {
    await configure({ revision: '2025-06-18' });
    const c = new ConsentBrowser();
    const plain = await request(c, { method: 'tools/list', json: true });
    expect(plain.code, plain.stderr).toBe(0);
    // The stateless attempt is a request before any initialize (the emulator refuses it: it needs the handshake).
    const methods = async () => (await stats()).mcpRequests.map((m: { method?: string }) => m.method);
    const before = await methods();
    expect(before[0]).not.toBe('initialize');
    expect(before).toContain('initialize');
    await configure({ revision: '2025-06-18' });
    const forced = await request(c, { method: 'tools/list', json: true, protocolVersion: '2025-06-18' });
    expect(forced.code, forced.stderr).toBe(0);
    const seen = (await methods()).slice(before.length);
    expect(seen[0], JSON.stringify(seen)).toBe('initialize');
  });
});

describe('requests from the server', () => {
  const confirm = { method: 'tools/call', params: '{"name":"confirm","arguments":{"question":"Deploy?"}}', json: true };

  it('an elicitation is declined with a JSON-RPC answer without a terminal, accepted with --elicitation defaults — never a hang', async () => {
    const c = new ConsentBrowser();
    const declined = await request(c, confirm);
    expect(declined.code, declined.stderr).toBe(0);
    expect(JSON.parse(declined.stdout).result.content[0].text).toBe('the user chose decline');
    expect(declined.stderr).toMatch(/The server asked: Deploy\? — declined/);
    const accepted = await request(c, { ...confirm, elicitation: 'defaults' });
    expect(accepted.code, accepted.stderr).toBe(0);
    expect(JSON.parse(accepted.stdout).result.content[0].text).toBe('confirmed: false');
    expect((await stats()).clientAnswers).toEqual([
      { method: 'elicitation/create', result: { action: 'decline' } },
      { method: 'elicitation/create', result: { action: 'accept', content: { confirm: false } } },
    ]);
  });

  it('a lost session (404) is initialized again, once', async () => {
    const c = new ConsentBrowser();
    expect((await request(c, { method: 'ping' })).code).toBe(0);
    await configure({ loseNextSession: true });
    const r = await request(c, { method: 'tools/list', json: true });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/no longer knows the session; starting a new one/);
    // (The session's own server-initiated stream, a GET, aside.)
    const calls = (await stats()).mcpRequests
      .filter((m) => m.method !== 'GET')
      .slice(-6)
      .map((m) => `${m.method} ${m.status}`);
    expect(calls).toEqual([
      'initialize 200',
      'notifications/initialized 404',
      'initialize 200',
      'notifications/initialized 200',
      'tools/list 200',
      'DELETE 200',
    ]);
  });
});

describe('registration recovery', () => {
  const forceSignIn = async () => {
    await on.emu.admin('protocol', 'revoke-access-tokens');
    await on.emu.admin('protocol', 'revoke-refresh-tokens');
  };

  it('a stored registration the server refuses (redirect URI on another port, exact matching) is replaced by registering again, once', async () => {
    const c = new ConsentBrowser();
    expect((await request(c, { method: 'ping' })).code).toBe(0);
    const first = registration()!;
    await configure({ redirectMatching: 'exact' });
    await forceSignIn();
    // The registered port is taken: the next sign-in listens elsewhere, which this server does not accept.
    const port = Number(new URL(first.redirectUris[0]!).port);
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(port, '127.0.0.1', resolve));
    try {
      const r = await request(c, { method: 'ping', json: true });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(/refuses the stored registration \(its authorization endpoint answers HTTP 400\); registering again/);
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
    const s = await stats();
    expect(s.registrations).toBe(2);
    const second = registration()!;
    expect(second.clientId).not.toBe(first.clientId);
    // With its port free again, the new registration is used as it is: no third registration.
    await forceSignIn();
    expect((await request(c, { method: 'ping' })).code).toBe(0);
    expect((await stats()).registrations).toBe(2);
  });

  it('a client the server forgot is registered again before the browser is sent to an error page', async () => {
    const c = new ConsentBrowser();
    expect((await request(c, { method: 'ping' })).code).toBe(0);
    await on.emu.admin('protocol', 'delete-client', { client_id: registration()!.clientId });
    await forceSignIn();
    const r = await request(c, { method: 'ping' });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/registering again/);
    expect((await stats()).registrations).toBe(2);
    // The browser was not sent to the error page of the forgotten client: two sign-ins, the second with the new client.
    const known = ((await on.emu.admin('protocol', 'clients')) as { clients: Array<{ client_id: string }> }).clients.map((x) => x.client_id);
    const ids = c.urls.map((u) => new URL(u).searchParams.get('client_id')!);
    expect(ids).toHaveLength(2);
    expect(known).toContain(ids[1]);
    expect(known).not.toContain(ids[0]);
  });
});

describe('bad input from a server', () => {
  let fake: Server;
  let base: string;
  let mode: 'version' | 'metadata' | 'registration' = 'version';
  beforeAll(async () => {
    fake = createServer((req, res) => {
      const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
        res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(typeof body === 'string' ? body : JSON.stringify(body));
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        const path = new URL(req.url!, base).pathname;
        if (path === '/mcp' && req.method === 'POST') {
          if (mode === 'version') return json(200, { jsonrpc: '2.0', id: JSON.parse(body).id, result: { protocolVersion: '2024-11-05', capabilities: {} } });
          return json(401, { error: 'unauthorized' }, { 'www-authenticate': `Bearer resource_metadata="${base}/prm"` });
        }
        if (path === '/prm') return json(200, { resource: `${base}/mcp`, authorization_servers: [base] });
        if (path === '/.well-known/oauth-authorization-server') {
          const meta = {
            issuer: base,
            authorization_endpoint: `${base}/authorize`,
            token_endpoint: `${base}/token`,
            registration_endpoint: `${base}/register`,
          };
          return json(
            200,
            mode === 'metadata'
              ? { ...meta, code_challenge_methods_supported: ['S256'], token_endpoint: 42 }
              : { ...meta, code_challenge_methods_supported: ['S256'] },
          );
        }
        if (path === '/register') return json(201, '{"client_secret": "s", "client_id": ');
        json(404, {});
      });
    });
    await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(fake.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => fake.close(resolve)));

  it('a version Lanyard does not speak, malformed metadata, a garbage registration: one line naming the URL and the field, exit 1, nothing stored', async () => {
    const c = new ConsentBrowser();
    // Something stored beforehand (the emulator's tokens) must stay as it was.
    expect((await request(c, { method: 'ping' })).code).toBe(0);
    const before = storedKeys();
    const lines = (s: string) => s.trim().split('\n');

    mode = 'version';
    const v = await request(c, { url: `${base}/mcp` });
    expect(v.code).toBe(1);
    expect(lines(v.stderr)).toEqual([
      `${base}/mcp answered initialize with protocol version "2024-11-05" (field result.protocolVersion); Lanyard speaks 2025-11-25, 2025-06-18, 2025-03-26`,
    ]);

    mode = 'metadata';
    const m = await request(c, { url: `${base}/mcp` });
    expect(m.code).toBe(1);
    expect(m.stderr).toMatch(
      new RegExp(`authorization server metadata at ${base}/.well-known/oauth-authorization-server: token_endpoint is not an http\\(s\\) URL`),
    );

    mode = 'registration';
    const g = await request(c, { url: `${base}/mcp` });
    expect(g.code).toBe(1);
    expect(g.stderr).toMatch(new RegExp(`client registration at ${base}/register failed: HTTP 201 without a JSON body`));
    for (const r of [v, m, g]) expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(storedKeys()).toEqual(before);
    expect(on.store.data.get(`protocol:${mcp()}`)).toBeTruthy();
  });
});
