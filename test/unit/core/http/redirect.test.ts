/**
 * Redirects across origins: the code host's download endpoints (tarball,
 * zipball, release assets, artifacts, run logs) answer 302 to another host,
 * which the client follows without the credential — no Authorization, no
 * API key (header or query), no DPoP proof, no cookie or unknown header of
 * the caller's — and never from https to plain http on a host that is not
 * loopback. The rules of the next method are fetch's.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HttpClient } from '../../../../src/core/http/client.js';
import { redirectHop } from '../../../../src/core/http/redirect.js';
import type { CredentialProvider, HttpResponse } from '../../../../src/core/http/types.js';
import { HttpError } from '../../../../src/core/errors.js';
import { checkHostingToken } from '../../../../src/core/hosting/token-check.js';
import { fetchUser } from '../../../../src/core/hosting/user.js';
import { privateCa } from '../../../e2e/private-ca.js';
import { FakeClock } from '../../../fakes/clock.js';
import { StubHttp } from '../../../fakes/stub-http.js';

const TOKEN = 'lyp_redirect_secret_token_0000000000000001';
const bearer = { scheme: 'bearer', token: TOKEN } as const;
let api: StubHttp;
let cdn: StubHttp;
let client: HttpClient;
let trace: string[];

beforeEach(async () => {
  [api, cdn] = await Promise.all([StubHttp.start(), StubHttp.start()]);
  trace = [];
  client = new HttpClient({ clock: new FakeClock(), userAgent: 'lanyard/9.9.9', random: () => 0.5, trace: (l) => trace.push(l) });
});
afterEach(async () => {
  await client.close();
  await Promise.all([api.close(), cdn.close()]);
});

/** Everything a request showed the second origin: its headers and URL. */
const seen = (s: StubHttp) => s.requests.map((r) => JSON.stringify({ url: r.url.toString(), headers: r.headers })).join('\n');

describe('a GET redirected to another origin', () => {
  it('is followed without the bearer token; the body arrives; the --debug trace of the hop has no secret', async () => {
    api.on('GET', '/repos/o/r/tarball/main', { status: 302, headers: { location: `${cdn.url}/o/r/legacy.tar.gz/refs/heads/main` } });
    cdn.on('GET', '/o/r/legacy.tar.gz/refs/heads/main', { headers: { 'content-type': 'application/x-gzip' }, body: Buffer.from([0x1f, 0x8b, 1, 2]) });
    const res = await client.requestStream({ url: `${api.url}/repos/o/r/tarball/main`, credential: bearer });
    expect(res.status).toBe(200);
    expect([...(await res.bytes())]).toEqual([0x1f, 0x8b, 1, 2]);
    expect(res.url).toBe(`${cdn.url}/o/r/legacy.tar.gz/refs/heads/main`);
    expect(api.requests[0]!.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(cdn.requests[0]!.headers.authorization).toBeUndefined();
    expect(seen(cdn)).not.toContain(TOKEN);
    expect(trace.join('\n')).not.toContain(TOKEN);
    expect(trace).toContain(`* following the redirect (HTTP 302) to ${cdn.url}/o/r/legacy.tar.gz/refs/heads/main`);
    expect(trace).toContain(`* ${cdn.url} is another origin: sent without the credential`);
  });

  it('the --debug trace of a signed download URL (Location, Link) shows none of its secret parameters', async () => {
    const signed = `${cdn.url}/f?X-Amz-Signature=SIGSECRET123&X-Amz-Credential=CREDSECRET&token=TOKSECRET&part=1`;
    api.on('GET', '/sig', { status: 302, headers: { location: signed, link: `<${signed}>; rel="alternate"` } });
    cdn.on('GET', '/f', { body: 'file' });
    expect(await (await client.request({ url: `${api.url}/sig`, credential: bearer })).text()).toBe('file');
    expect(cdn.requests[0]!.url.searchParams.get('X-Amz-Signature')).toBe('SIGSECRET123');
    const text = trace.join('\n');
    for (const secret of ['SIGSECRET123', 'CREDSECRET', 'TOKSECRET']) expect(text).not.toContain(secret);
    expect(trace.find((l) => l.startsWith('< location: '))).toBe(
      `< location: ${cdn.url}/f?X-Amz-Signature=[REDACTED]&X-Amz-Credential=[REDACTED]&token=[REDACTED]&part=1`,
    );
    expect(trace.find((l) => l.startsWith('< link: '))).toContain('token=[REDACTED]&part=1>; rel="alternate"');
  });

  it('drops an API key in the query or a header, and every caller header that may be a secret; keeps Accept and Range', async () => {
    const credentials = [
      { scheme: 'query', name: 'key', value: 'k-secret-query-1' },
      { scheme: 'header', name: 'X-Api-Key', value: 'k-secret-header-1' },
      { scheme: 'basic', username: 'u', password: 'p-secret-basic-1' },
    ] as const;
    for (const credential of credentials) {
      api.on('GET', '/asset', { status: 302, headers: { location: `${cdn.url}/blob?sig=signed` } });
      cdn.on('GET', '/blob', { body: 'bytes' });
      const headers = {
        Accept: 'application/octet-stream',
        Range: 'bytes=0-',
        Cookie: 'session=c-secret',
        'Private-Token': 'pt-secret',
        'Mcp-Session-Id': 's-1',
      };
      const res = await client.request({ url: `${api.url}/asset`, credential, headers });
      expect(await res.text()).toBe('bytes');
    }
    for (const r of cdn.requests) {
      expect(r.url.search).toBe('?sig=signed');
      expect(r.headers.accept).toBe('application/octet-stream');
      expect(r.headers.range).toBe('bytes=0-');
      for (const h of ['authorization', 'x-api-key', 'cookie', 'private-token', 'mcp-session-id']) expect(r.headers[h]).toBeUndefined();
    }
    expect(seen(cdn)).not.toMatch(/secret/);
    // The trace of each hop (from the line that announces it) shows no secret.
    const hops = trace.slice(trace.findIndex((l) => l.startsWith('* following the redirect')));
    expect(hops.length).toBeGreaterThan(3);
    expect(hops.filter((l) => !l.startsWith('> private-token:')).join('\n')).not.toMatch(/secret/);
    expect(trace.some((l) => /another origin: sent without the credential and the headers cookie, private-token, mcp-session-id$/.test(l))).toBe(true);
  });

  it("a caller's own Authorization header (-H) goes no further than a provider's credential", async () => {
    api.on('GET', '/go', { status: 307, headers: { location: `${cdn.url}/there` } });
    cdn.on('GET', '/there', { body: { ok: true } });
    const res = await client.request({ url: `${api.url}/go`, headers: { Authorization: `token ${TOKEN}` } });
    expect(await res.json()).toEqual({ ok: true });
    expect(seen(cdn)).not.toContain(TOKEN);
  });

  it("a provider's credential (a DPoP proof made per exchange) is not asked for the other origin's hop", async () => {
    const asked: string[] = [];
    const auth: CredentialProvider = {
      source: 'test',
      perRequest: true,
      credential: async (r) => {
        asked.push(r?.url ?? '');
        return { scheme: 'dpop', token: TOKEN, proof: 'proof-secret' };
      },
    };
    api.on('GET', '/logs', { status: 302, headers: { location: `${cdn.url}/logs.zip` } });
    cdn.on('GET', '/logs.zip', { body: 'zip' });
    expect(await (await client.request({ url: `${api.url}/logs`, auth })).text()).toBe('zip');
    // Asked once as the request is handed over (to name it), then for each exchange: the first origin's only.
    expect(asked.filter(Boolean)).toEqual([`${api.url}/logs`]);
    expect(cdn.requests[0]!.headers.dpop).toBeUndefined();
    expect(seen(cdn)).not.toContain(TOKEN);
  });

  it('once dropped, the credential stays dropped: a hop back to the first origin goes without it', async () => {
    api.on('GET', '/a', { status: 302, headers: { location: `${cdn.url}/b` } });
    cdn.on('GET', '/b', { status: 302, headers: { location: `${api.url}/c` } });
    api.on('GET', '/c', { body: 'c' });
    expect(await (await client.request({ url: `${api.url}/a`, credential: bearer })).text()).toBe('c');
    expect(api.requests[1]!.headers.authorization).toBeUndefined();
  });

  it('a 401 of the other origin does not refresh the credential, nor is it named as the one refused', async () => {
    let refreshed = 0;
    const auth: CredentialProvider = { source: 'env:LANYARD_TOKEN', credential: async () => bearer, refresh: async () => (refreshed++, bearer) };
    api.on('GET', '/dl', { status: 302, headers: { location: `${cdn.url}/expired` } });
    cdn.on('GET', '/expired', { status: 401, body: { message: 'signature expired' } });
    const err = (await client.request({ url: `${api.url}/dl`, auth }).catch((e: unknown) => e)) as HttpError;
    expect(err).toBeInstanceOf(HttpError);
    expect(err.status).toBe(401);
    expect(err.url).toBe(`${cdn.url}/expired`);
    expect(err.credentialSource).toBeUndefined();
    expect(refreshed).toBe(0);
    // That origin's answer, not a verdict on the credential: no `unauthorized` (exit 4), one line naming it.
    expect(err.code).toBe('http_error');
    expect(err.otherOrigin).toBe(cdn.url);
    expect(err.message).toBe(
      `GET ${api.url}/dl: redirected to ${cdn.url}, which answered HTTP 401: signature expired (no credential is sent to another origin)`,
    );
  });

  it('a 401 or 403 a caller takes to judge its credential (okStatus) is thrown when another origin gave it: GET /user, the token check', async () => {
    for (const status of [401, 403]) {
      api.on('GET', '/api/user', { status: 301, headers: { location: `${cdn.url}/api/user` } });
      cdn.on('GET', '/api/user', { status, body: { message: 'Requires authentication' } });
      const err = (await fetchUser(client, `${api.url}/api`, bearer).catch((e: unknown) => e)) as HttpError;
      expect(err).toBeInstanceOf(HttpError);
      expect([err.status, err.code, err.otherOrigin]).toEqual([status, 'http_error', cdn.url]);
      api.on('GET', '/api/user', { status: 301, headers: { location: `${cdn.url}/api/user` } });
      cdn.on('GET', '/api/user', { status, body: { message: 'Requires authentication' } });
      await expect(checkHostingToken(client, `${api.url}/api`, bearer)).rejects.toThrow(/which answered HTTP 40[13]/);
    }
    // The token was never judged by GET /rate_limit (a 403 of the API's own would be).
    expect(api.requests.map((r) => r.url.pathname)).toEqual(['/api/user', '/api/user', '/api/user', '/api/user']);
  });

  it('a 401 of the first origin reached again through another (sent without the credential) does not refresh it either', async () => {
    let refreshed = 0;
    const auth: CredentialProvider = { source: 'env:LANYARD_TOKEN', credential: async () => bearer, refresh: async () => (refreshed++, bearer) };
    api.on('GET', '/a', { status: 302, headers: { location: `${cdn.url}/b` } });
    cdn.on('GET', '/b', { status: 302, headers: { location: `${api.url}/c` } });
    api.on('GET', '/c', { status: 401, body: { message: 'Bad credentials' } });
    const err = (await client.request({ url: `${api.url}/a`, auth }).catch((e: unknown) => e)) as HttpError;
    expect([err.status, err.code, err.otherOrigin]).toEqual([401, 'http_error', api.url]);
    expect(refreshed).toBe(0);
    expect(api.requests).toHaveLength(2);
  });

  it('a user-info Location is refused: nothing reaches the other origin', async () => {
    api.on('GET', '/u', { status: 302, headers: { location: `http://me:pw@127.0.0.1:${new URL(cdn.url).port}/x` } });
    await expect(client.request({ url: `${api.url}/u` })).rejects.toThrow(/to a URL with user-info .*; not followed/);
    expect(cdn.requests).toEqual([]);
  });
});

describe('from https', () => {
  it('to plain http on a host that is not loopback: refused in one line before anything is sent; to loopback: followed without the credential', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'lanyard-redirect-unit-'));
    const ca = privateCa(dir);
    const leaf = ca.issue('api', ['localhost']);
    const server = createHttpsServer({ cert: readFileSync(leaf.cert), key: readFileSync(leaf.key) }, (req, res) => {
      const location = req.url === '/down' ? 'http://downloads.example/o/r.tgz' : `${cdn.url}/r.tgz`;
      res.writeHead(302, { location }).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const https = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const tlsClient = new HttpClient({ clock: new FakeClock(), userAgent: 'lanyard/9.9.9', trust: { extraCa: [readFileSync(ca.caFile, 'utf8')] } });
    try {
      const err = (await tlsClient.request({ url: `${https}/down`, credential: bearer }).catch((e: unknown) => e)) as HttpError;
      expect(err).toBeInstanceOf(HttpError);
      expect(err.message).toBe(`GET ${https}/down: redirected (HTTP 302) from https to plain http://downloads.example/o/r.tgz; not followed`);
      cdn.on('GET', '/r.tgz', { body: 'archive' });
      expect(await (await tlsClient.request({ url: `${https}/loop`, credential: bearer })).text()).toBe('archive');
      expect(cdn.requests[0]!.headers.authorization).toBeUndefined();
    } finally {
      await tlsClient.close();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('methods other than GET and HEAD (as fetch decides)', () => {
  it('a POST answered 302 or 303 becomes a GET without its body; within the origin it keeps its credential', async () => {
    for (const status of [302, 303]) {
      api.on('POST', '/make', { status, headers: { location: '/made/1' } });
      api.on('GET', '/made/1', { body: { id: 1 } });
      const res = await client.request({ method: 'POST', url: `${api.url}/make`, json: { a: 1 }, credential: bearer });
      expect(await res.json()).toEqual({ id: 1 });
    }
    const gets = api.requests.filter((r) => r.method === 'GET');
    expect(gets).toHaveLength(2);
    for (const g of gets) {
      expect(g.body).toBe('');
      expect(g.headers['content-type']).toBeUndefined();
      expect(g.headers.authorization).toBe(`Bearer ${TOKEN}`);
    }
  });

  it('a 303 of a PATCH to another origin: a GET there without the credential', async () => {
    api.on('PATCH', '/x', { status: 303, headers: { location: `${cdn.url}/status` } });
    cdn.on('GET', '/status', { body: { done: true } });
    const res = await client.request({ method: 'PATCH', url: `${api.url}/x`, json: { secret: 'body-secret' }, credential: bearer });
    expect(await res.json()).toEqual({ done: true });
    expect(seen(cdn) + cdn.requests[0]!.body).not.toMatch(/secret|Bearer/);
  });

  it('a 307/308 of a POST, and a 301/302 of a PATCH, PUT or DELETE, are refused: the body and method are not sent elsewhere', async () => {
    const cases: Array<[string, number]> = [
      ['POST', 307],
      ['POST', 308],
      ['PATCH', 301],
      ['PUT', 302],
      ['DELETE', 302],
    ];
    for (const [method, status] of cases) {
      api.on(method, '/w', { status, headers: { location: `${cdn.url}/w` } });
      const err = (await client.request({ method, url: `${api.url}/w`, json: {}, credential: bearer }).catch((e: unknown) => e)) as HttpError;
      expect(err).toBeInstanceOf(HttpError);
      expect(err.message).toMatch(new RegExp(`redirected \\(HTTP ${status}\\) to .*/w; a ${method} is not sent again elsewhere`));
    }
    expect(cdn.requests).toEqual([]);
  });
});

describe('a 307 or 308 within the origin (a write to a renamed repository)', () => {
  it("re-sends the method, its body and the credential to the new path, as the code host's CLI does", async () => {
    for (const status of [307, 308]) {
      api.on('POST', `/repos/old/name/issues${status}`, { status, headers: { location: `/repositories/42/issues${status}` } });
      api.on('POST', `/repositories/42/issues${status}`, { status: 201, body: { number: status } });
      const res = await client.request({ method: 'POST', url: `${api.url}/repos/old/name/issues${status}`, json: { title: 't' }, credential: bearer });
      expect(res.status).toBe(201);
      expect(await res.json()).toEqual({ number: status });
    }
    const resent = api.requests.filter((r) => r.path.startsWith('/repositories/42/'));
    expect(resent.map((r) => [r.method, r.body, r.headers.authorization])).toEqual([
      ['POST', '{"title":"t"}', `Bearer ${TOKEN}`],
      ['POST', '{"title":"t"}', `Bearer ${TOKEN}`],
    ]);
  });

  it('a streamed body cannot be sent twice: refused in one line', async () => {
    api.on('PUT', '/s', { status: 308, headers: { location: '/t' } });
    const err = (await client
      .request({ method: 'PUT', url: `${api.url}/s`, body: Readable.from([Buffer.from('x')]), credential: bearer })
      .catch((e: unknown) => e)) as HttpError;
    expect(err.message).toMatch(/redirected \(HTTP 308\) to .*\/t; a PUT is not sent again elsewhere/);
  });
});

describe('redirectHop (the rule alone, on made-up answers)', () => {
  const answer = (url: string, location: string, status = 302): HttpResponse =>
    ({ status, url, headers: { location }, body: Readable.from([]) }) as unknown as HttpResponse;
  const spec = { url: 'https://api.example/repos/o/r/zipball/main', credential: bearer };

  it('refuses https to plain http on a host that is not loopback, in one line; follows it to loopback, or to a host allowed plain http', () => {
    const down = redirectHop(answer(spec.url, 'http://codeload.example/o/r/zip/main'), 'GET', spec, 0);
    expect(down).toBeInstanceOf(HttpError);
    expect((down as HttpError).message).toBe(
      'GET https://api.example/repos/o/r/zipball/main: redirected (HTTP 302) from https to plain http://codeload.example/o/r/zip/main; not followed',
    );
    const loop = redirectHop(answer(spec.url, 'http://127.0.0.1:9/zip'), 'GET', spec, 0);
    expect(loop).not.toBeInstanceOf(HttpError);
    const allowed = redirectHop(answer(spec.url, 'http://codeload.lab:8080/zip'), 'GET', spec, 0, ['codeload.lab:8080']);
    expect(allowed).not.toBeInstanceOf(HttpError);
  });

  it('keeps the credential within the origin, drops it across; relative and https locations', () => {
    const same = redirectHop(answer(spec.url, '/repositories/1/zipball/main'), 'GET', spec, 0);
    expect(same).toMatchObject({ method: 'GET', spec: { url: 'https://api.example/repositories/1/zipball/main', credential: bearer } });
    const other = redirectHop(answer(spec.url, 'https://codeload.example/o/r/zip/refs/heads/main?token=t-secret'), 'HEAD', spec, 0);
    expect(other).toMatchObject({ method: 'HEAD', spec: { credential: { scheme: 'none' }, auth: undefined } });
  });

  it('bounds the hops', () => {
    const err = redirectHop(answer(spec.url, '/again'), 'GET', spec, 5);
    expect((err as HttpError).message).toMatch(/more than 5 redirects/);
  });
});
