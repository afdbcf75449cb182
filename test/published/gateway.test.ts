/**
 * The echo gateway's refusals against the gateway's own source (the vendored
 * extract gateway/errors.json: the error body's schema, and the status, code,
 * message and challenge of each refusal, with the repository and commit they
 * were read from): an unknown method, a CORS pre-flight, a call without a key
 * and without a token, and a token that is not valid.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { useInProcessEmulator } from '../e2e/in-process-emulator.js';
import { jsonSchemaValidator } from './validate.js';

interface Refusal {
  status: number;
  code: number;
  message?: string;
  messagePrefix?: string;
  detail: string;
  wwwAuthenticate?: string;
}
const extract = JSON.parse(readFileSync(new URL('./gateway/errors.json', import.meta.url), 'utf8')) as {
  schema: object;
  refusals: Record<string, Refusal>;
};
const validate = jsonSchemaValidator().compile(extract.schema);
const ref = useInProcessEmulator();

async function expectRefusal(name: string, path: string, init: RequestInit = {}): Promise<void> {
  const want = extract.refusals[name]!;
  const res = await fetch(`${ref.emu.urls.echo.base}${path}`, init);
  const body = (await res.json()) as { code: number; message: string; details: Array<{ detail: string }> };
  expect(validate(body), `${name}: ${JSON.stringify(validate.errors)}`).toBe(true);
  expect(res.status, name).toBe(want.status);
  expect(body.code, name).toBe(want.code);
  if (want.message !== undefined) expect(body.message, name).toBe(want.message);
  if (want.messagePrefix !== undefined) expect(body.message.startsWith(want.messagePrefix), name).toBe(true);
  expect(body.details[0].detail, name).toBe(want.detail);
  expect(res.headers.get('www-authenticate'), name).toBe(want.wwwAuthenticate ?? null);
  expect(res.headers.get('content-type'), name).toMatch(/^application\/json/);
}

describe('the gateway refuses as its source does (cloudendpoints/esp)', () => {
  it('a method the API description does not have: 404, code 5 — another HTTP method on a known path, or another path', async () => {
    const key = ref.emu.fixtures.echo.apiKeys[0]!;
    await expectRefusal('unknownMethod', `/echo?key=${key}`);
    await expectRefusal('unknownMethod', `/echo?key=${key}`, { method: 'PUT', body: '{}' });
    await expectRefusal('unknownMethod', '/echo/more');
    await expectRefusal('unknownMethod', '/auth/info/nothing');
    await expectRefusal('unknownMethod', '/auth/info/vendorjwt', { method: 'DELETE' });
  });

  it('a CORS pre-flight: 403, code 7, with a Bearer challenge (the description does not allow CORS)', async () => {
    const preflight = { method: 'OPTIONS', headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' } };
    await expectRefusal('corsPreflight', '/echo', preflight);
    await expectRefusal('corsPreflight', '/auth/info/vendoridtoken', preflight);
  });

  it('no API key: 401, code 16, WWW-Authenticate: Bearer; no token, or one that is not valid, on an auth-info method', async () => {
    await expectRefusal('unregisteredCaller', '/echo', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"message":"hi"}' });
    await expectRefusal('missingToken', '/auth/info/vendorjwt');
    await expectRefusal('invalidToken', '/auth/info/vendorjwt', { headers: { authorization: 'Bearer not.a.jwt' } });
  });

  it('what it accepts is unchanged: the echo with a key', async () => {
    const res = await fetch(`${ref.emu.urls.echo.base}/echo?key=${ref.emu.fixtures.echo.apiKeys[0]}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"message":"hi"}',
    });
    expect([res.status, await res.json()]).toEqual([200, { message: 'hi' }]);
  });
});
