/**
 * `lanyard api` against the in-process emulator as a run function (formerly
 * spawned in test/e2e/api.test.ts, which keeps one GET through the program and
 * the --debug trace of a foreign URL): -i, -f/-F, --input from stdin,
 * --paginate and --ndjson, a full URL of another configured service, and the
 * mailbox's pagination by start id.
 */
import { describe, expect, it } from 'vitest';
import type { ApiOptions } from '../../../../src/cli/commands/api/options.js';
import { runApi } from '../../../../src/cli/commands/api/run.js';
import { type RunOptions, useEmulatorCommands } from '../on-emulator.js';

const cmd = useEmulatorCommands();
const TOKEN = 'lyp_emulator_default_token_0000000000000001';
const api = async (target: string, o: Partial<ApiOptions> = {}, r: RunOptions = {}) => {
  const res = await cmd.run((ctx) => runApi(ctx, target, { header: [], rawField: [], field: [], service: 'hosting', ...o }), {
    ...r,
    env: { LANYARD_TOKEN: TOKEN, ...r.env },
  });
  expect(res.code, res.stderr).toBe(0);
  return res;
};

describe('lanyard api on the emulator', () => {
  it('-i prints the status line and the rate-limit headers before the body', async () => {
    const r = await api('/user', { include: true });
    expect(r.stdout).toMatch(/^HTTP 200\n/);
    expect(r.stdout).toMatch(/\nx-ratelimit-limit: 5000\n/);
    expect(r.stdout).toMatch(/\nx-ratelimit-resource: core\n/);
  });

  it('-f/-F build a JSON body for POST (typed with -F) and query parameters for GET', async () => {
    const created = await api('/user/repos', { method: 'POST', rawField: ['name=api-e2e', 'description=from the api test'], field: ['private=true'] });
    expect(JSON.parse(created.stdout)).toMatchObject({ full_name: 'mona/api-e2e', private: true, description: 'from the api test' });
    const found = await api('/search/repositories', { method: 'GET', rawField: ['q=api-e2e'] });
    expect(JSON.stringify(JSON.parse(found.stdout))).toContain('api-e2e');
  });

  it('--input streams a request body from stdin', async () => {
    const r = await api('/user/repos', { method: 'POST', input: '-' }, { stdin: JSON.stringify({ name: 'from-stdin' }) });
    expect(JSON.parse(r.stdout)).toMatchObject({ name: 'from-stdin' });
  });

  it('--paginate follows Link rel="next" into one array; --ndjson prints one item per line', async () => {
    for (let i = 0; i < 5; i++) await api('/user/repos', { method: 'POST', rawField: [`name=page-${i}`] });
    const single = JSON.parse((await api('/user/repos?per_page=100')).stdout) as Array<{ id: number }>;
    const all = JSON.parse((await api('/user/repos?per_page=2', { paginate: true })).stdout) as Array<{ id: number }>;
    expect(all.length).toBeGreaterThan(4);
    expect(all.map((r) => r.id)).toEqual(single.map((r) => r.id));
    const nd = await api('/user/repos?per_page=3', { paginate: true }, { format: 'ndjson' });
    expect(
      nd.stdout
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { id: number }).id),
    ).toEqual(single.map((r) => r.id));
  });

  it("a full URL of a configured service gets that service's credential", async () => {
    const key = (cmd.emu.fixtures.echo.apiKeys as string[])[0]!;
    const echo = await api(`${cmd.emu.url}/echo`, { method: 'POST', rawField: ['message=hi'] }, { env: { LANYARD_API_KEY: key } });
    expect(JSON.parse(echo.stdout)).toEqual({ message: 'hi' });
  });

  it('--service mailbox paginates by start id without repeating the boundary', async () => {
    const one = JSON.parse((await api('/label/0?count=500', { service: 'mailbox' })).stdout) as string[];
    expect(one.length).toBeGreaterThan(2);
    const r = await api('/label/0?count=2', { service: 'mailbox', paginate: true });
    expect(JSON.parse(r.stdout)).toEqual(one);
  });
});
