/**
 * Echo API end to end: the built CLI against the emulator's gateway over
 * HTTP on 127.0.0.1 — send with an API key (and stdin), a key stored from
 * stdin in the file store, `emulator service-account create`, the gateway's
 * key forms, the API description, the identity-token schemes with
 * emulator-issued tokens. The commands' behaviour (the key kept out of every
 * output, refusals, the three service-account schemes against both JWKS
 * formats, rotation, ES256, bad input, time) is tested on their run
 * functions in test/unit/cli/echo/commands.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startWorld, type World } from './harness.js';

// Every test spawns the CLI several times; on a busy machine that takes a while.
vi.setConfig({ testTimeout: 120_000 });

const SEEDED_KEY = 'AIzaSyLanyardEmulatorEchoKey0000000001';
const AUDIENCE = 'echo-api.lanyard.test';
const SCHEMES = ['vendor-jwt', 'service-account', 'default-service-account'] as const;
const DEFINITION = { 'vendor-jwt': 'vendor_jwt', 'service-account': 'service_account', 'default-service-account': 'platform_default_service_account' } as const;

interface KeyFile {
  client_email: string;
  private_key_id: string;
  private_key: string;
}

let world: World;
let dir: string;
const keyFiles = {} as Record<(typeof SCHEMES)[number] | 'stranger', { path: string; data: KeyFile }>;
const run = (args: string[], o: Parameters<World['run']>[1] = {}) => world.run(['--profile', 'emulator', ...args], o);

async function createKeyFile(name: string, args: string[]): Promise<{ path: string; data: KeyFile }> {
  const path = join(dir, `${name}.json`);
  const r = await run(['emulator', 'service-account', 'create', '-o', path, ...args]);
  expect(r.code, r.stderr).toBe(0);
  return { path, data: JSON.parse(await readFile(path, 'utf8')) as KeyFile };
}

async function authInfo(
  path: string,
  token?: string,
  query = '',
): Promise<{ status: number; body: { code?: number; message?: string; details?: unknown[]; id?: string; email?: string }; challenge: string | null }> {
  const res = await fetch(`${world.url}${path}${query}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  return { status: res.status, body: (await res.json()) as never, challenge: res.headers.get('www-authenticate') };
}

beforeAll(async () => {
  world = await startWorld();
  dir = await mkdtemp(join(tmpdir(), 'lanyard-echo-e2e-'));
  keyFiles['vendor-jwt'] = await createKeyFile('vendor-jwt', ['--scheme', 'vendor-jwt']);
}, 60_000);
afterAll(async () => world?.stop());

describe('echo send with an API key', () => {
  it('echoes the message (text and --json) with LANYARD_API_KEY', async () => {
    const r = await run(['echo', 'send', 'hello world'], { env: { LANYARD_API_KEY: SEEDED_KEY } });
    expect(r).toMatchObject({ code: 0, stdout: 'hello world\n' });
    const j = await run(['echo', 'send', '--stdin', '--json'], { env: { LANYARD_API_KEY: SEEDED_KEY }, input: 'line one\nline two\n' });
    expect(j.code, j.stderr).toBe(0);
    expect(JSON.parse(j.stdout)).toEqual({ message: 'line one\nline two' });
  });

  it('stores a key from stdin, shows it masked, uses it, deletes it', async () => {
    const empty = await run(['echo', 'key', 'set'], { input: '' });
    expect(empty).toMatchObject({ code: 2 });
    expect(empty.stderr).toContain('no API key on stdin');
    const created = (await world.admin('echo/api-key', { name: 'e2e' })) as { key: string };
    const set = await run(['echo', 'key', 'set'], { input: `${created.key}\n` });
    expect(set.code, set.stderr).toBe(0);
    const status = await run(['echo', 'key', 'status', '--json']);
    expect(JSON.parse(status.stdout)).toMatchObject({ configured: true, source: 'file', key: `${created.key.slice(0, 4)}…${created.key.slice(-4)}` });
    expect(status.stdout + status.stderr + set.stdout + set.stderr).not.toContain(created.key);
    expect((await run(['echo', 'send', 'stored'])).stdout).toBe('stored\n');
    await world.admin('echo/api-key-delete', { key: created.key });
    expect((await run(['echo', 'send', 'revoked'])).stderr).toContain('API key not valid');
    expect((await run(['echo', 'key', 'delete'])).code).toBe(0);
    const after = await run(['echo', 'key', 'status', '--json']);
    expect(after.code).toBe(4);
    expect(JSON.parse(after.stdout)).toMatchObject({ configured: false });
  });

  it('gateway: key in query key or api_key or header x-api-key; errors in the gateway shape', async () => {
    const post = (q: string, headers: Record<string, string> = {}) =>
      fetch(`${world.url}/echo${q}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: '{"message":"m"}' });
    for (const res of [await post(`?api_key=${SEEDED_KEY}`), await post('', { 'x-api-key': SEEDED_KEY })]) {
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ message: 'm' });
    }
    const missing = await post('');
    expect(missing.status).toBe(401);
    expect(await missing.json()).toEqual({
      code: 16,
      message:
        "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.",
      details: [{ '@type': 'type.googleapis.com/google.rpc.DebugInfo', stackEntries: [], detail: 'service_control' }],
    });
    const bad = await post('?key=nope-nope');
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ code: 3, message: 'API key not valid. Please pass a valid API key.' });
  });
});

describe('the API description', () => {
  it('serves Swagger 2.0, version 1.0.0, four operations and six security definitions with the emulator values', async () => {
    const doc = (await (await fetch(`${world.url}/swagger.json`)).json()) as Record<string, any>;
    expect(doc.swagger).toBe('2.0');
    expect(doc.info.version).toBe('1.0.0');
    expect(doc.host).toBe(new URL(world.url).host);
    const ops = Object.values(doc.paths as Record<string, Record<string, { operationId: string }>>).flatMap((p) => Object.values(p).map((o) => o.operationId));
    expect(ops.sort()).toEqual(['authInfoAppPlatform', 'authInfoVendorIdToken', 'auth_info_vendor_jwt', 'echo']);
    expect(Object.keys(doc.securityDefinitions).sort()).toEqual([
      'api_key',
      'app_platform_idp',
      'platform_default_service_account',
      'service_account',
      'vendor_id_token',
      'vendor_jwt',
    ]);
    expect(doc.securityDefinitions.api_key).toEqual({ type: 'apiKey', name: 'key', in: 'query' });
    expect(doc.securityDefinitions.vendor_jwt).toMatchObject({
      type: 'oauth2',
      flow: 'implicit',
      authorizationUrl: '',
      'x-vendor-issuer': keyFiles['vendor-jwt'].data.client_email,
      'x-vendor-jwks_uri': `${world.url}/service_accounts/v1/jwk/${encodeURIComponent(keyFiles['vendor-jwt'].data.client_email)}`,
      'x-vendor-audiences': AUDIENCE,
    });
    expect(doc.securityDefinitions.vendor_id_token['x-vendor-issuer']).toBe(`${world.url}/idp`);
    expect(doc.securityDefinitions.app_platform_idp).toMatchObject({
      'x-vendor-issuer': `${world.url}/app-platform/lanyard-demo`,
      'x-vendor-audiences': 'lanyard-demo',
    });
    expect(doc.paths['/auth/info/vendorjwt'].get.security).toEqual([{ vendor_jwt: [] }, { platform_default_service_account: [] }, { service_account: [] }]);
  });
});

describe.each(['jwk', 'x509'] as const)('service-account schemes with a %s JWKS', (format) => {
  beforeAll(async () => {
    for (const scheme of SCHEMES) await world.admin('echo/definition', { name: DEFINITION[scheme], jwksFormat: format });
  });

  it('id-token and app-platform tokens of the emulator are accepted', async () => {
    await world.admin('echo/definition', { name: 'vendor_id_token', jwksFormat: format });
    await world.admin('echo/definition', { name: 'app_platform_idp', jwksFormat: format });
    const id = (await world.admin('echo/id-token', { email: 'grace@lanyard.test' })) as { id_token: string };
    const r1 = await authInfo('/auth/info/vendoridtoken', id.id_token);
    expect(r1).toMatchObject({ status: 200, body: { email: 'grace@lanyard.test' } });
    expect(r1.body.id).toMatch(/^\d{21}$/);
    const app = (await world.admin('echo/app-token', { email: 'ada@lanyard.test' })) as { id_token: string };
    expect(await authInfo('/auth/info/appplatform', app.id_token)).toMatchObject({ status: 200, body: { email: 'ada@lanyard.test' } });
    // Tokens are bound to their method: an id token is no app-platform token.
    expect(await authInfo('/auth/info/appplatform', id.id_token)).toMatchObject({
      status: 401,
      body: { message: 'JWT validation failed: Issuer not allowed' },
    });
  });
});
