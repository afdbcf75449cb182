/**
 * `lanyard protocol request` and `auth login|token|logout --server` as run
 * functions against the in-process emulator's protocol server (formerly
 * spawned end to end): discovery per revision, registration, one retry,
 * event streams, step-up, usage and configuration errors, the state check,
 * endpoint rules, client credentials (secret, private key), refresh and its
 * failures, the redaction of --debug traces. The consent pages are answered
 * by an in-process browser (test/fakes/consent-browser.ts); the sign-in's
 * wait for its callback sleeps on a clock that moves only when told.
 * test/e2e/protocol.test.ts keeps the wiring (a spawned sign-in with the
 * stand-in browser program, the secret on stdin, Ctrl-C) and the server's
 * own rules.
 */
import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ApiOptions } from '../../../../src/cli/commands/api/options.js';
import { runApi } from '../../../../src/cli/commands/api/run.js';
import { runProtocolLogin, runProtocolLogout, runProtocolToken } from '../../../../src/cli/commands/auth/protocol.js';
import type { AuthLoginOptions } from '../../../../src/cli/commands/auth/options.js';
import type { ProtocolRequestOptions } from '../../../../src/cli/commands/protocol/options.js';
import { runProtocolRequest } from '../../../../src/cli/commands/protocol/request.js';
import type { Context } from '../../../../src/cli/context.js';
import type { Stats } from '../../../../src/emulator/services/protocol/state.js';
import { ConsentBrowser } from '../../../fakes/consent-browser.js';
import { type RunOptions, useEmulatorCommands } from '../on-emulator.js';

const on = useEmulatorCommands();
const mcp = () => `${on.emu.url}/mcp`;
const stats = () => on.emu.admin('protocol', 'stats') as Promise<Stats>;
const configure = (s: Record<string, unknown>) => on.emu.admin('protocol', 'configure', s);
const stored = (prefix: string) =>
  [...on.store.data].filter(([k]) => k.startsWith(prefix)).map(([, v]) => JSON.parse(v) as Record<string, unknown> & { clientId?: string });
const tokens = (): Record<string, string> | undefined => {
  const t = on.store.data.get(`protocol:${mcp()}`);
  return t === undefined ? undefined : (JSON.parse(t) as Record<string, string>);
};

/** A run with a consenting browser (LANYARD_BROWSER set, as a person's machine or a test has it). */
function run(f: (ctx: Context) => Promise<unknown>, browser: ConsentBrowser, o: RunOptions = {}) {
  return on.run(f, { manualClock: true, browser, ...o, env: { LANYARD_BROWSER: 'in-process', ...o.env } });
}
const request = (b: ConsentBrowser, o: ProtocolRequestOptions = {}, r: RunOptions = {}) =>
  run((c) => runProtocolRequest(c, mcp(), o), b, { format: 'json', ...r });
const login = (b: ConsentBrowser, o: Partial<AuthLoginOptions> = {}, r: RunOptions = {}) => run((c) => runProtocolLogin(c, { server: mcp(), ...o }), b, r);

describe('protocol request: discovery, registration, one retry', () => {
  it('2025-03-26: falls back to /authorize, /token and /register when the server has no metadata document', async () => {
    await configure({ revision: '2025-03-26', metadata: false });
    const b = new ConsentBrowser();
    const r = await request(b, { method: 'ping' });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).result).toEqual({});
    const s = await stats();
    expect(s.metadataRequests).toEqual([
      { path: '/.well-known/oauth-authorization-server', versionHeader: '2025-03-26', header: 'CTX-Protocol-Version', served: false },
    ]);
    // The spec's header on every request after initialize, for this revision.
    expect(s.mcpRequests.filter((m) => m.method === 'ping').at(-1)).toEqual({ method: 'ping', status: 200, auth: 'bearer', version: '2025-03-26' });
    expect(s.registrations).toBe(1);
    expect(b.urls[0]!.startsWith(`${on.emu.url}/authorize?`)).toBe(true);
    expect(new URL(b.urls[0]!).searchParams.has('resource')).toBe(false);
  });

  it('without registration needs a pre-registered client id', async () => {
    await configure({ metadata: false, resourceMetadata: false, registration: false });
    const b = new ConsentBrowser();
    const no = await request(b, {}, { format: undefined });
    expect(no.code).toBe(1);
    expect(no.stderr).toMatch(/offers no dynamic client registration/);
    expect(no.stderr).toMatch(/--client-id/);
    const yes = await request(b, { clientId: 'ctx-cli' });
    expect(yes.code, yes.stderr).toBe(0);
    expect(new URL(b.urls[0]!).searchParams.get('client_id')).toBe('ctx-cli');
    expect((await stats()).registrations).toBe(0);
  });

  it('a second 401 after authorizing is exit 4, with exactly one retry', async () => {
    await configure({ rejectAllTokens: true });
    const r = await request(new ConsentBrowser(), {}, { format: undefined });
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/refused the request again after authorization \(HTTP 401/);
    expect(r.stdout).toBe('');
    // The first request (stateless: server/discover) is refused before and after authorizing; no third try.
    expect((await stats()).mcpRequests).toEqual([
      { method: 'server/discover', status: 401, auth: 'none' },
      { method: 'server/discover', status: 401, auth: 'bearer' },
    ]);
  });

  it('answers from an event-stream body', async () => {
    await configure({ sse: true });
    const r = await request(new ConsentBrowser(), { method: 'tools/list' });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).result.tools).toHaveLength(3);
  });

  it('insufficient_scope re-authorizes once with the wider scope', async () => {
    const b = new ConsentBrowser();
    const r = await request(b, { method: 'tools/call', params: '{"name":"echo","arguments":{"text":"hello"}}' });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).result.content[0].text).toBe('hello');
    expect(b.urls).toHaveLength(2);
    expect(new URL(b.urls[0]!).searchParams.get('scope')).toBe('tools:read'); // the 401 challenge's scope
    expect(new URL(b.urls[1]!).searchParams.get('scope')).toBe('tools:read tools:call');
    expect(r.stderr).toMatch(/needs the scope "tools:call"/);
    expect((await stats()).mcpRequests.filter((m) => m.status === 403)).toHaveLength(1);
    expect(tokens()?.scope).toBe('tools:read tools:call');
  });

  it('bad --params is a usage error', async () => {
    const r = await request(new ConsentBrowser(), { params: '{nope' });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--params must be JSON/);
  });

  it("uses the profile's protocol.serverUrl when no URL is given; none is exit 2", async () => {
    const b = new ConsentBrowser();
    const r = await run((c) => runProtocolRequest(c, undefined, { method: 'ping' }), b, { format: 'json' });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).result).toEqual({});
    const none = await run((c) => runProtocolRequest(c, undefined, {}), b, { settings: { 'protocol.serverUrl': undefined } });
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/protocol\.serverUrl/);
  });
});

describe('state and endpoint rules', () => {
  it('aborts on a state mismatch and stores nothing', async () => {
    const b = new ConsentBrowser('record');
    const pending = request(b, {}, { globals: { timeout: '20s' } });
    const redirect = new URL(await b.firstUrl()).searchParams.get('redirect_uri')!;
    const forged = await fetch(`${redirect}?code=forged&state=not-the-state`);
    expect(forged.status).toBe(400);
    const r = await pending;
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/state does not match/);
    expect(tokens()).toBeUndefined();
    expect((await stats()).tokenRequests.authorization_code).toBeUndefined();
  });

  it('refuses an authorization endpoint that is neither HTTPS nor localhost', async () => {
    await configure({ endpointOrigin: 'http://tools.example.test:8080' });
    const b = new ConsentBrowser();
    const r = await request(b);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/refusing the authorization endpoint http:\/\/tools\.example\.test:8080\/authorize/);
    expect(b.urls).toHaveLength(0);
    expect((await stats()).registrations).toBe(0);
  });
});

describe('client credentials', () => {
  it('signs in without a browser with the secret from the environment, step-up with a second grant', async () => {
    const b = new ConsentBrowser('record');
    const signIn = await login(b, { clientId: 'ctx-service', clientCredentials: true }, { env: { LANYARD_CLIENT_SECRET: 'ctx-service-secret' } });
    expect(signIn.code, signIn.stderr).toBe(0);
    expect(signIn.stderr).toMatch(/Signed in to/);
    expect(signIn.stderr + signIn.stdout).not.toContain('ctx-service-secret');
    expect(b.urls).toHaveLength(0);
    const tok = await run((c) => runProtocolToken(c, { server: mcp() }), b);
    expect(tok.code).toBe(0);
    expect(tok.stdout.trim()).toMatch(/^ctxat_/);
    const call = await request(
      b,
      { method: 'tools/call', params: '{"name":"echo","arguments":{"text":"cc"}}' },
      { env: { LANYARD_CLIENT_SECRET: 'ctx-service-secret' } },
    );
    expect(call.code, call.stderr).toBe(0);
    expect(JSON.parse(call.stdout).result.content[0].text).toBe('cc');
    // The protected resource lists only tools:read: tools/call steps up (403 insufficient_scope) with a second grant.
    expect(call.stderr).toMatch(/needs the scope "tools:call"/);
    expect((await stats()).tokenRequests.client_credentials).toBe(2);
  });

  it('a browser sign-in after a client-credentials one registers its own client instead of reusing the service client', async () => {
    const b = new ConsentBrowser();
    const cc = await login(b, { clientId: 'ctx-service', clientCredentials: true }, { stdin: 'ctx-service-secret' });
    expect(cc.code, cc.stderr).toBe(0);
    const browser = await login(b);
    expect(browser.code, browser.stderr).toBe(0);
    expect(browser.stderr).toMatch(/Registering Lanyard as a client/);
    expect((await stats()).registrations).toBe(1);
    expect(b.urls[0]).not.toContain('client_id=ctx-service');
  });

  it('a private_key_jwt client signs in with its key (RSA and P-256); another key is invalid_client', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'lanyard-proto-keys-'));
    const b = new ConsentBrowser('record');
    for (const [id, type] of [
      ['svc-rsa', 'rsa'],
      ['svc-ec', 'ec'],
    ] as const) {
      const pair = generateKeyPairSync(type as 'rsa', type === 'rsa' ? { modulusLength: 2048 } : ({ namedCurve: 'P-256' } as never));
      await on.emu.admin('protocol', 'key-client', { client_id: id, public_key: pair.publicKey.export({ type: 'spki', format: 'pem' }) });
      const pem = join(dir, `${id}.pem`);
      await writeFile(pem, pair.privateKey.export({ type: 'pkcs8', format: 'pem' }));
      const signIn = await login(b, { clientId: id, clientKey: pem, clientCredentials: true });
      expect(signIn.code, signIn.stderr).toBe(0);
      const call = await request(b, { method: 'tools/list' });
      expect(call.code, call.stderr).toBe(0);
    }
    const other = join(dir, 'other.pem');
    await writeFile(other, generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }));
    const bad = await login(b, { clientId: 'svc-rsa', clientKey: other, clientCredentials: true });
    expect(bad.code).toBe(4);
    expect(bad.stderr).toMatch(/invalid_client/);
  });

  it('a wrong secret is invalid_client; no secret is a clear message', async () => {
    const b = new ConsentBrowser('record');
    const bad = await login(b, { clientId: 'ctx-service', clientCredentials: true }, { env: { LANYARD_CLIENT_SECRET: 'wrong-secret' } });
    expect(bad.code).toBe(4); // HTTP 401 invalid_client: authentication failed
    expect(bad.stderr).toMatch(/invalid_client/);
    expect(bad.io.stderrText()).not.toContain('wrong-secret');
    const none = await login(b, { clientId: 'ctx-service', clientCredentials: true });
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/needs the client secret/);
  });
});

describe('refresh', () => {
  it('refreshes before expiry and saves the rotated refresh token; the old one is refused as reuse', async () => {
    // 20 s tokens expire within the client's 30 s margin: the next call refreshes first.
    await configure({ accessTokenTtl: 20 });
    const b = new ConsentBrowser();
    expect((await request(b)).code).toBe(0);
    const first = tokens()!;
    const r = await request(b, { method: 'ping' });
    expect(r.code, r.stderr).toBe(0);
    const second = tokens()!;
    expect(second.accessToken).not.toBe(first.accessToken);
    expect(second.refreshToken).toBeTruthy();
    expect(second.refreshToken).not.toBe(first.refreshToken);
    let s = await stats();
    expect(s.tokenRequests.refresh_token).toBe(1);
    expect(s.mcpRequests.filter((m) => m.status === 401)).toHaveLength(1); // only the very first call
    expect(b.urls).toHaveLength(1);

    // The old refresh token again: refused, and the whole grant is revoked.
    const reuse = await fetch(`${on.emu.url}/token`, {
      method: 'POST',
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: first.refreshToken!, client_id: stored('protocol-client:')[0]!.clientId! }),
    });
    expect(reuse.status).toBe(400);
    expect(((await reuse.json()) as { error: string }).error).toBe('invalid_grant');
    s = await stats();
    expect(s.refreshReuseDetected).toBe(1);

    // Next call: the refresh fails with invalid_grant → tokens cleared → a new authorization.
    await configure({ accessTokenTtl: 300 });
    const after = await request(b, { method: 'ping' });
    expect(after.code, after.stderr).toBe(0);
    expect(after.stderr).toMatch(/invalid_grant/);
    expect(b.urls).toHaveLength(2);
  });

  const apiPing = (o: Partial<ApiOptions>): ApiOptions => ({
    header: ['accept: application/json, text/event-stream'],
    rawField: [],
    field: [],
    service: 'protocol',
    method: 'POST',
    ...o,
  });
  const ping = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });

  it('lanyard api --service protocol refreshes a token about to expire before using it', async () => {
    await configure({ accessTokenTtl: 20 });
    const b = new ConsentBrowser();
    expect((await request(b)).code).toBe(0);
    const before = (await stats()).tokenRequests.refresh_token ?? 0;
    const r = await run((c) => runApi(c, '/mcp', apiPing({ input: '-' })), b, { stdin: ping, settings: { 'protocol.serverUrl': mcp() } });
    const s = await stats();
    expect(s.tokenRequests.refresh_token, r.stderr).toBe(before + 1);
    // The server saw the refreshed token, not the stale one.
    expect(s.mcpRequests.at(-1)!.status, r.stderr).not.toBe(401);
  });

  it('lanyard api --service protocol refreshes once after a 401 (a replayable body), not with --input', async () => {
    const b = new ConsentBrowser();
    expect((await request(b)).code).toBe(0);
    // A stream body cannot be sent twice: the 401 stands (exit 4), no refresh.
    await on.emu.admin('protocol', 'revoke-access-tokens');
    let before = (await stats()).tokenRequests.refresh_token ?? 0;
    const streamed = await run((c) => runApi(c, '/mcp', apiPing({ input: '-' })), b, { stdin: ping });
    expect(streamed.code, streamed.stderr).toBe(4);
    expect((await stats()).tokenRequests.refresh_token ?? 0).toBe(before);
    // Fields build the body: refused once, refreshed, sent again with the new token.
    before = (await stats()).tokenRequests.refresh_token ?? 0;
    const r = await run((c) => runApi(c, '/mcp', apiPing({ rawField: ['jsonrpc=2.0', 'method=ping'], field: ['id=1'] })), b);
    const s = await stats();
    expect(s.tokenRequests.refresh_token, r.stderr).toBe(before + 1);
    expect(s.mcpRequests.at(-2)!.status).toBe(401);
    expect(s.mcpRequests.at(-1)!.status, r.stderr).not.toBe(401);
  });

  it('refreshes on a 401 invalid_token and retries', async () => {
    const b = new ConsentBrowser();
    expect((await request(b)).code).toBe(0);
    await on.emu.admin('protocol', 'revoke-access-tokens');
    const r = await request(b, { method: 'tools/list' });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/refreshing/);
    expect((await stats()).tokenRequests.refresh_token).toBe(1);
    expect(b.urls).toHaveLength(1);
  });

  it('keeps working after the emulator clock passes the expiry (401 → refresh)', async () => {
    const b = new ConsentBrowser();
    expect((await request(b)).code).toBe(0);
    on.emu.advance(600_000);
    const r = await request(b, { method: 'ping' });
    expect(r.code, r.stderr).toBe(0);
    expect((await stats()).tokenRequests.refresh_token).toBe(1);
  });

  it('invalid_client drops the registration and registers again', async () => {
    const b = new ConsentBrowser();
    expect((await request(b)).code).toBe(0);
    const reg = stored('protocol-client:')[0]!;
    await on.emu.admin('protocol', 'delete-client', { client_id: reg.clientId });
    await on.emu.admin('protocol', 'revoke-access-tokens');
    const r = await request(b, { method: 'ping' });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/invalid_client/);
    expect((await stats()).registrations).toBe(2);
    expect(stored('protocol-client:')[0]!.clientId).not.toBe(reg.clientId);
  });
});

describe('secrets stay out of output', () => {
  it('--debug traces redact tokens, codes, verifiers and client secrets', async () => {
    await configure({ accessTokenTtl: 20 });
    const b = new ConsentBrowser();
    const first = await request(b, {}, { globals: { debug: true }, format: undefined });
    expect(first.code, first.stderr).toBe(0);
    const second = await request(b, { method: 'ping' }, { globals: { debug: true }, format: undefined }); // refreshes first
    expect(second.code, second.stderr).toBe(0);
    const t = tokens()!;
    // What the command wrote, before main's own redaction of every stderr line.
    const all = first.io.stderrText() + first.stdout + second.io.stderrText() + second.stdout;
    expect(all).toMatch(/authorization: Bearer \[REDACTED\]/);
    expect(all).toMatch(/code_verifier=\[REDACTED\]/);
    expect(all).toMatch(/refresh_token=\[REDACTED\]/);
    expect(all).not.toContain(t.accessToken);
    expect(all).not.toContain(t.refreshToken);
    expect(all).not.toMatch(/ctx(at|rt|code)_/);
  });
});

describe('auth token / logout --server', () => {
  it('prints the token, forgets it on logout, then exit 4', async () => {
    const b = new ConsentBrowser();
    const signIn = await login(b);
    expect(signIn.code, signIn.stderr).toBe(0);
    const t = await run((c) => runProtocolToken(c, { server: mcp() }), b);
    expect(t.stdout.trim()).toBe(tokens()!.accessToken);
    const out = await run((c) => runProtocolLogout(c, { server: mcp() }), b);
    expect(out.code).toBe(0);
    expect(out.stderr).toBe(`Forgot the tokens of ${mcp()}\n`);
    const gone = await run((c) => runProtocolToken(c, { server: mcp() }), b);
    expect(gone.code).toBe(4);
    expect(gone.stderr).toMatch(/no token stored/);
  });
});
