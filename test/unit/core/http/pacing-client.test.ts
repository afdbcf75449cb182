/**
 * The HTTP client over a pacing file two "processes" share (two clients,
 * two stores over one directory), on an injected clock: admissions and holds
 * are the credential's, as with a shared server, not the API origin's; a
 * secondary limit's retry-after met by one process holds the next; an
 * admission counts from the time its answer came, so a request that reached
 * the server late does not let the next one arrive within the window.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileLock } from '../../../../src/core/credentials/lock.js';
import { RateLimitError } from '../../../../src/core/errors.js';
import { HttpClient, type HttpClientOptions } from '../../../../src/core/http/client.js';
import { FilePacing } from '../../../../src/core/http/pacing.js';
import { FakeClock } from '../../../fakes/clock.js';
import { StubHttp } from '../../../fakes/stub-http.js';

const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);
let dir: string;
let stub: StubHttp;
let clock: FakeClock;
const clients: HttpClient[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lanyard-pacing-client-'));
  stub = await StubHttp.start();
  clock = new FakeClock(NOW);
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await stub.close();
  await rm(dir, { recursive: true, force: true });
});

/** One process: its own client and store over the shared directory. */
function processClient(o: Partial<HttpClientOptions> = {}): HttpClient {
  const pacing = new FilePacing(join(dir, 'pacing.json'), new FileLock(dir));
  const c = new HttpClient({ clock, userAgent: 't', random: () => 0.5, hostingApis: [stub.url], pacing, ...o });
  clients.push(c);
  return c;
}
const bearer = (token: string) => ({ scheme: 'bearer' as const, token });
const post = (c: HttpClient, token: string) =>
  c.request({ method: 'POST', url: `${stub.url}/repos/o/r/issues`, json: { title: 't' }, credential: bearer(token) });
const get = (c: HttpClient, token: string) => c.request({ url: `${stub.url}/user`, credential: bearer(token) });
const secondary = (retryAfter: string) => ({
  status: 403,
  headers: { 'retry-after': retryAfter },
  body: { message: 'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.' },
});

describe('pacing shared through the file, per credential', () => {
  it("one token's writes do not pace another token's; the same token in another process waits", async () => {
    const windows = { contentCreatingWindows: [{ limit: 2, windowMs: 60_000 }] };
    stub.on('POST', '/repos/o/r/issues', { status: 201, body: {} }, 5);
    for (let i = 0; i < 2; i++) await (await post(processClient(windows), 'mona-token')).dump();
    // alice has sent nothing: sent at once, from another process.
    await (await post(processClient(windows), 'alice-token')).dump();
    expect(clock.sleeps).toEqual([]);
    await (await post(processClient(windows), 'mona-token')).dump();
    expect(clock.sleeps).toEqual([61_000]);
    await (await post(processClient(windows), 'alice-token')).dump();
    expect(clock.sleeps).toEqual([61_000]);
  });

  it("a secondary limit's retry-after holds the next process (a GET too): past the bound it fails at once, nothing sent; within it, waited", async () => {
    stub.on('GET', '/user', secondary('600'));
    const first = await get(processClient(), 'mona-token').catch((e: unknown) => e);
    expect(first).toBeInstanceOf(RateLimitError);
    expect((first as RateLimitError).kind).toBe('secondary');
    // The next process: held (10 min is past the default bound of a minute), one line, not sent.
    const held = (await get(processClient(), 'mona-token').catch((e: unknown) => e)) as RateLimitError;
    expect(held).toBeInstanceOf(RateLimitError);
    expect(held.kind).toBe('pacing');
    expect(held.message).toMatch(
      /^requests to http:\/\/127\.0\.0\.1:\d+ are held by the Lanyard processes pacing with this credential \(.+\): the wait \(10 min\)/,
    );
    const write = (await post(processClient(), 'mona-token').catch((e: unknown) => e)) as RateLimitError;
    expect(write.kind).toBe('pacing');
    expect(stub.requests).toHaveLength(1);
    // Another credential is not held.
    stub.on('GET', '/user', { body: {} });
    await (await get(processClient(), 'alice-token')).dump();
    // Within the bound (--max-wait 10m): waited, then sent once.
    stub.on('GET', '/user', { body: {} });
    await (
      await get(
        processClient({ rateLimitPolicy: { ...(await import('../../../../src/core/ratelimit/policy.js')).defaultRateLimitPolicy, serverWaitMs: 600_000 } }),
        'mona-token',
      )
    ).dump();
    expect(clock.sleeps).toEqual([600_000]);
    expect(stub.requests).toHaveLength(3);
  });

  it('an admission counts from when its answer came: a request that reached the server late does not bring the next one within the window', async () => {
    const windows = { contentCreatingWindows: [{ limit: 1, windowMs: 2000 }], pacingMarginMs: 0 };
    const arrivals: number[] = [];
    // The first request reaches the server 1.5 s after it was admitted (a loaded machine, a slow connection).
    stub.on('POST', '/repos/o/r/issues', () => (clock.advance(1500), arrivals.push(clock.now()), { status: 201, body: {} }));
    stub.on('POST', '/repos/o/r/issues', () => (arrivals.push(clock.now()), { status: 201, body: {} }));
    await (await post(processClient(windows), 'mona-token')).dump();
    await (await post(processClient(windows), 'mona-token')).dump();
    expect(clock.sleeps).toEqual([2000]);
    // The server saw them a full window apart.
    expect(arrivals[1]! - arrivals[0]!).toBeGreaterThanOrEqual(2000);
  });
});
