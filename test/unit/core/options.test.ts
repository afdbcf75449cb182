/**
 * docs/library.md: every error the library throws is a LanyardError, and
 * `validation` covers bad input found before any request. A program without
 * types (plain JavaScript) can hand the entry points anything: a missing
 * callback or a URL without its scheme is a ValidationError naming the
 * option, thrown before a request leaves, and never showing the value.
 */
import { generateKeyPairSync } from 'node:crypto';
import type { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ValidationError } from '../../../src/core/errors.js';
import { HttpClient, buildUrl } from '../../../src/core/http/client.js';
import { runDeviceFlow } from '../../../src/core/hosting/device-flow.js';
import type { DeviceFlowOptions } from '../../../src/core/hosting/device-flow.js';
import { fetchUser } from '../../../src/core/hosting/user.js';
import { fetchRateLimit } from '../../../src/core/hosting/rate-limit.js';
import { authorizeUrl, runWebFlow, type WebFlowOptions } from '../../../src/core/hosting/web-flow.js';
import { fetchAuthInfo, sendEcho } from '../../../src/core/echo/api.js';
import { fixedCredential } from '../../../src/core/auth/provider.js';
import { resolveApiKey } from '../../../src/core/echo/credentials.js';
import { mintServiceAccountJwt } from '../../../src/core/echo/service-account.js';
import { MemoryCredentialStore } from '../../../src/core/credentials/memory-store.js';
import { openCredentialStore, type OpenCredentialStoreOptions } from '../../../src/core/credentials/open.js';
import { findEvent, iterateEvents, type EventsQuery } from '../../../src/core/health/events.js';
import { MailboxClient, type MailboxTarget } from '../../../src/core/mailbox/client.js';
import { inflaterFor } from '../../../src/core/mailbox/inflate.js';
import { callProtocolServer, type ProtocolSessionDeps } from '../../../src/core/protocol/session.js';
import { FakeClock } from '../../fakes/clock.js';
import { StubHttp } from '../../fakes/stub-http.js';

let stub: StubHttp;
let http: HttpClient;
const clock = new FakeClock(Date.UTC(2026, 10, 28));
const SECRET = 'lyp_SECRETSECRET0000000000000000000000001';
const token = { scheme: 'bearer', token: SECRET } as const;

beforeEach(async () => {
  stub = await StubHttp.start();
  http = new HttpClient({ clock, userAgent: 't/1' });
});
afterEach(async () => {
  await http.close();
  await stub.close();
});

/** The error `f` fails with: a ValidationError naming `option`, no secret in it, and no request sent. */
async function refused(f: () => unknown, option: string): Promise<void> {
  const err = await (async () => f())().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ValidationError);
  expect((err as ValidationError).code).toBe('validation');
  expect((err as Error).message).toMatch(new RegExp(`^${option} `));
  expect(JSON.stringify({ m: (err as Error).message, ...(err as object) })).not.toContain('SECRETSECRET');
  expect(stub.requests).toEqual([]);
}

describe('options checked before the first request', () => {
  const device = (o: Partial<DeviceFlowOptions>) => runDeviceFlow({ http, clock, webUrl: stub.url, clientId: 'Iv1.x', onCode: () => undefined, ...o });

  it('runDeviceFlow without onCode sends nothing (it used to POST the device code, then fail with a TypeError)', async () => {
    await refused(() => device({ onCode: undefined as unknown as DeviceFlowOptions['onCode'] }), 'onCode');
  });

  it.each([
    ['example.com', 'webUrl'],
    ['', 'webUrl'],
    [`ftp://u:${SECRET}@example.com`, 'webUrl'],
    [`u:${SECRET}@example.com`, 'webUrl'],
  ])('runDeviceFlow with webUrl %j', async (webUrl, option) => {
    await refused(() => device({ webUrl }), option);
  });

  it('runDeviceFlow without a client id', async () => {
    await refused(() => device({ clientId: undefined as unknown as string }), 'clientId');
  });

  it('fetchUser and fetchRateLimit with an apiUrl without its scheme', async () => {
    await refused(() => fetchUser(http, 'api.example.com/api/v3', token), 'apiUrl');
    await refused(() => fetchRateLimit(http, `api.example.com/api/v3?access_token=${SECRET}`, token), 'apiUrl');
  });

  it('the web flow: a bad webUrl or no openUrl, before the loopback listener starts', async () => {
    const web = { http, clock, clientId: 'Iv1.x', clientSecret: 's', timeoutMs: 1000, webUrl: stub.url, openUrl: () => undefined };
    await refused(() => runWebFlow({ ...web, webUrl: 'example.com' }), 'webUrl');
    await refused(() => runWebFlow({ ...web, openUrl: undefined as unknown as WebFlowOptions['openUrl'] }), 'openUrl');
    await refused(() => authorizeUrl({ webUrl: 'example.com', clientId: 'x', redirectUri: 'http://127.0.0.1/cb', state: 's' }), 'webUrl');
  });

  it('the echo API with a baseUrl missing or without its scheme', async () => {
    const auth = fixedCredential({ scheme: 'query', name: 'key', value: SECRET }, 'test');
    await refused(() => sendEcho(http, { baseUrl: undefined as unknown as string, auth, message: 'hi' }), 'baseUrl');
    await refused(() => fetchAuthInfo(http, { baseUrl: 'echo.example.com', auth, path: '/auth/info/firebase' }), 'baseUrl');
  });

  it('the echo API key and service-account JWT without what they need', async () => {
    await refused(() => resolveApiKey({ baseUrl: stub.url } as unknown as Parameters<typeof resolveApiKey>[0]), 'store');
    await refused(() => resolveApiKey({ store: async () => new MemoryCredentialStore(), baseUrl: 'echo.example.com' }), 'baseUrl');
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const key = { clientEmail: 'sa@p.example', privateKeyId: 'k1', privateKey };
    await refused(() => mintServiceAccountJwt(key, { audience: 'x' } as unknown as Parameters<typeof mintServiceAccountJwt>[1]), 'nowMs');
    await refused(() => mintServiceAccountJwt({ ...key, privateKey: SECRET } as unknown as typeof key, { audience: 'x', nowMs: 0 }), 'privateKey');
    await expect(mintServiceAccountJwt(key, { audience: 'x', nowMs: 0 })).resolves.toMatchObject({ claims: { iat: 0 } });
  });

  it('health events, a mailbox, an inflater and the credential store without what they need', async () => {
    const auth = fixedCredential(token, 'test');
    const q = { subscriptionId: 's', vendor: 'Microsoft', apiVersion: '2022-10-01' };
    await refused(() => iterateEvents(http, { ...q, managementUrl: 'management.example.com' }, auth).next(), 'managementUrl');
    await refused(() => findEvent(http, q as unknown as EventsQuery, auth, 'id'), 'managementUrl');
    const mailbox = new MailboxClient(http, { baseUrl: 'mail.example.com', domain: 'd.example', user: 'u' } as MailboxTarget);
    await refused(() => mailbox.listPage({ label: 1 }), 'baseUrl');
    await refused(() => inflaterFor(null as unknown as Readable), 'body');
    await refused(() => openCredentialStore({} as unknown as OpenCredentialStoreOptions), 'configDir');
  });

  it('a protocol call without its credentials (deps)', async () => {
    await refused(
      () =>
        callProtocolServer({ http, clock } as unknown as ProtocolSessionDeps, {
          serverUrl: stub.url,
          method: 'tools/list',
          clientInfo: { name: 't', version: '1' },
        }),
      'deps.credentials',
    );
  });

  it('an HttpClient without its userAgent or clock', () => {
    expect(() => new HttpClient({ clock } as unknown as ConstructorParameters<typeof HttpClient>[0])).toThrow(ValidationError);
    expect(() => new HttpClient({ userAgent: 'x' } as unknown as ConstructorParameters<typeof HttpClient>[0])).toThrow(/^clock is required/);
  });

  it('any other entry point: a URL that cannot be made is a ValidationError, the value unshown', () => {
    expect(() => buildUrl({ url: 'user', baseUrl: `host-${SECRET}/api` })).toThrow(ValidationError);
    expect(() => buildUrl({ url: 'user', baseUrl: `host-${SECRET}/api` })).not.toThrow(/SECRETSECRET/);
    expect(() => buildUrl({ url: 'relative' })).toThrow(ValidationError);
    expect(() => buildUrl({ url: 'user', baseUrl: 'mailto:someone@example.com' })).toThrow(/must be an http/);
  });
});
