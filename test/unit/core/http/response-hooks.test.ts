/** The code host's single sign-on mapping is its hook on the HTTP client: the generic client, without it, knows no service. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HttpClient } from '../../../../src/core/http/client.js';
import { AuthRequiredError, HttpError } from '../../../../src/core/errors.js';
import { ssoHook } from '../../../../src/core/hosting/sso.js';
import { FakeClock } from '../../../fakes/clock.js';
import { StubHttp } from '../../../fakes/stub-http.js';

let stub: StubHttp;
let client: HttpClient | undefined;

beforeEach(async () => {
  stub = await StubHttp.start();
});

afterEach(async () => {
  await client?.close();
  await stub.close();
});

const SSO_URL = 'https://h.example/orgs/o/sso?authorization_request=A1';

describe('response hooks', () => {
  it('without the code host hook, a 403 with X-GitHub-SSO is a plain HttpError', async () => {
    stub.on('GET', '/orgs/o/repos', { status: 403, headers: { 'x-github-sso': `required; url=${SSO_URL}` }, body: { message: 'SSO' } });
    client = new HttpClient({ clock: new FakeClock(), userAgent: 't' });
    const err = await client.request({ url: `${stub.url}/orgs/o/repos` }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HttpError);
  });

  it('with ssoHook, the 403 becomes the one-line sign-on error (exit 4), and partial results are reported with the URL redacted', async () => {
    stub.on('GET', '/orgs/o/repos', { status: 403, headers: { 'x-github-sso': `required; url=${SSO_URL}` }, body: { message: 'SSO' } });
    stub.on('GET', '/user/repos', { headers: { 'x-github-sso': 'partial-results; organizations=1,2' }, body: [] });
    const seen: Array<[string[], string]> = [];
    client = new HttpClient({ clock: new FakeClock(), userAgent: 't', responseHooks: [ssoHook((orgs, url) => seen.push([orgs, url]))] });
    const err = await client.request({ url: `${stub.url}/orgs/o/repos` }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AuthRequiredError);
    expect((err as Error).message).toBe(`the organisation enforces single sign-on: authorise the token at ${SSO_URL}`);
    await (await client.request({ url: `${stub.url}/user/repos?token=x` })).dump();
    expect(seen).toEqual([[['1', '2'], `${stub.url}/user/repos?token=[REDACTED]`]]);
  });
});
