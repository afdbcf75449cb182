/**
 * Echo API end to end: the built CLI against the emulator's gateway over
 * HTTP on 127.0.0.1 — API key, the three service-account schemes against both
 * JWKS formats, the identity-token schemes with emulator-issued tokens, and
 * every refusal of the gateway.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPrivateKey } from 'node:crypto';
import { SignJWT } from 'jose';
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

async function mint(key: KeyFile, claims: Record<string, unknown>, header: Record<string, unknown> = {}, alg = 'RS256'): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ iss: key.client_email, sub: key.client_email, email: key.client_email, aud: AUDIENCE, iat: now, exp: now + 3600, ...claims })
    .setProtectedHeader({ alg, kid: key.private_key_id, ...header })
    .sign(createPrivateKey(key.private_key));
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
  for (const scheme of SCHEMES) keyFiles[scheme] = await createKeyFile(scheme, ['--scheme', scheme]);
  keyFiles.stranger = await createKeyFile('stranger', ['--email', 'stranger@elsewhere.example.test']);
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

  it('never shows the key: not in stdout, stderr or the --debug trace, success or refusal', async () => {
    const ok = await run(['--debug', 'echo', 'send', 'traced'], { env: { LANYARD_API_KEY: SEEDED_KEY } });
    expect(ok.code).toBe(0);
    expect(ok.stderr).toContain('/echo?key=[REDACTED]');
    const badKey = 'AIzaSyNotAValidKeyButStillSecret0000';
    const bad = await run(['--debug', 'echo', 'send', 'traced'], { env: { LANYARD_API_KEY: badKey } });
    expect(bad.code).toBe(4);
    for (const [r, key] of [
      [ok, SEEDED_KEY],
      [bad, badKey],
    ] as const) {
      expect(r.stdout + r.stderr).not.toContain(key);
      expect(r.stdout + r.stderr).not.toContain(key.slice(6, -4));
    }
  });

  it('refuses a missing key (client side) and a bad key (gateway message), exit 4', async () => {
    const none = await run(['echo', 'send', 'x']);
    expect(none.code).toBe(4);
    expect(none.stderr).toMatch(/no API key for the echo API at 127\.0\.0\.1:\d+/);
    const bad = await run(['echo', 'send', 'x'], { env: { LANYARD_API_KEY: 'wrong-key-1234' } });
    expect(bad.code).toBe(4);
    expect(bad.stderr).toContain('the echo API refused the API key (HTTP 400): API key not valid. Please pass a valid API key.');
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

  it.each(SCHEMES)('%s: auth-info prints {id, email} of the account', async (scheme) => {
    const { path, data } = keyFiles[scheme];
    const r = await run(['echo', 'auth-info', '--scheme', scheme, '--credentials', path, '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ id: data.client_email, email: data.client_email });
    const info = (await world.admin('info', undefined, 'GET')) as { echo: { definitions: Record<string, { jwksUri: string }> } };
    const uri = info.echo.definitions[DEFINITION[scheme]]!.jwksUri;
    expect(uri).toContain(format === 'jwk' ? '/service_accounts/v1/jwk/' : '/service_accounts/v1/metadata/x509/');
    const stats = (await world.admin('echo/stats', {})) as { jwksFetches: Record<string, number> };
    expect(stats.jwksFetches[uri]).toBeGreaterThanOrEqual(1);
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

  it('refusals: wrong issuer, audience, kid, signature, subject, and not-yet-valid', async () => {
    const sa = keyFiles['service-account'];
    const strangerRun = await run(['echo', 'auth-info', '--scheme', 'service-account', '-c', keyFiles.stranger.path]);
    expect(strangerRun.code).toBe(4);
    expect(strangerRun.stderr).toContain('(HTTP 401): JWT validation failed: Issuer not allowed');

    const aud = await run(['echo', 'auth-info', '--scheme', 'service-account', '-c', sa.path, '--audience', 'https://other-api.lanyard.test/']);
    expect(aud.code).toBe(1);
    expect(aud.stderr).toContain('(HTTP 403): JWT validation failed: Audience not allowed');
    // Scheme and trailing slash are stripped before comparing.
    const stripped = await run(['echo', 'auth-info', '--scheme', 'service-account', '-c', sa.path, '--audience', `https://${AUDIENCE}/`, '--json']);
    expect(stripped.code, stripped.stderr).toBe(0);

    const unknownKid = join(dir, `unknown-kid-${format}.json`);
    await writeFile(unknownKid, JSON.stringify({ ...sa.data, private_key_id: '0123456789abcdef0123456789abcdef01234567' }));
    const kid = await run(['echo', 'auth-info', '--scheme', 'service-account', '-c', unknownKid]);
    expect(kid.code).toBe(4);
    expect(kid.stderr).toContain('JWT validation failed: KEY_RETRIEVAL_ERROR');

    const forged = join(dir, `forged-${format}.json`);
    await writeFile(forged, JSON.stringify({ ...sa.data, private_key: keyFiles.stranger.data.private_key }));
    const sig = await run(['echo', 'auth-info', '--scheme', 'service-account', '-c', forged]);
    expect(sig.code).toBe(4);
    expect(sig.stderr).toContain('JWT validation failed: BAD_SIGNATURE');

    const otherSub = await authInfo('/auth/info/vendorjwt', await mint(sa.data, { sub: 'someone-else@lanyard.test' }));
    expect(otherSub).toMatchObject({
      status: 401,
      challenge: 'Bearer, error="invalid_token"',
      body: { code: 16, message: 'JWT validation failed: BAD_SUBJECT' },
    });

    const now = Math.floor(Date.now() / 1000);
    expect(await authInfo('/auth/info/vendorjwt', await mint(sa.data, { nbf: now + 120 }))).toMatchObject({
      status: 401,
      body: { message: 'JWT validation failed: TIME_CONSTRAINT_FAILURE' },
    });
    expect(await authInfo('/auth/info/vendorjwt', await mint(sa.data, { nbf: now + 30 }))).toMatchObject({ status: 200 });
    expect(await authInfo('/auth/info/vendorjwt', await mint(sa.data, { exp: now - 120 }))).toMatchObject({
      status: 401,
      body: { message: 'JWT validation failed: TIME_CONSTRAINT_FAILURE' },
    });

    const wrongClient = (await world.admin('echo/id-token', { clientId: 'other-app.apps.lanyard.test' })) as { id_token: string };
    expect(await authInfo('/auth/info/vendoridtoken', wrongClient.id_token)).toMatchObject({
      status: 403,
      challenge: 'Bearer, error="invalid_token"',
      body: { code: 7, message: 'JWT validation failed: Audience not allowed' },
    });
    const otherProject = (await world.admin('echo/app-token', { project: 'lanyard-other' })) as { id_token: string };
    expect(await authInfo('/auth/info/appplatform', otherProject.id_token)).toMatchObject({
      status: 401,
      body: { message: 'JWT validation failed: Issuer not allowed' },
    });
  });
});

describe('gateway details', () => {
  it('missing token → 401 with a plain Bearer challenge; access_token query parameter works', async () => {
    expect(await authInfo('/auth/info/vendorjwt')).toMatchObject({
      status: 401,
      challenge: 'Bearer',
      body: { code: 16, message: 'JWT validation failed: Missing or invalid credentials' },
    });
    expect(await authInfo('/auth/info/vendorjwt', 'not-a-jwt')).toMatchObject({ status: 401, body: { message: 'JWT validation failed: BAD_FORMAT' } });
    const t = await mint(keyFiles['service-account'].data, {});
    expect(await authInfo('/auth/info/vendorjwt', undefined, `?access_token=${t}`)).toMatchObject({ status: 200 });
  });

  it('ES256 keys: the client refuses them (RS256 only); the gateway accepts them from JWK sets only', async () => {
    const es = await createKeyFile('es256', ['--scheme', 'vendor-jwt', '--algorithm', 'ES256']);
    const r = await run(['echo', 'auth-info', '--scheme', 'vendor-jwt', '-c', es.path]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(`${es.path}: private_key is an EC key; RS256 needs an RSA key`);
    const t = await mint(es.data, {}, {}, 'ES256');
    await world.admin('echo/definition', { name: 'vendor_jwt', jwksFormat: 'jwk' });
    expect(await authInfo('/auth/info/vendorjwt', t)).toMatchObject({ status: 200, body: { id: es.data.client_email } });
    await world.admin('echo/definition', { name: 'vendor_jwt', jwksFormat: 'x509' });
    expect(await authInfo('/auth/info/vendorjwt', t)).toMatchObject({ status: 401, body: { message: 'JWT validation failed: KEY_RETRIEVAL_ERROR' } });
  });

  it('a new key of a trusted account works at once: the gateway refetches on an unknown kid', async () => {
    await world.admin('echo/definition', { name: 'service_account', jwksFormat: 'x509' });
    const first = await run(['echo', 'auth-info', '--scheme', 'service-account', '-c', keyFiles['service-account'].path]);
    expect(first.code).toBe(0);
    const uri = `${world.url}/service_accounts/v1/metadata/x509/${encodeURIComponent(keyFiles['service-account'].data.client_email)}`;
    const fetches = async () => ((await world.admin('echo/stats', {})) as { jwksFetches: Record<string, number> }).jwksFetches[uri] ?? 0;
    const before = await fetches();
    const rotated = await createKeyFile('rotated', ['--scheme', 'service-account']);
    const r = await run(['echo', 'auth-info', '--scheme', 'service-account', '-c', rotated.path, '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(await fetches()).toBe(before + 1);
    // The old key is still published; the cache answers without fetching.
    expect((await run(['echo', 'auth-info', '--scheme', 'service-account', '-c', keyFiles['service-account'].path])).code).toBe(0);
    expect(await fetches()).toBe(before + 1);
  });

  it('bad inputs get one line and exit 2: missing key file, audience missing', async () => {
    const missing = await run(['echo', 'auth-info', '--scheme', 'vendor-jwt', '-c', join(dir, 'nope.json')]);
    expect(missing).toMatchObject({ code: 2 });
    expect(missing.stderr.trim()).toBe(`cannot read the key file ${join(dir, 'nope.json')}: no such file`);
    expect((await run(['config', 'unset', 'echo.audience'])).code).toBe(0);
    const noAud = await run(['echo', 'auth-info', '--scheme', 'vendor-jwt', '-c', keyFiles['vendor-jwt'].path]);
    expect((await run(['config', 'set', 'echo.audience', AUDIENCE])).code).toBe(0);
    expect(noAud.code).toBe(2);
    expect(noAud.stderr).toMatch(/^no audience\npass --audience, or set echo.audience in the profile/);
  });
});

describe('time (runs last: it moves the emulator clock)', () => {
  it('expiry counts 60 s of skew; a deleted key stays trusted until the 300 s key cache expires', async () => {
    await world.admin('echo/definition', { name: 'service_account', jwksFormat: 'x509' });
    const sa = keyFiles['service-account'];
    const tok = await run(['echo', 'token', '--scheme', 'service-account', '-c', sa.path, '--lifetime', '10s']);
    expect(tok.code, tok.stderr).toBe(0);
    const token = tok.stdout.trim();
    expect(await authInfo('/auth/info/vendorjwt', token)).toMatchObject({ status: 200 });
    await world.admin('advance', { seconds: 65 });
    expect(await authInfo('/auth/info/vendorjwt', token)).toMatchObject({ status: 200 });
    await world.admin('advance', { seconds: 10 });
    const late = await run(['echo', 'auth-info', '--scheme', 'service-account', '-c', sa.path, '--lifetime', '10s']);
    expect(late.code).toBe(4);
    expect(late.stderr).toContain('JWT validation failed: TIME_CONSTRAINT_FAILURE');
    expect(late.stderr).toContain('expired or is not valid yet');

    const doomed = await createKeyFile('doomed', ['--scheme', 'service-account']);
    expect((await run(['echo', 'auth-info', '--scheme', 'service-account', '-c', doomed.path])).code).toBe(0);
    await world.admin('echo/key-delete', { kid: doomed.data.private_key_id });
    expect((await run(['echo', 'auth-info', '--scheme', 'service-account', '-c', doomed.path])).code).toBe(0);
    await world.admin('advance', { seconds: 301 });
    const gone = await run(['echo', 'auth-info', '--scheme', 'service-account', '-c', doomed.path]);
    expect(gone.code).toBe(4);
    expect(gone.stderr).toContain('KEY_RETRIEVAL_ERROR');
  });
});
