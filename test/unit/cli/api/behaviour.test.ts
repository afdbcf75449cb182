/**
 * `lanyard api`'s behaviour as a run function on fakes (formerly spawned
 * end to end): usage errors are exit 2 before anything is sent, a refusal
 * prints the body on stdout and one hint naming the refused credential and
 * its service's sign-in, exit 4. `-H @FILE` / `-H @-` (curl's form): header
 * lines read from a file or stdin, so a secret header never sits in argv;
 * bad lines, control characters and a second reader of stdin are one-line
 * usage errors that never show the line (it may hold the secret).
 * test/e2e/api.test.ts keeps the wiring.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
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
async function api(target: string, o: Partial<ApiOptions>, env: NodeJS.ProcessEnv = {}, output: OutputChoice = {}, stdin?: string) {
  io = createTestIO(stdin === undefined ? {} : { stdin });
  const profiles = {
    active: 'fake',
    profiles: { fake: { 'hosting.apiUrl': `${stub.url}/api/v3`, 'hosting.webUrl': stub.url, 'health.managementUrl': `${stub.url}/health` } },
  };
  const ctx = contextOnFakes(io, env, { http, credentials: new MemoryCredentialStore(), profiles }, undefined, output);
  const err = await runApi(ctx, target, options(o)).then(
    () => undefined,
    (e: unknown) => e,
  );
  return {
    code: err === undefined ? 0 : exitCodeFor(err),
    stdout: io.stdoutText(),
    stderr: err === undefined ? '' : formatError(err, false),
    secrets: ctx.secrets,
  };
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

describe('lanyard api -H @FILE', () => {
  const ENV = { LANYARD_TOKEN: 'lyp_x' };
  const SECRET = 'glpat-header-file-secret-0001';
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'lanyard-header-file-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  const file = async (name: string, text: string) => {
    const p = join(dir, name);
    await writeFile(p, text);
    return p;
  };

  it('sends each line of the file (CRLF or LF, blank lines skipped), beside -H given inline; the values are secrets of the run', async () => {
    stub.on('GET', '/api/v3/user', () => ({ status: 200, body: { login: 'x' } }));
    const p = await file('h.txt', `Private-Token: ${SECRET}\r\n\r\nX-Trace:  a b \nX-Empty:\n`);
    const r = await api('/user', { header: ['X-Inline: 1', `@${p}`] }, ENV);
    expect(r.code, r.stderr).toBe(0);
    const h = stub.requests[0]!.headers;
    expect([h['private-token'], h['x-trace'], h['x-empty'], h['x-inline']]).toEqual([SECRET, 'a b', '', '1']);
    // Redacted from every line on stderr, as an inline one is.
    expect(r.secrets.redact(`token ${SECRET}`)).not.toContain(SECRET);
  });

  it('-H @- reads them from standard input', async () => {
    stub.on('GET', '/api/v3/user', () => ({ status: 200, body: { login: 'x' } }));
    const r = await api('/user', { header: ['@-'] }, ENV, {}, `Private-Token: ${SECRET}\n`);
    expect(r.code, r.stderr).toBe(0);
    expect(stub.requests[0]!.headers['private-token']).toBe(SECRET);
  });

  it.each([
    [{ header: ['@-'], input: '-', method: 'POST' }, '-H @- and --input - both read standard input: give the headers or the body in a file'],
    [{ header: ['@-'], field: ['v=@-'] }, '-H @- and --field …=@- both read standard input: give the headers or the value in a file'],
    [{ header: ['@-', '@-'] }, '-H @- is given twice: standard input can be read once'],
    [{ header: ['@'] }, '-H @FILE needs a file name (or @- for standard input)'],
    [{ header: ['X-A'] }, '--header expects "Name: value", got "X-A"'],
  ] as Array<[Partial<ApiOptions>, string]>)('%o: exit 2, nothing sent', async (o, message) => {
    const r = await api('/user', o, ENV, {}, 'X: y\n');
    expect([r.code, r.stderr]).toEqual([2, message]);
    expect(stub.requests).toEqual([]);
  });

  it.each([
    ['a line without a colon', `X-A: 1\nPrivate-Token ${SECRET}\n`, (p: string) => `-H @${p}: line 2 of ${p} is not "Name: value"`],
    ['a name that is no token', `Private Token: ${SECRET}\n`, (p: string) => `-H @${p}: line 1 of ${p} is not "Name: value"`],
    [
      'a CR inside a value',
      `Private-Token: ${SECRET}\rX-Injected: 1\n`,
      () => 'the value of header Private-Token holds a control character (CR, LF, NUL, …): it cannot be sent',
    ],
    [
      'a NUL in a value',
      `Private-Token: ${SECRET}\u0000\n`,
      () => 'the value of header Private-Token holds a control character (CR, LF, NUL, …): it cannot be sent',
    ],
  ])('%s: one line naming the line, never its content, exit 2, nothing sent', async (_what, text, message) => {
    const p = await file('bad.txt', text);
    const r = await api('/user', { header: [`@${p}`] }, ENV);
    expect([r.code, r.stderr]).toEqual([2, message(p)]);
    expect(r.stderr).not.toContain(SECRET);
    expect(stub.requests).toEqual([]);
  });

  it('a file that cannot be read: one line, exit 2', async () => {
    const r = await api('/user', { header: [`@${join(dir, 'missing.txt')}`] }, ENV);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(new RegExp(`^-H: ${join(dir, 'missing.txt')} `));
    expect(r.stderr.split('\n')).toHaveLength(1);
    expect(stub.requests).toEqual([]);
  });

  it('an inline value with a control character is refused before sending (exit 2), not by the socket (exit 1)', async () => {
    const r = await api('/user', { header: ['X-A: a\nX-B: b'] }, ENV);
    expect([r.code, r.stderr]).toEqual([2, 'the value of header X-A holds a control character (CR, LF, NUL, …): it cannot be sent']);
  });
});
