/**
 * `lanyard echo send|auth-info|token` as run functions against the
 * in-process emulator's gateway (formerly spawned end to end): the key kept
 * out of every output, refusals (exit 4, exit 1 for a 403, exit 2 for bad
 * input), the three service-account schemes against both JWKS formats, the
 * gateway's refusals of the tokens the command sends, key rotation and
 * caching, and time (skew, expiry, the key cache). The emulator keeps its
 * state from test to test; the time test runs last (it moves the clock).
 * test/e2e/echo.test.ts keeps the wiring (send with stdin, key set from
 * stdin into the file store, `emulator service-account create`) and the
 * gateway's and the API description's own rules.
 */
import { createPrivateKey } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { runEchoAuthInfo, runEchoToken } from '../../../../src/cli/commands/echo/auth-info.js';
import type { EchoTokenOptions } from '../../../../src/cli/commands/echo/options.js';
import { runEchoSend } from '../../../../src/cli/commands/echo/send.js';
import { type RunOptions, useEmulatorCommands } from '../on-emulator.js';

const on = useEmulatorCommands({}, { resetEach: false });
const SEEDED_KEY = 'AIzaSyLanyardEmulatorEchoKey0000000001';
const AUDIENCE = 'echo-api.lanyard.test';
const SCHEMES = ['vendor-jwt', 'service-account', 'default-service-account'] as const;
const DEFINITION = { 'vendor-jwt': 'vendor_jwt', 'service-account': 'service_account', 'default-service-account': 'platform_default_service_account' } as const;

interface KeyFile {
  client_email: string;
  private_key_id: string;
  private_key: string;
}
let dir: string;
const keyFiles = {} as Record<(typeof SCHEMES)[number] | 'stranger', { path: string; data: KeyFile }>;

async function createKeyFile(name: string, body: Record<string, unknown>): Promise<{ path: string; data: KeyFile }> {
  const data = (await on.emu.admin('echo', 'service-account', body)) as KeyFile;
  const path = join(dir, `${name}.json`);
  await writeFile(path, JSON.stringify(data), { mode: 0o600 });
  return { path, data };
}
async function mint(key: KeyFile, claims: Record<string, unknown>, header: Record<string, unknown> = {}, alg = 'RS256'): Promise<string> {
  const now = Math.floor(on.emu.now() / 1000);
  return new SignJWT({ iss: key.client_email, sub: key.client_email, email: key.client_email, aud: AUDIENCE, iat: now, exp: now + 3600, ...claims })
    .setProtectedHeader({ alg, kid: key.private_key_id, ...header })
    .sign(createPrivateKey(key.private_key));
}
async function authInfo(path: string, token?: string, query = '') {
  const res = await fetch(`${on.emu.url}${path}${query}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  return {
    status: res.status,
    body: (await res.json()) as { code?: number; message?: string; id?: string; email?: string },
    challenge: res.headers.get('www-authenticate'),
  };
}
const info = (o: Partial<EchoTokenOptions>, r: RunOptions = {}) => on.run((c) => runEchoAuthInfo(c, { scheme: 'service-account', ...o }), r);
const definition = (name: string, jwksFormat: string) => on.emu.admin('echo', 'definition', { name, jwksFormat });

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lanyard-echo-unit-'));
  for (const scheme of SCHEMES) keyFiles[scheme] = await createKeyFile(scheme, { scheme });
  keyFiles.stranger = await createKeyFile('stranger', { email: 'stranger@elsewhere.example.test' });
});

describe('echo send with an API key', () => {
  it('never shows the key: not in stdout, stderr or the --debug trace, success or refusal', async () => {
    const ok = await on.run((c) => runEchoSend(c, 'traced', {}), { env: { LANYARD_API_KEY: SEEDED_KEY }, globals: { debug: true } });
    expect(ok.code).toBe(0);
    expect(ok.stdout).toBe('traced\n');
    expect(ok.stderr).toContain('/echo?key=[REDACTED]');
    const badKey = 'AIzaSyNotAValidKeyButStillSecret0000';
    const bad = await on.run((c) => runEchoSend(c, 'traced', {}), { env: { LANYARD_API_KEY: badKey }, globals: { debug: true } });
    expect(bad.code).toBe(4);
    for (const [r, key] of [
      [ok, SEEDED_KEY],
      [bad, badKey],
    ] as const) {
      // What the command wrote, before main's own redaction.
      expect(r.stdout + r.io.stderrText()).not.toContain(key);
      expect(r.stdout + r.io.stderrText()).not.toContain(key.slice(6, -4));
    }
  });

  it('refuses a missing key (client side) and a bad key (gateway message), exit 4', async () => {
    const none = await on.run((c) => runEchoSend(c, 'x', {}));
    expect(none.code).toBe(4);
    expect(none.stderr).toMatch(/no API key for the echo API at 127\.0\.0\.1:\d+/);
    const bad = await on.run((c) => runEchoSend(c, 'x', {}), { env: { LANYARD_API_KEY: 'wrong-key-1234' } });
    expect(bad.code).toBe(4);
    expect(bad.stderr).toContain('the echo API refused the API key (HTTP 400): API key not valid. Please pass a valid API key.');
  });
});

describe.each(['jwk', 'x509'] as const)('service-account schemes with a %s JWKS', (format) => {
  beforeAll(async () => {
    for (const scheme of SCHEMES) await definition(DEFINITION[scheme], format);
  });

  it.each(SCHEMES)('%s: auth-info prints {id, email} of the account', async (scheme) => {
    const { path, data } = keyFiles[scheme];
    const r = await info({ scheme, credentials: path }, { format: 'json' });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ id: data.client_email, email: data.client_email });
    const uri = (on.emu.info() as { echo: { definitions: Record<string, { jwksUri: string }> } }).echo.definitions[DEFINITION[scheme]]!.jwksUri;
    expect(uri).toContain(format === 'jwk' ? '/service_accounts/v1/jwk/' : '/service_accounts/v1/metadata/x509/');
    const stats = (await on.emu.admin('echo', 'stats')) as { jwksFetches: Record<string, number> };
    expect(stats.jwksFetches[uri]).toBeGreaterThanOrEqual(1);
  });

  it('refusals: wrong issuer, audience, kid, signature, subject, and not-yet-valid', async () => {
    const sa = keyFiles['service-account'];
    const stranger = await info({ credentials: keyFiles.stranger.path });
    expect(stranger.code).toBe(4);
    expect(stranger.stderr).toContain('(HTTP 401): JWT validation failed: Issuer not allowed');
    const aud = await info({ credentials: sa.path, audience: 'https://other-api.lanyard.test/' });
    expect(aud.code).toBe(1);
    expect(aud.stderr).toContain('(HTTP 403): JWT validation failed: Audience not allowed');
    // Scheme and trailing slash are stripped before comparing.
    const stripped = await info({ credentials: sa.path, audience: `https://${AUDIENCE}/` }, { format: 'json' });
    expect(stripped.code, stripped.stderr).toBe(0);

    const unknownKid = join(dir, `unknown-kid-${format}.json`);
    await writeFile(unknownKid, JSON.stringify({ ...sa.data, private_key_id: '0123456789abcdef0123456789abcdef01234567' }));
    const kid = await info({ credentials: unknownKid });
    expect(kid.code).toBe(4);
    expect(kid.stderr).toContain('JWT validation failed: KEY_RETRIEVAL_ERROR');
    const forged = join(dir, `forged-${format}.json`);
    await writeFile(forged, JSON.stringify({ ...sa.data, private_key: keyFiles.stranger.data.private_key }));
    const sig = await info({ credentials: forged });
    expect(sig.code).toBe(4);
    expect(sig.stderr).toContain('JWT validation failed: BAD_SIGNATURE');

    expect(await authInfo('/auth/info/vendorjwt', await mint(sa.data, { sub: 'someone-else@lanyard.test' }))).toMatchObject({
      status: 401,
      challenge: 'Bearer, error="invalid_token"',
      body: { code: 16, message: 'JWT validation failed: BAD_SUBJECT' },
    });
    const now = Math.floor(on.emu.now() / 1000);
    expect(await authInfo('/auth/info/vendorjwt', await mint(sa.data, { nbf: now + 120 }))).toMatchObject({
      status: 401,
      body: { message: 'JWT validation failed: TIME_CONSTRAINT_FAILURE' },
    });
    expect(await authInfo('/auth/info/vendorjwt', await mint(sa.data, { nbf: now + 30 }))).toMatchObject({ status: 200 });
    expect(await authInfo('/auth/info/vendorjwt', await mint(sa.data, { exp: now - 120 }))).toMatchObject({
      status: 401,
      body: { message: 'JWT validation failed: TIME_CONSTRAINT_FAILURE' },
    });
    const wrongClient = (await on.emu.admin('echo', 'id-token', { clientId: 'other-app.apps.lanyard.test' })) as { id_token: string };
    expect(await authInfo('/auth/info/vendoridtoken', wrongClient.id_token)).toMatchObject({
      status: 403,
      challenge: 'Bearer, error="invalid_token"',
      body: { code: 7, message: 'JWT validation failed: Audience not allowed' },
    });
    const otherProject = (await on.emu.admin('echo', 'app-token', { project: 'lanyard-other' })) as { id_token: string };
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
    const es = await createKeyFile('es256', { scheme: 'vendor-jwt', algorithm: 'ES256' });
    const r = await info({ scheme: 'vendor-jwt', credentials: es.path });
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(`${es.path}: private_key is an EC key; RS256 needs an RSA key`);
    const t = await mint(es.data, {}, {}, 'ES256');
    await definition('vendor_jwt', 'jwk');
    expect(await authInfo('/auth/info/vendorjwt', t)).toMatchObject({ status: 200, body: { id: es.data.client_email } });
    await definition('vendor_jwt', 'x509');
    expect(await authInfo('/auth/info/vendorjwt', t)).toMatchObject({ status: 401, body: { message: 'JWT validation failed: KEY_RETRIEVAL_ERROR' } });
  });

  it('a new key of a trusted account works at once: the gateway refetches on an unknown kid', async () => {
    await definition('service_account', 'x509');
    expect((await info({ credentials: keyFiles['service-account'].path })).code).toBe(0);
    const uri = `${on.emu.url}/service_accounts/v1/metadata/x509/${encodeURIComponent(keyFiles['service-account'].data.client_email)}`;
    const fetches = async () => ((await on.emu.admin('echo', 'stats')) as { jwksFetches: Record<string, number> }).jwksFetches[uri] ?? 0;
    const before = await fetches();
    const rotated = await createKeyFile('rotated', { scheme: 'service-account' });
    const r = await info({ credentials: rotated.path }, { format: 'json' });
    expect(r.code, r.stderr).toBe(0);
    expect(await fetches()).toBe(before + 1);
    // The old key is still published; the cache answers without fetching.
    expect((await info({ credentials: keyFiles['service-account'].path })).code).toBe(0);
    expect(await fetches()).toBe(before + 1);
  });

  it('bad inputs get one line and exit 2: missing key file, audience missing', async () => {
    const missing = await info({ scheme: 'vendor-jwt', credentials: join(dir, 'nope.json') });
    expect(missing).toMatchObject({ code: 2 });
    expect(missing.stderr.trim()).toBe(`cannot read the key file ${join(dir, 'nope.json')}: no such file`);
    const noAud = await info({ scheme: 'vendor-jwt', credentials: keyFiles['vendor-jwt'].path }, { settings: { 'echo.audience': undefined } });
    expect(noAud.code).toBe(2);
    expect(noAud.stderr).toMatch(/^no audience\npass --audience, or set echo.audience in the profile/);
  });
});

describe('time (runs last: it moves the emulator clock)', () => {
  it('expiry counts 60 s of skew; a deleted key stays trusted until the 300 s key cache expires', async () => {
    await definition('service_account', 'x509');
    const sa = keyFiles['service-account'];
    const tok = await on.run((c) => runEchoToken(c, { scheme: 'service-account', credentials: sa.path, lifetime: '10s' }));
    expect(tok.code, tok.stderr).toBe(0);
    const token = tok.stdout.trim();
    expect(await authInfo('/auth/info/vendorjwt', token)).toMatchObject({ status: 200 });
    on.emu.advance('65s');
    expect(await authInfo('/auth/info/vendorjwt', token)).toMatchObject({ status: 200 });
    on.emu.advance('10s');
    // The command's clock is the real one, 75 s behind the emulator's now (as a spawned CLI's is): its 10 s token is already expired there.
    const behind = await info({ credentials: sa.path, lifetime: '10s' }, { clockOffsetMs: -75_000 });
    expect(behind.code).toBe(4);
    expect(behind.stderr).toContain('JWT validation failed: TIME_CONSTRAINT_FAILURE');
    expect(behind.stderr).toContain('expired or is not valid yet');

    const doomed = await createKeyFile('doomed', { scheme: 'service-account' });
    expect((await info({ credentials: doomed.path })).code).toBe(0);
    await on.emu.admin('echo', 'key-delete', { kid: doomed.data.private_key_id });
    expect((await info({ credentials: doomed.path })).code).toBe(0);
    on.emu.advance('301s');
    const gone = await info({ credentials: doomed.path });
    expect(gone.code).toBe(4);
    expect(gone.stderr).toContain('KEY_RETRIEVAL_ERROR');
  });
});
