import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HttpClient } from '../../../../src/core/http/client.js';
import { AuthRequiredError, LanyardError } from '../../../../src/core/errors.js';
import { eventsUrl, findEvent, HealthApiError, iterateEvents, type EventsQuery } from '../../../../src/core/health/events.js';
import { healthCredential } from '../../../../src/core/health/token.js';

const TOK = healthCredential({ token: 'tok', source: 'environment' });
import { FakeClock } from '../../../fakes/clock.js';
import { StubHttp } from '../../../fakes/stub-http.js';

const PATH = '/subscriptions/sub-1/providers/Microsoft.ResourceHealth/events';
const ev = (name: string) => ({ name, id: `/providers/Microsoft.ResourceHealth/events/${name}`, properties: { title: name, status: 'Active' } });

let stub: StubHttp;
let http: HttpClient;
let q: EventsQuery;

beforeEach(async () => {
  stub = await StubHttp.start();
  http = new HttpClient({ clock: new FakeClock(), userAgent: 'test', random: () => 0 });
  q = { managementUrl: stub.url, subscriptionId: 'sub-1', vendor: 'Microsoft', apiVersion: '2025-05-01' };
});
afterEach(async () => {
  await http.close();
  await stub.close();
});

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

describe('eventsUrl', () => {
  it('always carries api-version and encodes every value', () => {
    expect(eventsUrl({ ...q, filter: "service eq 'A''s'", queryStartTime: '5/12/2025' })).toBe(
      `${stub.url}${PATH}?api-version=2025-05-01&$filter=service%20eq%20%27A%27%27s%27&queryStartTime=5%2F12%2F2025`,
    );
    expect(eventsUrl({ ...q, vendor: 'Contoso', subscriptionId: 'a b' })).toBe(
      `${stub.url}/subscriptions/a%20b/providers/Contoso.ResourceHealth/events?api-version=2025-05-01`,
    );
  });
});

describe('paging', () => {
  it('follows nextLink exactly as given until absent, with the bearer token', async () => {
    const next1 = `${stub.url}${PATH}?api-version=2025-05-01&$skipToken=opaque%2B1`;
    const next2 = `${stub.url}${PATH}?$skipToken=xyz&api-version=2025-05-01`;
    stub.on('GET', PATH, { body: { value: [ev('a'), ev('b')], nextLink: next1 } });
    stub.on('GET', PATH, { body: { value: [ev('c')], nextLink: next2 } });
    stub.on('GET', PATH, { body: { value: [ev('d')] } });
    const names = (await collect(iterateEvents(http, q, TOK, { all: true }))).map((e) => e.name);
    expect(names).toEqual(['a', 'b', 'c', 'd']);
    stub.verify();
    expect(stub.requests[1]!.url.search).toBe('?api-version=2025-05-01&$skipToken=opaque%2B1');
    expect(stub.requests[2]!.url.search).toBe('?$skipToken=xyz&api-version=2025-05-01');
    for (const r of stub.requests) expect(r.headers.authorization).toBe('Bearer tok');
  });

  it('reads only the first page without --all or --max', async () => {
    stub.on('GET', PATH, { body: { value: [ev('a')], nextLink: `${stub.url}${PATH}?$skipToken=2` } });
    const it = iterateEvents(http, q, TOK);
    expect((await it.next()).value).toMatchObject({ name: 'a' });
    const end = await it.next();
    expect(end.done).toBe(true);
    expect(end.value).toEqual({ nextLink: `${stub.url}${PATH}?$skipToken=2` });
    expect(stub.requests).toHaveLength(1);
  });

  it('--max stops early without fetching pages it does not need', async () => {
    stub.on('GET', PATH, { body: { value: [ev('a'), ev('b')], nextLink: `${stub.url}${PATH}?$skipToken=2` } });
    stub.on('GET', PATH, { body: { value: [ev('c'), ev('d')], nextLink: `${stub.url}${PATH}?$skipToken=3` } });
    const names = (await collect(iterateEvents(http, q, TOK, { max: 3 }))).map((e) => e.name);
    expect(names).toEqual(['a', 'b', 'c']);
    expect(stub.requests).toHaveLength(2);
    stub.verify();
  });

  it('never sends the token to another host', async () => {
    stub.on('GET', PATH, { body: { value: [ev('a')], nextLink: 'https://evil.example/steal?x=1' } });
    await expect(collect(iterateEvents(http, q, TOK, { all: true }))).rejects.toThrow(/another host/);
  });

  it('stops on a nextLink loop', async () => {
    const loop = `${stub.url}${PATH}?$skipToken=same`;
    stub.on('GET', PATH, { body: { value: [ev('a')], nextLink: loop } }, 2);
    await expect(collect(iterateEvents(http, q, TOK, { all: true }))).rejects.toThrow(/same nextLink twice/);
    // The first page, then the nextLink (exactly as given) once: the same nextLink again is not fetched.
    expect(stub.requests.map((r) => r.url.search)).toEqual(['?api-version=2025-05-01', '?$skipToken=same']);
  });

  it('findEvent pages until the tracking id is found', async () => {
    stub.on('GET', PATH, { body: { value: [ev('a')], nextLink: `${stub.url}${PATH}?$skipToken=2` } });
    stub.on('GET', PATH, { body: { value: [ev('BC_1-FXZ')] } });
    expect((await findEvent(http, q, TOK, 'bc_1-fxz'))?.name).toBe('BC_1-FXZ');
  });

  it('refuses a 200 without a value array', async () => {
    stub.on('GET', PATH, { body: { items: [] } });
    await expect(collect(iterateEvents(http, q, TOK))).rejects.toThrow(LanyardError);
  });
});

describe('errors', () => {
  it('a 400 ErrorResponse becomes "code: message" and details', async () => {
    stub.on('GET', PATH, { status: 400, body: { code: 'InvalidFilterInQueryString', message: 'Invalid $filter.', details: 'Use service or region.' } });
    const err = await collect(iterateEvents(http, q, TOK)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HealthApiError);
    expect((err as HealthApiError).status).toBe(400);
    expect((err as Error).message).toBe('InvalidFilterInQueryString: Invalid $filter.\nUse service or region.');
  });
  it('401 and 403 are authentication errors (exit 4): sign in to the health API, or a hint', async () => {
    stub.on('GET', PATH, { status: 401, body: { code: 'ExpiredAuthenticationToken', message: 'The access token expired.' } });
    stub.on('GET', PATH, { status: 403, body: { code: 'AuthorizationFailed', message: 'No access.' } });
    const e1 = await collect(iterateEvents(http, q, TOK)).catch((e: unknown) => e);
    expect(e1).toBeInstanceOf(AuthRequiredError);
    expect((e1 as AuthRequiredError).message).toBe('ExpiredAuthenticationToken: The access token expired.');
    expect((e1 as AuthRequiredError).remedy).toEqual({ kind: 'sign-in', service: 'health' });
    expect((e1 as AuthRequiredError).service).toBe('health');
    const e2 = await collect(iterateEvents(http, q, TOK)).catch((e: unknown) => e);
    expect(e2).toBeInstanceOf(AuthRequiredError);
    expect((e2 as Error).message).toBe('AuthorizationFailed: No access.');
  });
  it('a non-JSON error body still gives one line', async () => {
    stub.on('GET', PATH, { status: 404, body: 'no such route', headers: { 'content-type': 'text/plain' } });
    await expect(collect(iterateEvents(http, q, TOK))).rejects.toThrow(/^HTTP 404: no such route$/);
  });
});
