/** The HTTP client's auth hook: the provider's credential is sent; a 401 is refreshed and retried once, in one place. */
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CredentialProvider } from '../../../../src/core/auth/provider.js';
import { HttpError } from '../../../../src/core/errors.js';
import { HttpClient } from '../../../../src/core/http/client.js';
import type { Credential } from '../../../../src/core/http/types.js';
import { FakeClock } from '../../../fakes/clock.js';
import { StubHttp } from '../../../fakes/stub-http.js';

let stub: StubHttp;
let client: HttpClient;

beforeEach(async () => {
  stub = await StubHttp.start();
  client = new HttpClient({ clock: new FakeClock(Date.UTC(2026, 10, 22)), userAgent: 't', random: () => 0.5 });
});
afterEach(async () => {
  await client.close();
  await stub.close();
});

/** A provider whose refresh hands out `new`, counting the calls and the credential each was asked about. */
function provider(next: string | undefined): CredentialProvider & { asked: Credential[] } {
  let current: Credential = { scheme: 'bearer', token: 'old' };
  const asked: Credential[] = [];
  return {
    source: 'memory',
    asked,
    credential: async () => current,
    async refresh(used) {
      asked.push(used);
      if (!next) return undefined;
      current = { scheme: 'bearer', token: next };
      return current;
    },
  };
}

const auth = (req: { headers: Record<string, string | string[] | undefined> }) => req.headers.authorization;

describe('auth hook', () => {
  it('a 401 that escapes names the refused credential by its source, with and without a refresh', async () => {
    stub.on('GET', '/x', { status: 401, body: { message: 'Bad credentials' } }, 3);
    const none = (await client.request({ url: `${stub.url}/x`, auth: provider(undefined) }).catch((e: unknown) => e)) as HttpError;
    expect([none.status, none.credentialSource]).toEqual([401, 'memory']);
    const again = (await client.request({ url: `${stub.url}/x`, auth: provider('new') }).catch((e: unknown) => e)) as HttpError;
    expect([again.status, again.credentialSource]).toEqual([401, 'memory']);
  });

  it('sends the provider credential; a thrown 401 refreshes once and retries with the new one', async () => {
    stub.on('GET', '/x', { status: 401, body: { message: 'Bad credentials' } });
    stub.on('GET', '/x', (req) => ({ body: { auth: auth(req) } }));
    const p = provider('new');
    const res = await client.request({ url: `${stub.url}/x`, auth: p });
    expect(await res.json()).toEqual({ auth: 'Bearer new' });
    expect(auth(stub.requests[0]!)).toBe('Bearer old');
    expect(p.asked).toEqual([{ scheme: 'bearer', token: 'old' }]);
    stub.verify();
  });

  it('a returned 401 (okStatus accepts it) is refreshed too; json() goes through the hook', async () => {
    stub.on('GET', '/x', { status: 401, body: {} });
    stub.on('GET', '/x', { body: { ok: true } });
    const { data } = await client.json({ url: `${stub.url}/x`, auth: provider('new'), okStatus: (s) => s === 200 || s === 401 });
    expect(data).toEqual({ ok: true });
    stub.verify();
  });

  it('only once: a second 401 stands; no new credential means the first 401 stands', async () => {
    stub.on('GET', '/x', { status: 401, body: {} }, 2);
    const p = provider('new');
    await expect(client.request({ url: `${stub.url}/x`, auth: p })).rejects.toBeInstanceOf(HttpError);
    expect(p.asked).toHaveLength(1);
    stub.on('GET', '/y', { status: 401, body: {} });
    await expect(client.request({ url: `${stub.url}/y`, auth: provider(undefined) })).rejects.toMatchObject({ status: 401 });
    stub.verify();
  });

  it('a streamed body is not sent twice: no refresh', async () => {
    stub.on('POST', '/x', { status: 401, body: {} });
    const p = provider('new');
    await expect(client.request({ method: 'POST', url: `${stub.url}/x`, auth: p, body: Readable.from([Buffer.from('{}')]) })).rejects.toMatchObject({
      status: 401,
    });
    expect(p.asked).toHaveLength(0);
    stub.verify();
  });
});
