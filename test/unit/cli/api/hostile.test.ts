/**
 * `lanyard api` against a hostile server on 127.0.0.1, as a run function on
 * fakes (formerly spawned in test/e2e/api-hostile.test.ts, which keeps the
 * request deadline the program builds from --timeout / LANYARD_TIMEOUT and
 * mailbox raw): a next-page link to another origin or to itself (exit 1 and
 * one line), a redirect to another origin (followed without the token), a
 * bare 307. The token never leaves its origin.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ApiOptions } from '../../../../src/cli/commands/api/options.js';
import { runApi } from '../../../../src/cli/commands/api/run.js';
import { exitCodeFor, formatError } from '../../../../src/cli/errors/exit.js';
import { HttpClient } from '../../../../src/core/http/client.js';
import { FakeClock } from '../../../fakes/clock.js';
import { contextOnFakes } from '../../../fakes/context.js';
import { MemoryCredentialStore } from '../../../fakes/credential-store.js';
import { createTestIO } from '../../../fakes/io.js';
import { StubHttp } from '../../../fakes/stub-http.js';

const TOKEN = 'lyp_hostile_test_token_000000000000000001';
let hostile: StubHttp;
let thief: StubHttp;

beforeEach(async () => {
  [hostile, thief] = await Promise.all([StubHttp.start(), StubHttp.start()]);
});
afterEach(async () => {
  await Promise.all([hostile.close(), thief.close()]);
});

async function api(target: string, o: Partial<ApiOptions> = {}) {
  const io = createTestIO();
  const http = new HttpClient({ clock: new FakeClock(), userAgent: 'test' });
  const profiles = { active: 'hostile', profiles: { hostile: { 'hosting.apiUrl': `${hostile.url}/api` } } };
  const ctx = contextOnFakes(io, { LANYARD_TOKEN: TOKEN }, { http, credentials: new MemoryCredentialStore(), profiles });
  const err = await runApi(ctx, target, { header: [], rawField: [], field: [], service: 'hosting', ...o }).then(
    () => undefined,
    (e: unknown) => e,
  );
  await http.close();
  return {
    code: err === undefined ? 0 : exitCodeFor(err),
    stdout: io.stdoutText(),
    stderr: io.stderrText() + (err === undefined ? '' : formatError(err, false)),
  };
}

describe('lanyard api against a hostile server', () => {
  it('--paginate does not follow a Link to another origin: no token leaves, exit 1, one line', async () => {
    hostile.on('GET', '/api/cross', { body: [{ id: 1 }], headers: { link: `<${thief.url}/api/cross?page=2>; rel="next"` } });
    const r = await api('/cross', { paginate: true });
    expect(r.code).toBe(1);
    expect(thief.requests).toEqual([]);
    expect(r.stderr).toMatch(/next page is on another origin \(http:\/\/127\.0\.0\.1:\d+\); not followed/);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stdout + r.stderr).not.toContain(TOKEN);
  });

  it('--paginate on a Link to itself stops with an error instead of looping', async () => {
    hostile.on('GET', '/api/self', { body: [{ id: 1 }], headers: { link: `<${hostile.url}/api/self>; rel="next"` } });
    const r = await api('/self', { paginate: true });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/repeats a page already fetched/);
    expect(hostile.requests).toHaveLength(1);
  });

  it('a redirect to another origin is followed without the token (a download endpoint); a bare 307 is an error, not an empty success', async () => {
    hostile.on('GET', '/api/found', { status: 302, headers: { location: `${thief.url}/api/elsewhere` } });
    thief.on('GET', '/api/elsewhere', { headers: { 'content-type': 'application/octet-stream' }, body: 'the archive' });
    hostile.on('GET', '/api/temp', { status: 307 });
    const found = await api('/found');
    expect(found.code).toBe(0);
    expect(found.stdout).toBe('the archive');
    expect(thief.requests[0]!.headers.authorization).toBeUndefined();
    expect(JSON.stringify(thief.requests.map((r) => [r.url.toString(), r.headers]))).not.toContain(TOKEN);
    const temp = await api('/temp');
    expect(temp.code).toBe(1);
    expect(temp.stderr).toMatch(/HTTP 307 \(a redirect\) without a Location/);
  });
});
