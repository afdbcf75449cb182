import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { HttpClient, buildUrl, type HttpClientOptions } from '../../../../src/core/http/client.js';
import { CancelledError, HttpError, NetworkError, RateLimitError, TimeoutError } from '../../../../src/core/errors.js';
import { defaultRateLimitPolicy } from '../../../../src/core/ratelimit/policy.js';
import type { RateLimitState } from '../../../../src/core/ratelimit/headers.js';
import { FakeClock } from '../../../fakes/clock.js';
import { StubHttp } from '../../../fakes/stub-http.js';

let stub: StubHttp;
let clock: FakeClock;
let client: HttpClient;

const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);
const dateHeader = (ms = clock.now()) => new Date(ms).toUTCString();

function make(o: Partial<HttpClientOptions> = {}): HttpClient {
  client = new HttpClient({ clock, userAgent: 'lanyard/9.9.9', random: () => 0.5, ...o });
  return client;
}

beforeEach(async () => {
  stub = await StubHttp.start();
  clock = new FakeClock(NOW);
});

afterEach(async () => {
  await client?.close();
  await stub.close();
});

describe('URLs, headers and credentials', () => {
  it('joins base URLs with and without slashes, appends query values', () => {
    expect(buildUrl({ url: 'rate_limit', baseUrl: 'http://h/api/v3' }).toString()).toBe('http://h/api/v3/rate_limit');
    expect(buildUrl({ url: '/rate_limit', baseUrl: 'http://h/api/v3/' }).toString()).toBe('http://h/api/v3/rate_limit');
    expect(buildUrl({ url: 'https://other/x', baseUrl: 'http://h/api' }).toString()).toBe('https://other/x');
    expect(buildUrl({ url: 'search', baseUrl: 'http://h', query: { q: 'a b', n: 2, skip: undefined, tag: ['x', 'y'] } }).toString()).toBe(
      'http://h/search?q=a+b&n=2&tag=x&tag=y',
    );
    expect(() => buildUrl({ url: 'relative' })).toThrow(/needs a base URL/);
  });

  it('sends the User-Agent and injects each credential scheme', async () => {
    make();
    for (let i = 0; i < 4; i++) stub.on('GET', '/api/v3/user', { body: { ok: true } });
    const base = stub.url + '/api/v3';
    await client.request({ url: 'user', baseUrl: base, credential: { scheme: 'bearer', token: 'tok-123' } });
    await client.request({ url: 'user', baseUrl: base, credential: { scheme: 'basic', username: 'id', password: 'secret' } });
    await client.request({ url: 'user', baseUrl: base, credential: { scheme: 'query', name: 'key', value: 'k-1' } });
    await client.request({ url: 'user', baseUrl: base, credential: { scheme: 'header', name: 'X-Api-Key', value: 'k-2' } });
    const [a, b, c, d] = stub.requests;
    expect(a!.headers['user-agent']).toBe('lanyard/9.9.9');
    expect(a!.headers.authorization).toBe('Bearer tok-123');
    expect(b!.headers.authorization).toBe('Basic ' + Buffer.from('id:secret').toString('base64'));
    expect(c!.url.searchParams.get('key')).toBe('k-1');
    expect(c!.headers.authorization).toBeUndefined();
    expect(d!.headers['x-api-key']).toBe('k-2');
    stub.verify();
  });

  it('encodes JSON and form bodies', async () => {
    make();
    stub.on('POST', '/j', { status: 201, body: {} }).on('POST', '/f', { body: {} });
    await client.request({ method: 'POST', url: stub.url + '/j', json: { a: 1 } });
    await client.request({ method: 'POST', url: stub.url + '/f', form: { a: 'x y', b: undefined } });
    expect(stub.requests[0]!.headers['content-type']).toBe('application/json');
    expect(stub.requests[0]!.body).toBe('{"a":1}');
    expect(stub.requests[1]!.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(stub.requests[1]!.body).toBe('a=x+y');
  });

  it('a DELETE or OPTIONS with a body says its length (the code host removes assignees or labels with a DELETE and a JSON body)', async () => {
    make();
    stub.on('DELETE', '/repos/o/r/issues/1/assignees', { body: { assignees: [] } }).on('OPTIONS', '/o', { body: {} });
    const res = await client.request({ method: 'DELETE', url: stub.url + '/repos/o/r/issues/1/assignees', json: { assignees: ['mona'] } });
    expect(await res.json()).toEqual({ assignees: [] });
    await client.request({ method: 'OPTIONS', url: stub.url + '/o', body: new TextEncoder().encode('é') });
    expect(stub.requests.map((r) => [r.method, r.headers['content-length'], r.body])).toEqual([
      ['DELETE', '22', '{"assignees":["mona"]}'],
      ['OPTIONS', '2', 'é'],
    ]);
  });
});

describe('typed errors', () => {
  it('HTTP status with the parsed body', async () => {
    make();
    stub.on('GET', '/missing', { status: 404, body: { message: 'Not Found' } });
    const err = await client.request({ url: stub.url + '/missing' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HttpError);
    expect((err as HttpError).status).toBe(404);
    expect((err as HttpError).body).toEqual({ message: 'Not Found' });
    expect((err as HttpError).message).toMatch(/GET .*\/missing failed: HTTP 404: Not Found/);
  });

  it('okStatus returns chosen statuses instead of throwing', async () => {
    make();
    stub.on('GET', '/gone', { status: 410, body: 'bye' });
    const res = await client.request({ url: stub.url + '/gone', okStatus: (s) => s === 410 });
    expect(res.status).toBe(410);
    expect(await res.text()).toBe('bye');
  });

  it('network error when nothing listens', async () => {
    make({ maxNetworkRetries: 0 });
    const url = stub.url;
    await stub.close();
    stub = await StubHttp.start();
    const err = await client.request({ url: url + '/x' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect((err as Error).message).toMatch(/connection refused/);
  });

  it('headers timeout and body timeout', async () => {
    // undici's timers have a 1 s resolution: the server stalls well beyond it.
    make({ maxNetworkRetries: 0 });
    stub.on('GET', '/slow', { delayMs: 2500, body: {} });
    const e1 = await client.request({ url: stub.url + '/slow', timeouts: { headersMs: 100 } }).catch((e: unknown) => e);
    expect(e1).toBeInstanceOf(TimeoutError);
    expect((e1 as TimeoutError).phase).toBe('headers');
    stub.on('GET', '/slowbody', { bodyDelayMs: 2500, body: { a: 1 } });
    const res = await client.request({ url: stub.url + '/slowbody', timeouts: { bodyMs: 100 } });
    const e2 = await res.json().catch((e: unknown) => e);
    expect(e2).toBeInstanceOf(TimeoutError);
    expect((e2 as TimeoutError).phase).toBe('body');
  });

  it('an aborted signal cancels', async () => {
    make();
    stub.on('GET', '/slow', { delayMs: 300, body: {} });
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 50);
    await expect(client.request({ url: stub.url + '/slow', signal: ac.signal })).rejects.toBeInstanceOf(CancelledError);
  });
});

describe('retries of idempotent requests', () => {
  it('retries GET on 502/503/504 with jittered, bounded backoff', async () => {
    make();
    stub
      .on('GET', '/r', { status: 502 })
      .on('GET', '/r', { status: 504 })
      .on('GET', '/r', { body: { ok: 1 } });
    const res = await client.request({ url: stub.url + '/r' });
    expect(await res.json()).toEqual({ ok: 1 });
    expect(clock.sleeps).toEqual([250, 500]); // base/2 + 0.5 * base for base 250, 500
    stub.verify();
  });

  it('gives up after maxNetworkRetries and reports the status', async () => {
    make({ maxNetworkRetries: 2 });
    stub.on('GET', '/r', { status: 503, body: { message: 'down' } }, 3);
    const err = await client.request({ url: stub.url + '/r' }).catch((e: unknown) => e);
    expect((err as HttpError).status).toBe(503);
    expect(stub.requests).toHaveLength(3);
  });

  it('never retries POST, nor other 4xx', async () => {
    make();
    stub.on('POST', '/p', { status: 502 }).on('GET', '/f', { status: 403, body: { message: 'Forbidden' } });
    await expect(client.request({ method: 'POST', url: stub.url + '/p', json: {} })).rejects.toBeInstanceOf(HttpError);
    await expect(client.request({ url: stub.url + '/f' })).rejects.toBeInstanceOf(HttpError);
    expect(stub.requests).toHaveLength(2);
    expect(clock.sleeps).toEqual([]);
  });

  it('retries a connection reset', async () => {
    make();
    stub.on('GET', '/reset', { reset: true }).on('GET', '/reset', { body: { ok: true } });
    const res = await client.request({ url: stub.url + '/reset' });
    expect(await res.json()).toEqual({ ok: true });
    expect(stub.requests).toHaveLength(2);
  });

  it('json() retries a body cut short by a reset', async () => {
    make();
    stub.on('GET', '/cut', { truncate: true, body: { long: 'x'.repeat(2000) } }).on('GET', '/cut', { body: { long: 'ok' } });
    const { data } = await client.json<{ long: string }>({ url: stub.url + '/cut' });
    expect(data.long).toBe('ok');
    expect(stub.requests).toHaveLength(2);
  });

  it('a truncated body without retries is a network error', async () => {
    make({ maxNetworkRetries: 0 });
    stub.on('GET', '/cut', { truncate: true, body: { long: 'x'.repeat(2000) } });
    await expect(client.json({ url: stub.url + '/cut' })).rejects.toBeInstanceOf(NetworkError);
  });
});

describe('rate limits', () => {
  const primary = (resetSec: number, date = dateHeader()) => ({
    status: 403,
    headers: {
      'x-ratelimit-limit': '60',
      'x-ratelimit-remaining': '0',
      'x-ratelimit-used': '60',
      'x-ratelimit-reset': String(resetSec),
      'x-ratelimit-resource': 'core',
      date,
    },
    body: { message: 'API rate limit exceeded for 127.0.0.1. (But here is the good news.)' },
  });
  const secondary = (headers: Record<string, string> = {}) => ({
    status: 403,
    headers: { 'x-ratelimit-limit': '5000', 'x-ratelimit-remaining': '4000', 'x-ratelimit-reset': String(NOW / 1000 + 3600), date: dateHeader(), ...headers },
    body: { message: 'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.' },
  });

  it('reports the limit state of every response', async () => {
    const seen: RateLimitState[] = [];
    make({ onRateLimit: (s) => seen.push(s) });
    stub.on('GET', '/a', {
      headers: {
        'x-ratelimit-limit': '5000',
        'x-ratelimit-remaining': '4999',
        'x-ratelimit-used': '1',
        'x-ratelimit-reset': '1795300000',
        'x-ratelimit-resource': 'core',
      },
      body: {},
    });
    const res = await client.request({ url: stub.url + '/a' });
    expect(res.rateLimit).toEqual({ limit: 5000, remaining: 4999, used: 1, reset: 1795300000, resource: 'core' });
    expect(seen).toEqual([res.rateLimit]);
  });

  it('primary without --wait: RateLimitError with the reset, no retry', async () => {
    make();
    stub.on('GET', '/a', primary(NOW / 1000 + 600));
    const err = (await client.request({ url: stub.url + '/a' }).catch((e: unknown) => e)) as RateLimitError;
    expect(err).toBeInstanceOf(RateLimitError);
    expect(err.kind).toBe('primary');
    expect(err.resetAt).toBe(NOW + 601_000);
    expect(err.message).toBe(`API rate limit exceeded for 127.0.0.1; the budget resets at ${new Date(NOW + 601_000).toISOString()}`);
    expect(err.state?.remaining).toBe(0);
    expect(stub.requests).toHaveLength(1);
  });

  it('primary with --wait: sleeps until the reset, corrected by the Date skew, then succeeds', async () => {
    make({ rateLimitPolicy: { ...defaultRateLimitPolicy, wait: true } });
    const serverNow = NOW - 45_000; // server clock 45 s behind ours
    stub.on('GET', '/a', primary(serverNow / 1000 + 100, dateHeader(serverNow))).on('GET', '/a', { body: { ok: 1 } });
    const waits: number[] = [];
    client = make({ rateLimitPolicy: { ...defaultRateLimitPolicy, wait: true }, onRateLimitWait: (i) => waits.push(i.waitMs) });
    const res = await client.request({ url: stub.url + '/a' });
    expect(await res.json()).toEqual({ ok: 1 });
    expect(clock.sleeps).toEqual([101_000]);
    expect(waits).toEqual([101_000]);
  });

  it('a wait beyond --max-wait fails with the reason as hint', async () => {
    make({ rateLimitPolicy: { ...defaultRateLimitPolicy, wait: true, maxWaitMs: 10_000 } });
    stub.on('GET', '/a', primary(NOW / 1000 + 600));
    const err = (await client.request({ url: stub.url + '/a' }).catch((e: unknown) => e)) as RateLimitError;
    expect(err).toBeInstanceOf(RateLimitError);
    expect(err.hint).toMatch(/exceeds the maximum wait \(10 s\)/);
    expect(clock.sleeps).toEqual([]);
  });

  it('secondary with retry-after waits that long', async () => {
    make({ rateLimitPolicy: { ...defaultRateLimitPolicy, wait: true } });
    stub.on('GET', '/a', secondary({ 'retry-after': '7' })).on('GET', '/a', { body: {} });
    await client.request({ url: stub.url + '/a' });
    expect(clock.sleeps).toEqual([7000]);
  });

  it('secondary without retry-after: 60 s, then exponential, then gives up', async () => {
    make({ rateLimitPolicy: { ...defaultRateLimitPolicy, wait: true, maxSecondaryRetries: 3 } });
    stub.on('GET', '/a', secondary(), 4);
    const err = (await client.request({ url: stub.url + '/a' }).catch((e: unknown) => e)) as RateLimitError;
    expect(err.kind).toBe('secondary');
    expect(err.message).toMatch(/^You have exceeded a secondary rate limit/);
    expect(err.hint).toMatch(/gave up after 3 retries/);
    expect(clock.sleeps).toEqual([60_000, 120_000, 240_000]);
    expect(stub.requests).toHaveLength(4);
  });

  it("any service's 429 with Retry-After is waited out without --wait, within the bound; past it, exit 3 at once", async () => {
    const waits: Array<{ kind: string; status?: number; waitMs: number; boundMs?: number }> = [];
    make({ onRateLimitWait: (i) => waits.push(i) });
    stub.on('POST', '/mcp', { status: 429, headers: { 'retry-after': '5' }, body: { error: 'slow down' } }).on('POST', '/mcp', { body: { ok: 1 } });
    const res = await client.request({ method: 'POST', url: `${stub.url}/mcp`, json: { id: 1 } });
    expect(await res.json()).toEqual({ ok: 1 });
    expect(clock.sleeps).toEqual([5000]);
    expect(waits).toEqual([expect.objectContaining({ kind: 'server', status: 429, waitMs: 5000, boundMs: 60_000 })]);
    expect(stub.requests.map((r) => r.body)).toEqual(['{"id":1}', '{"id":1}']);
    stub.on('POST', '/mcp', { status: 429, headers: { 'retry-after': '61' }, body: { message: 'slow down' } });
    const err = (await client.request({ method: 'POST', url: `${stub.url}/mcp`, json: {} }).catch((e: unknown) => e)) as RateLimitError;
    expect(err).toBeInstanceOf(RateLimitError);
    expect(err.kind).toBe('server');
    expect(err.message).toMatch(/^the server answered HTTP 429 with Retry-After \(slow down\); retry after /);
    expect(err.resetAt).toBe(NOW + 5000 + 61_000);
    expect(clock.sleeps).toEqual([5000]);
  });

  it('a 503 with Retry-After is waited out for any method (a POST too); serverWaitMs 0 never waits', async () => {
    make();
    stub.on('POST', '/messages', { status: 503, headers: { 'retry-after': '2' } }).on('POST', '/messages', { status: 201, body: {} });
    expect((await client.request({ method: 'POST', url: `${stub.url}/messages`, json: {} })).status).toBe(201);
    stub.on('GET', '/r', { status: 503, headers: { 'retry-after': '3' } }).on('GET', '/r', { body: {} });
    await client.request({ url: `${stub.url}/r` });
    expect(clock.sleeps).toEqual([2000, 3000]);
    make({ rateLimitPolicy: { ...defaultRateLimitPolicy, serverWaitMs: 0 } });
    stub.on('POST', '/messages', { status: 503, headers: { 'retry-after': '1' } });
    const err = await client.request({ method: 'POST', url: `${stub.url}/messages`, json: {} }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RateLimitError);
    expect(clock.sleeps).toEqual([2000, 3000]);
  });

  it('a returned 503 with an HTTP-date Retry-After (okStatus takes it) is timed by the injected clock, never the wall clock', async () => {
    make();
    const wall = vi.spyOn(Date, 'now').mockImplementation(() => {
      throw new Error('the wall clock was read');
    });
    try {
      const at = new Date(NOW + 4000).toUTCString();
      stub.on('POST', '/mcp', { status: 503, headers: { 'retry-after': at, date: dateHeader() } }).on('POST', '/mcp', { body: { ok: 1 } });
      const res = await client.request({ method: 'POST', url: `${stub.url}/mcp`, json: {}, okStatus: (s) => s === 200 || s === 503 });
      expect(res.status).toBe(200);
      expect(clock.sleeps).toEqual([4000]);
    } finally {
      wall.mockRestore();
    }
  });

  it('a request with a streamed body is not re-sent after a rate-limit wait', async () => {
    make({ rateLimitPolicy: { ...defaultRateLimitPolicy, wait: true } });
    stub.on('POST', '/upload', secondary({ 'retry-after': '1' }));
    const { Readable } = await import('node:stream');
    const err = (await client
      .request({ method: 'POST', url: stub.url + '/upload', body: Readable.from([Buffer.from('data')]) })
      .catch((e: unknown) => e)) as RateLimitError;
    expect(err).toBeInstanceOf(RateLimitError);
    expect(err.hint).toMatch(/streamed and cannot be sent again/);
    expect(stub.requests).toHaveLength(1);
    expect(stub.requests[0]!.body).toBe('data');
  });

  it('OAuth requests skip rate-limit handling', async () => {
    make({ rateLimitPolicy: { ...defaultRateLimitPolicy, wait: true } });
    stub.on('POST', '/token', { ...secondary({ 'retry-after': '5' }), status: 429 });
    const err = await client.request({ method: 'POST', url: stub.url + '/token', form: { a: 'b' }, oauth: true }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HttpError);
    expect(clock.sleeps).toEqual([]);
  });
});

describe('client-side guards', () => {
  it('content-creating requests: at most N per minute, waits on the clock', async () => {
    make({ contentCreatingPerMinute: 2, hostingApis: [stub.url] });
    stub.on('POST', '/w', { status: 201, body: {} }, 3).on('GET', '/r', { body: {} }, 3);
    for (let i = 0; i < 3; i++) await client.request({ url: stub.url + '/r' });
    expect(clock.sleeps).toEqual([]);
    for (let i = 0; i < 3; i++) await client.request({ method: 'POST', url: stub.url + '/w', json: {} });
    // The minute and the margin for latency and skew (1 s by default).
    expect(clock.sleeps).toEqual([61_000]);
  });

  it('the windows as stated (an emulator with a 10 s window) and the margin are what the client paces by', async () => {
    make({ contentCreatingWindows: [{ limit: 2, windowMs: 10_000 }], pacingMarginMs: 250, hostingApis: [stub.url] });
    stub.on('POST', '/w', { status: 201, body: {} }, 3);
    for (let i = 0; i < 3; i++) await client.request({ method: 'POST', url: stub.url + '/w', json: {} });
    expect(clock.sleeps).toEqual([10_250]);
  });

  it("the code host's limits apply to its API only: other services' writes are never paced", async () => {
    make({ contentCreatingPerMinute: 2, hostingApis: [`${stub.url}/api/v3`] });
    stub.on('POST', '/rest/v2/mailbox/messages', { status: 201, body: {} }, 5).on('POST', '/mcp', { body: {} }, 5);
    for (let i = 0; i < 5; i++) await client.request({ method: 'POST', url: `${stub.url}/rest/v2/mailbox/messages`, json: {} });
    for (let i = 0; i < 5; i++) await client.request({ method: 'POST', url: `${stub.url}/mcp`, json: { jsonrpc: '2.0', id: i, method: 'tools/call' } });
    expect(clock.sleeps).toEqual([]);
    // The default: the public code host's API only.
    make({ contentCreatingPerMinute: 2 });
    for (let i = 0; i < 3; i++) await client.request({ method: 'POST', url: `${stub.url}/mcp`, json: {} }).catch(() => {});
    expect(clock.sleeps).toEqual([]);
  });

  it('a query of the query API is a read; a mutation and a REST write are content-creating', async () => {
    make({ contentCreatingPerMinute: 2, hostingApis: [`${stub.url}/api/v3`] });
    stub.on('POST', '/api/graphql', { body: { data: {} } }, 7).on('DELETE', '/api/v3/repos/o/r', { status: 204 }, 1);
    for (let i = 0; i < 4; i++) await client.request({ method: 'POST', url: `${stub.url}/api/graphql`, json: { query: '{ viewer { login } }' } });
    await client.request({ method: 'POST', url: `${stub.url}/api/graphql`, body: JSON.stringify({ query: '# one\nquery Q { viewer { login } }' }) });
    expect(clock.sleeps).toEqual([]);
    await client.request({ method: 'POST', url: `${stub.url}/api/graphql`, json: { query: 'mutation { addStar(input: {}) { clientMutationId } }' } });
    await client.request({ method: 'DELETE', url: `${stub.url}/api/v3/repos/o/r` });
    expect(clock.sleeps).toEqual([]);
    await client.request({ method: 'POST', url: `${stub.url}/api/graphql`, json: { query: 'mutation { x }' } });
    expect(clock.sleeps).toEqual([61_000]);
  });

  it('at most N concurrent requests; OAuth requests bypass the queue', async () => {
    make({ maxConcurrent: 1, hostingApis: [stub.url] });
    let order: string[] = [];
    stub.on('GET', '/slow', { delayMs: 300, body: {} });
    stub.on('GET', '/queued', () => (order.push('queued'), { body: {} }));
    stub.on('POST', '/token', () => (order.push('oauth'), { body: {} }));
    const slow = client.request({ url: stub.url + '/slow' }).then(async (r) => (await r.dump(), order.push('slow')));
    await new Promise((r) => setTimeout(r, 50));
    const queued = client.request({ url: stub.url + '/queued' }).then((r) => r.dump());
    const oauth = client.request({ method: 'POST', url: stub.url + '/token', form: {}, oauth: true }).then((r) => r.dump());
    await Promise.all([slow, queued, oauth]);
    expect(order).toEqual(['oauth', 'slow', 'queued']);
    order = [];
  });
});

describe('--debug trace', () => {
  it('redacts secrets in headers, query, form and JSON bodies of requests and responses', async () => {
    const lines: string[] = [];
    make({ trace: (l) => lines.push(l) });
    stub.on('POST', '/login/oauth/access_token', {
      headers: { 'set-cookie': 'session=abc-cookie-value' },
      body: { access_token: 'gho_response_secret', refresh_token: 'ghr_response_secret', token_type: 'bearer', scope: 'repo' },
    });
    stub.on('POST', '/json', { body: { nested: { password: 'pw-in-response' } } });
    await client.request({
      method: 'POST',
      url: stub.url + '/login/oauth/access_token?key=query-key-value&page=2',
      headers: { cookie: 'session=request-cookie' },
      credential: { scheme: 'basic', username: 'client', password: 'basic-secret' },
      form: { client_id: 'abc', client_secret: 'form-secret', code: 'code-value', device_code: 'dc-value' },
    });
    await client.request({
      method: 'POST',
      url: stub.url + '/json',
      credential: { scheme: 'bearer', token: 'bearer-secret' },
      json: { user: { password: 'pw-value', refresh_token: 'rt-value' }, list: [{ access_token: 'at-value' }] },
    });
    const trace = lines.join('\n');
    for (const secret of [
      'query-key-value',
      'request-cookie',
      'basic-secret',
      Buffer.from('client:basic-secret').toString('base64'),
      'form-secret',
      'code-value',
      'dc-value',
      'gho_response_secret',
      'ghr_response_secret',
      'abc-cookie-value',
      'bearer-secret',
      'pw-value',
      'rt-value',
      'at-value',
      'pw-in-response',
    ]) {
      expect(trace).not.toContain(secret);
    }
    expect(trace).toContain('> authorization: Basic [REDACTED]');
    expect(trace).toContain('> authorization: Bearer [REDACTED]');
    expect(trace).toContain('key=[REDACTED]&page=2');
    expect(trace).toContain('client_id=abc');
    expect(trace).toContain('"token_type":"bearer"');
  });
});

describe('--debug trace of custom credential headers', () => {
  it('redacts any credential-named header in every line: the first request, a retry, a redirect hop, the answer', async () => {
    const lines: string[] = [];
    make({ trace: (l) => lines.push(l) });
    stub
      .on('GET', '/p', { status: 503 })
      .on('GET', '/p', { status: 302, headers: { location: '/q' } })
      .on('GET', '/q', {
        headers: { 'set-cookie': 'sid=resp-cookie-secret; Path=/', 'x-session-token': 'resp-session-secret', etag: '"e1"' },
        body: { ok: 1 },
      });
    const headers = {
      'Private-Token': 'glpat-private-secret',
      'X-Auth-Token': 'auth-token-secret',
      'X-Api-Key': 'api-key-secret',
      'Api-Key': 'apikey-secret-2',
      'X-Vault-Token': 'vault-secret',
      Cookie: 'sid=cookie-secret',
      'Proxy-Authorization': 'Basic cHJveHk6c2VjcmV0',
      'If-None-Match': '"etag-visible"',
    };
    await client.request({ url: stub.url + '/p', headers });
    const trace = lines.join('\n');
    for (const v of [...Object.values(headers).filter((v) => !v.includes('etag')), 'cHJveHk6c2VjcmV0', 'resp-cookie-secret', 'resp-session-secret'])
      expect(trace).not.toContain(v);
    // Three requests traced (the 503, its retry answered 302, the hop), each with the names visible.
    expect(lines.filter((l) => l === '> private-token: [REDACTED]')).toHaveLength(3);
    expect(lines.filter((l) => l === '> x-vault-token: [REDACTED]')).toHaveLength(3);
    expect(trace).toContain('> proxy-authorization: Basic [REDACTED]');
    expect(trace).toContain('> if-none-match: "etag-visible"');
    expect(trace).toContain('> user-agent: lanyard/');
    expect(trace).toContain('< set-cookie: [REDACTED]');
    expect(trace).toContain('< x-session-token: [REDACTED]');
    expect(trace).toContain('< etag: "e1"');
    stub.verify();
  });
});

describe('requestStream (node:http transport for large downloads)', () => {
  const read = async (body: AsyncIterable<Uint8Array>) => {
    const parts: Buffer[] = [];
    for await (const c of body) parts.push(Buffer.from(c));
    return Buffer.concat(parts);
  };

  it('streams the body with the same headers, credential and rate-limit state; traces headers only, redacted', async () => {
    const lines: string[] = [];
    const seen: RateLimitState[] = [];
    make({ trace: (l) => lines.push(l), onRateLimit: (s) => seen.push(s) });
    const big = Buffer.alloc(3 * 1024 * 1024, 'abcdefgh');
    stub.on('GET', '/raw', {
      headers: { 'content-type': 'application/json', 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '59', 'x-ratelimit-reset': '1795300000' },
      body: big,
    });
    const res = await client.requestStream({
      url: stub.url + '/raw?key=q-secret',
      credential: { scheme: 'bearer', token: 'stream-secret' },
      headers: { accept: '*/*' },
    });
    expect(res.status).toBe(200);
    expect((await read(res.body)).equals(big)).toBe(true);
    const req = stub.requests[0]!;
    expect(req.headers.authorization).toBe('Bearer stream-secret');
    expect(req.headers['user-agent']).toBe('lanyard/9.9.9');
    expect(req.headers.accept).toBe('*/*');
    expect(req.url.searchParams.get('key')).toBe('q-secret');
    expect(seen).toEqual([expect.objectContaining({ limit: 60, remaining: 59 })]);
    const trace = lines.join('\n');
    expect(trace).toContain('> authorization: Bearer [REDACTED]');
    expect(trace).toContain('key=[REDACTED]');
    expect(trace).toContain('< HTTP 200');
    expect(trace).not.toContain('stream-secret');
    expect(trace).not.toContain('q-secret');
    expect(trace).not.toContain('abcdefgh'); // the body is never traced
  });

  it('retries 503 before the body, maps error statuses and rate limits like request()', async () => {
    make();
    stub.on('GET', '/r', { status: 503 }).on('GET', '/r', { body: 'ok' });
    const res = await client.requestStream({ url: stub.url + '/r' });
    expect((await read(res.body)).toString()).toBe('ok');
    expect(clock.sleeps).toEqual([250]);
    stub.on('GET', '/nf', { status: 404, body: { message: 'Not Found' } });
    const err = (await client.requestStream({ url: stub.url + '/nf' }).catch((e: unknown) => e)) as HttpError;
    expect(err).toBeInstanceOf(HttpError);
    expect(err.status).toBe(404);
    expect(err.body).toEqual({ message: 'Not Found' });
    stub.on('GET', '/rl', {
      status: 429,
      headers: { 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(NOW / 1000 + 600), date: dateHeader() },
      body: { message: 'API rate limit exceeded' },
    });
    await expect(client.requestStream({ url: stub.url + '/rl' })).rejects.toBeInstanceOf(RateLimitError);
    stub.verify();
  });

  it('retries a reset connection; a body cut short is an error; nothing listening is a network error', async () => {
    make();
    stub.on('GET', '/reset', { reset: true }).on('GET', '/reset', { body: 'fine' });
    expect(await (await client.requestStream({ url: stub.url + '/reset' })).text()).toBe('fine');
    stub.on('GET', '/cut', { truncate: true, body: 'x'.repeat(100_000) });
    const cut = await client.requestStream({ url: stub.url + '/cut' });
    await expect(read(cut.body)).rejects.toThrow();
    stub.on('GET', '/cut2', { truncate: true, body: 'x'.repeat(100_000) });
    await expect((await client.requestStream({ url: stub.url + '/cut2' })).text()).rejects.toBeInstanceOf(NetworkError);
    make({ maxNetworkRetries: 0 });
    const url = stub.url;
    await stub.close();
    stub = await StubHttp.start();
    await expect(client.requestStream({ url: url + '/x' })).rejects.toBeInstanceOf(NetworkError);
  });

  it('unset timeouts fall back to the defaults; a reused connection keeps no stale body timer', async () => {
    make();
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on('warning', onWarning);
    try {
      stub.on('GET', '/n', { body: 'n' }, 12);
      for (let i = 0; i < 12; i++) {
        const res = await client.requestStream({ url: stub.url + '/n', timeouts: { connectMs: undefined, headersMs: undefined, bodyMs: undefined } });
        expect((await read(res.body)).toString()).toBe('n');
      }
      await new Promise((r) => setImmediate(r));
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
    stub.verify();
  });

  it('headers and body timeouts, and cancellation', async () => {
    make({ maxNetworkRetries: 0 });
    stub.on('GET', '/slow', { delayMs: 1000, body: 'late' });
    const e1 = await client.requestStream({ url: stub.url + '/slow', timeouts: { headersMs: 100 } }).catch((e: unknown) => e);
    expect(e1).toBeInstanceOf(TimeoutError);
    expect((e1 as TimeoutError).phase).toBe('headers');
    stub.on('GET', '/slowbody', { bodyDelayMs: 1000, body: 'late' });
    const res = await client.requestStream({ url: stub.url + '/slowbody', timeouts: { bodyMs: 100 } });
    const e2 = await res.text().catch((e: unknown) => e);
    expect(e2).toBeInstanceOf(TimeoutError);
    expect((e2 as TimeoutError).phase).toBe('body');
    stub.on('GET', '/wait', { delayMs: 500, body: {} });
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 50);
    await expect(client.requestStream({ url: stub.url + '/wait', signal: ac.signal })).rejects.toBeInstanceOf(CancelledError);
  });
});
