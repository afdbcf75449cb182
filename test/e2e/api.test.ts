/**
 * `lanyard api` end to end: paths, URLs, fields, pagination, -i and credentials per service over real HTTP.
 * Usage errors and refusals (exit codes, hints) are tested on fakes: test/unit/cli/api/behaviour.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorld, type World } from './harness.js';

describe('lanyard api', () => {
  let world: World;
  let token: string;
  let apiKey: string;
  beforeAll(async () => {
    world = await startWorld();
    const info = (await world.admin('info', undefined, 'GET')) as { hosting: { personalToken: string }; echo: { apiKeys: Array<{ key: string }> } };
    token = info.hosting.personalToken;
    apiKey = info.echo.apiKeys[0]!.key;
  });
  afterAll(() => world.stop());
  const run = (args: string[], env: Record<string, string> = {}, input?: string) =>
    world.run(['--profile', 'emulator', 'api', ...args], { env: { LANYARD_TOKEN: token, ...env }, input });

  it('GET a path of the hosting API with the token injected, JSON on stdout', async () => {
    const r = await run(['/user']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ login: 'mona' });
    expect(r.stdout + r.stderr).not.toContain(token);
  });

  it('-i prints the status line and the rate-limit headers before the body', async () => {
    const r = await run(['-i', '/user']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^HTTP 200\n/);
    expect(r.stdout).toMatch(/\nx-ratelimit-limit: 5000\n/);
    expect(r.stdout).toMatch(/\nx-ratelimit-resource: core\n/);
  });

  it('-f/-F build a JSON body for POST (typed with -F) and query parameters for GET', async () => {
    const created = await run(['-X', 'POST', '/user/repos', '-f', 'name=api-e2e', '-F', 'private=true', '-f', 'description=from the api test']);
    expect(created.code, created.stderr).toBe(0);
    expect(JSON.parse(created.stdout)).toMatchObject({ full_name: 'mona/api-e2e', private: true, description: 'from the api test' });
    const found = await run(['-X', 'GET', '/search/repositories', '-f', 'q=api-e2e']);
    expect(found.code, found.stderr).toBe(0);
    expect(JSON.stringify(JSON.parse(found.stdout))).toContain('api-e2e');
  });

  it('--input streams a request body from stdin', async () => {
    const r = await run(['-X', 'POST', '/user/repos', '--input', '-'], {}, JSON.stringify({ name: 'from-stdin' }));
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ name: 'from-stdin' });
  });

  it('--paginate follows Link rel="next" into one array; --ndjson prints one item per line', async () => {
    for (let i = 0; i < 5; i++) expect((await run(['-X', 'POST', '/user/repos', '-f', `name=page-${i}`])).code).toBe(0);
    const single = JSON.parse((await run(['/user/repos?per_page=100'])).stdout) as Array<{ id: number }>;
    const paged = await run(['/user/repos?per_page=2', '--paginate']);
    expect(paged.code, paged.stderr).toBe(0);
    const all = JSON.parse(paged.stdout) as Array<{ id: number }>;
    expect(all.length).toBeGreaterThan(4);
    expect(all.map((r) => r.id)).toEqual(single.map((r) => r.id));
    const nd = await run(['/user/repos?per_page=3', '--paginate', '--ndjson']);
    expect(
      nd.stdout
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { id: number }).id),
    ).toEqual(single.map((r) => r.id));
  });

  it("a full URL of a configured service gets that service's credential; a foreign URL gets none", async () => {
    const echo = await world.run(['--profile', 'emulator', 'api', '-X', 'POST', `${world.url}/echo`, '-f', 'message=hi'], { env: { LANYARD_API_KEY: apiKey } });
    expect(echo.code, echo.stderr).toBe(0);
    expect(JSON.parse(echo.stdout)).toEqual({ message: 'hi' });
    const foreign = await run(['http://127.0.0.2:9/elsewhere'], { LANYARD_DEBUG: '1' });
    expect(foreign.stderr).toMatch(/without credentials/);
    expect(foreign.stderr).not.toMatch(/authorization:/i);
  });

  it('--service mailbox paginates by start id without repeating the boundary', async () => {
    const one = JSON.parse((await world.run(['--profile', 'emulator', 'api', '--service', 'mailbox', '/label/0?count=500'])).stdout) as string[];
    const r = await world.run(['--profile', 'emulator', 'api', '--service', 'mailbox', '/label/0?count=2', '--paginate']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(one);
  });
});
