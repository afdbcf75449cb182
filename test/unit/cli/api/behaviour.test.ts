/**
 * `lanyard api`'s behaviour as a run function on fakes (formerly spawned
 * end to end): usage errors are exit 2 before anything is sent, a refusal
 * prints the body on stdout and one hint naming the refused credential and
 * its service's sign-in, exit 4. test/e2e/api.test.ts keeps the wiring.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runApi } from '../../../../src/cli/commands/api/run.js';
import type { ApiOptions } from '../../../../src/cli/commands/api/options.js';
import { exitCodeFor, formatError } from '../../../../src/cli/errors/exit.js';
import type { OutputChoice } from '../../../../src/cli/output/output.js';
import { HttpClient } from '../../../../src/core/http/client.js';
import { FakeClock } from '../../../fakes/clock.js';
import { MemoryCredentialStore } from '../../../fakes/credential-store.js';
import { createTestIO, type TestIO } from '../../../fakes/io.js';
import { StubHttp } from '../../../fakes/stub-http.js';
import { contextOnFakes } from '../../../fakes/context.js';

let stub: StubHttp;
let http: HttpClient;
let io: TestIO;

const options = (o: Partial<ApiOptions> = {}): ApiOptions => ({ header: [], rawField: [], field: [], service: 'hosting', ...o });

beforeEach(async () => {
  stub = await StubHttp.start();
  http = new HttpClient({ clock: new FakeClock(), userAgent: 'test' });
});
afterEach(async () => {
  await http.close();
  await stub.close();
});

/** Runs `lanyard api` on fakes: exit code, stdout, the stderr lines main would print. */
async function api(target: string, o: Partial<ApiOptions>, env: NodeJS.ProcessEnv = {}, output: OutputChoice = {}) {
  io = createTestIO();
  const profiles = {
    active: 'fake',
    profiles: { fake: { 'hosting.apiUrl': `${stub.url}/api/v3`, 'hosting.webUrl': stub.url, 'health.managementUrl': `${stub.url}/health` } },
  };
  const ctx = contextOnFakes(io, env, { http, credentials: new MemoryCredentialStore(), profiles }, undefined, output);
  const err = await runApi(ctx, target, options(o)).then(
    () => undefined,
    (e: unknown) => e,
  );
  return { code: err === undefined ? 0 : exitCodeFor(err), stdout: io.stdoutText(), stderr: err === undefined ? '' : formatError(err, false) };
}

describe('lanyard api: usage errors (exit 2, nothing sent)', () => {
  it.each([
    // --ndjson is the run's output (as the root hook makes it), not an option of the command's own.
    [{}, '--ndjson goes with --paginate', { format: 'ndjson' }],
    [{ field: ['novalue'] }, '--field expects key=value, got "novalue"'],
    [{ method: 'POST', paginate: true }, '--paginate works with GET requests only'],
    [{ method: 'POST', input: 'missing-file' }, '--input missing-file: cannot read it (no such file)'],
    [{ method: 'POST', input: '/tmp' }, '--input /tmp: cannot read it (a directory)'],
  ] as Array<[Partial<ApiOptions>, string, OutputChoice?]>)('%o', async (o, message, output) => {
    const r = await api('/user/repos', o, { LANYARD_TOKEN: 'lyp_x' }, output);
    expect([r.code, r.stdout, r.stderr]).toEqual([2, '', message]);
    expect(stub.requests).toEqual([]);
  });
});

describe('lanyard api: a refused credential (exit 4, the body on stdout, one hint)', () => {
  const refuseUser = () => stub.on('GET', '/api/v3/user', () => ({ status: 401, body: { message: 'Requires authentication' } }));

  it('no token at all: says none was sent and how to sign in', async () => {
    refuseUser();
    const r = await api('/user', {});
    expect(r.code).toBe(4);
    expect(JSON.parse(r.stdout)).toEqual({ message: 'Requires authentication' });
    expect(r.stderr.split('\n')).toHaveLength(2);
    expect(r.stderr.split('\n')[1]).toBe('authentication needed: no token was sent; sign in with `lanyard auth device` (or set LANYARD_TOKEN)');
  });

  it('a token from the environment: names the variable, never the token', async () => {
    refuseUser();
    const r = await api('/user', {}, { LANYARD_TOKEN: 'ghp_not-a-real-token-000000000000' });
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/the token from LANYARD_TOKEN was refused: .*lanyard auth device/);
    expect(r.stderr).not.toMatch(/auth login/);
    expect(r.stdout + r.stderr).not.toContain('ghp_not-a-real-token');
  });

  it('another service: its own words (health)', async () => {
    stub.on('GET', '/health/subscriptions/x/events', () => ({ status: 401, body: { error: { code: 'InvalidAuthenticationToken' } } }));
    const r = await api('/subscriptions/x/events', { service: 'health' }, { LANYARD_HEALTH_TOKEN: 'not-a-health-token' });
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/the health token from LANYARD_HEALTH_TOKEN was refused/);
    expect(r.stderr).toMatch(/lanyard auth login --health/);
  });
});
