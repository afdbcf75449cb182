import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../../fakes/clock.js';
import { StubHttp } from '../../../fakes/stub-http.js';
import { MemoryCredentialStore } from '../../../fakes/credential-store.js';
import { HttpClient } from '../../../../src/core/http/client.js';
import { AuthRequiredError, HttpError, type LanyardError } from '../../../../src/core/errors.js';
import { fetchAuthInfo, refusal, sendEcho } from '../../../../src/core/echo/api.js';
import { fixedCredential } from '../../../../src/core/auth/provider.js';
import { apiKeyAccount, apiKeyCredential, maskSecret, normaliseApiKey, resolveApiKey } from '../../../../src/core/echo/credentials.js';

const bearer = (token: string) => fixedCredential({ scheme: 'bearer', token }, 'test');

const KEY = 'AIzaSyTestKeyThatMustNeverLeak000000';
const gatewayError = (code: number, message: string) => ({
  code,
  message,
  details: [{ '@type': 'type.googleapis.com/google.rpc.DebugInfo', stackEntries: [], detail: 'x' }],
});

describe('echo API calls', () => {
  let stub: StubHttp;
  let http: HttpClient;
  let trace: string[];
  beforeEach(async () => {
    stub = await StubHttp.start();
    trace = [];
    http = new HttpClient({ clock: new FakeClock(), userAgent: 'test', trace: (l) => trace.push(l) });
  });
  afterEach(async () => {
    await http.close();
    await stub.close();
  });

  it('POSTs {message} with the key as query parameter "key", and never traces it', async () => {
    stub.on('POST', '/echo', (req) => ({ body: { message: JSON.parse(req.body).message } }));
    expect(await sendEcho(http, { baseUrl: stub.url, auth: apiKeyCredential({ key: KEY, source: 'test' }), message: 'hi there' })).toEqual({
      message: 'hi there',
    });
    const req = stub.requests[0]!;
    expect(req.url.searchParams.get('key')).toBe(KEY);
    expect(JSON.parse(req.body)).toEqual({ message: 'hi there' });
    expect(trace.join('\n')).toContain('/echo?key=[REDACTED]');
    expect(trace.join('\n')).not.toContain(KEY);
    stub.verify();
  });

  it('turns a missing-key and a bad-key refusal into exit-4 errors with the server message, without the key', async () => {
    stub.on('POST', '/echo', { status: 400, body: gatewayError(3, 'API key not valid. Please pass a valid API key.') });
    const err = await sendEcho(http, { baseUrl: stub.url, auth: apiKeyCredential({ key: KEY, source: 'test' }), message: 'x' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AuthRequiredError);
    expect((err as Error).message).toBe('the echo API refused the API key (HTTP 400): API key not valid. Please pass a valid API key.');
    expect(`${(err as Error).message} ${(err as LanyardError).hint} ${(err as Error).stack}`).not.toContain(KEY);
    expect(trace.join('\n')).not.toContain(KEY);
  });

  it('sends the bearer token and maps 401/403 refusals with a hint', async () => {
    stub.on('GET', '/auth/info/vendorjwt', (req) => ({ body: { id: 'sub-1', email: req.headers.authorization === 'Bearer tok.en.x' ? 'a@b.c' : 'wrong' } }));
    expect(await fetchAuthInfo(http, { baseUrl: stub.url, path: '/auth/info/vendorjwt', auth: bearer('tok.en.x') })).toEqual({ id: 'sub-1', email: 'a@b.c' });
    expect(trace.join('\n')).not.toContain('tok.en.x');

    stub.on('GET', '/auth/info/vendorjwt', { status: 401, body: gatewayError(16, 'JWT validation failed: TIME_CONSTRAINT_FAILURE') });
    const e401 = await fetchAuthInfo(http, { baseUrl: stub.url, path: '/auth/info/vendorjwt', auth: bearer('t') }).catch((e: unknown) => e);
    expect(e401).toBeInstanceOf(AuthRequiredError);
    expect((e401 as LanyardError).message).toContain('JWT validation failed: TIME_CONSTRAINT_FAILURE');
    expect((e401 as LanyardError).hint).toMatch(/expired or is not valid yet/);

    stub.on('GET', '/auth/info/vendorjwt', { status: 403, body: gatewayError(7, 'JWT validation failed: Audience not allowed') });
    const e403 = await fetchAuthInfo(http, { baseUrl: stub.url, path: '/auth/info/vendorjwt', auth: bearer('t') }).catch((e: unknown) => e);
    expect(e403).not.toBeInstanceOf(AuthRequiredError);
    expect((e403 as LanyardError).code).toBe('forbidden');
    expect((e403 as LanyardError).hint).toBe('the API does not accept this audience');
    expect((e403 as LanyardError).remedy).toMatchObject({ kind: 'set-setting', setting: 'echo.audience', option: '--audience' });
  });
});

describe('echo refusals carry their service', () => {
  it('a refused key or token, a forbidden token and another refusal all say service echo (no service to parse from the message)', () => {
    const refused = (status: number, message: string) => new HttpError(status, 'POST', 'https://echo.test/echo', gatewayError(status, message), {});
    const cases = [
      refusal(refused(401, 'API key not valid'), 'key'),
      refusal(refused(401, 'Jwt issuer is not configured: Issuer not allowed'), 'token'),
      refusal(refused(403, 'Audience not allowed'), 'token'),
      refusal(refused(404, 'no such method'), 'token'),
    ] as LanyardError[];
    expect(cases.map((e) => [e.code, e.service])).toEqual([
      ['auth_required', 'echo'],
      ['auth_required', 'echo'],
      ['forbidden', 'echo'],
      ['http_error', 'echo'],
    ]);
    expect(cases[1]!.hint).toMatch(/does not trust this issuer/);
    // The audience is a setting: a remedy the CLI turns into its flag and `config set`, not a flag named by the library.
    expect([cases[2]!.hint, cases[2]!.remedy]).toEqual([
      'the API does not accept this audience',
      { kind: 'set-setting', setting: 'echo.audience', example: '<audience>', option: '--audience' },
    ]);
  });
});

describe('API key resolution', () => {
  it('prefers LANYARD_API_KEY, else the store (per API host)', async () => {
    const store = new MemoryCredentialStore();
    await store.set(apiKeyAccount('http://127.0.0.1:8080'), 'stored-key-123');
    expect(await resolveApiKey({ envKey: 'env-key-1', store: async () => store, baseUrl: 'http://127.0.0.1:8080' })).toEqual({
      key: 'env-key-1',
      source: 'env:LANYARD_API_KEY',
    });
    expect(await resolveApiKey({ store: async () => store, baseUrl: 'http://127.0.0.1:8080/' })).toEqual({ key: 'stored-key-123', source: 'memory' });
    expect(await resolveApiKey({ store: async () => store, baseUrl: 'http://127.0.0.1:9090' })).toBeUndefined();
    expect(apiKeyAccount('http://127.0.0.1:8080')).toBe('echo:apikey:127.0.0.1:8080');
  });

  it('normalises and masks keys', () => {
    expect(normaliseApiKey('  abc123xyz\n')).toBe('abc123xyz');
    expect(() => normaliseApiKey('\n')).toThrow('no API key on stdin');
    expect(() => normaliseApiKey('two words')).toThrow(/single word/);
    expect(maskSecret(KEY)).toBe('AIza…0000');
    expect(maskSecret(KEY)).not.toContain(KEY.slice(4, -4));
  });
});
