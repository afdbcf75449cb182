/**
 * The request journal: what a script sent, per request, secrets redacted -
 * from the library (`requests()`, `onRequest`) and from the CLI
 * (`lanyard emulator requests`, also `--follow --ndjson`).
 */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { BIN, cleanEnv, runCli } from './harness.js';
import { useInProcessEmulator } from './in-process-emulator.js';

const ref = useInProcessEmulator();

async function script(): Promise<{ secrets: string[] }> {
  const { hosting } = ref.emu.fixtures;
  const app = hosting.app;
  const api = ref.emu.urls.hosting.api;
  await (await fetch(`${api}/user`, { headers: { authorization: `token ${hosting.personalToken}` } })).text();
  await (
    await fetch(`${ref.emu.url}/login/oauth/access_token?client_secret=${app.clientSecret}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams({ client_id: app.clientId, code: 'the-code-0123', refresh_token: 'ghr_refresh0123' }),
    })
  ).text();
  await (
    await fetch(`${api}/applications/${app.clientId}/token`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${app.clientId}:${app.clientSecret}`).toString('base64')}`, 'content-type': 'application/json' },
      body: JSON.stringify({ access_token: hosting.personalToken }),
    })
  ).text();
  return { secrets: [hosting.personalToken, app.clientSecret!, 'the-code-0123', 'ghr_refresh0123', hosting.user.password] };
}

describe('the request journal', () => {
  it('in process: each request with service, caller, status, duration and fault; no secret anywhere', async () => {
    ref.emu.clearRequests();
    ref.emu.fault({ type: 'status', status: 502, path: '/api/v3/rate_limit', count: 1 });
    const seen: string[] = [];
    const off = ref.emu.onRequest((e) => seen.push(`${e.method} ${e.path}`));
    const { secrets } = await script();
    await (await fetch(`${ref.emu.urls.hosting.api}/rate_limit`)).text();
    off();
    const all = ref.emu.requests();
    expect(all.map((e) => `${e.method} ${e.path}`)).toEqual(seen);
    const [user, token, check, limited] = all;
    expect(user).toMatchObject({ service: 'hosting', method: 'GET', path: '/api/v3/user', status: 200, caller: { login: 'mona', auth: 'token' } });
    expect(user!.headers.authorization).toBe('token [redacted]');
    expect(token).toMatchObject({ service: 'hosting', method: 'POST', path: '/login/oauth/access_token', query: { client_secret: '[redacted]' } });
    expect(token!.body).toMatchObject({ client_id: ref.emu.fixtures.hosting.app.clientId, code: '[redacted]', refresh_token: '[redacted]' });
    expect(check!.headers.authorization).toBe(`Basic ${ref.emu.fixtures.hosting.app.clientId}:[redacted]`);
    expect(check!.body).toEqual({ access_token: '[redacted]' });
    expect(limited).toMatchObject({ status: 502, fault: { type: 'status' } });
    expect(typeof limited!.durationMs).toBe('number');
    expect(Date.parse(limited!.time)).not.toBeNaN();
    const text = JSON.stringify(all);
    for (const s of secrets) expect(text).not.toContain(s);
    expect(ref.emu.requests({ service: 'mailbox' })).toEqual([]);
    expect(ref.emu.requests({ since: user!.seq }).length).toBe(3);
  });

  it('a body over 64 KiB is kept truncated, marked, redacted before it was cut', async () => {
    ref.emu.clearRequests();
    const { hosting } = ref.emu.fixtures;
    const app = hosting.app;
    const body = JSON.stringify({ access_token: hosting.personalToken, padding: 'p'.repeat(2 ** 20) });
    for (let i = 0; i < 3; i++) {
      await (
        await fetch(`${ref.emu.urls.hosting.api}/applications/${app.clientId}/token`, {
          method: 'POST',
          headers: { authorization: `Basic ${Buffer.from(`${app.clientId}:${app.clientSecret}`).toString('base64')}`, 'content-type': 'application/json' },
          body,
        })
      ).text();
    }
    const all = ref.emu.requests();
    expect(all).toHaveLength(3);
    for (const e of all) {
      expect(e.body).toMatchObject({ truncated: true, bytes: Buffer.byteLength(body), contentType: 'application/json' });
      const preview = (e.body as { preview: string }).preview;
      expect(Buffer.byteLength(preview)).toBeLessThanOrEqual(64 * 1024);
      expect(preview.startsWith('{"access_token":"[redacted]","padding":"ppp')).toBe(true);
    }
    expect(JSON.stringify(all)).not.toContain(hosting.personalToken);
  });

  it('emulator start takes the bounds from LANYARD_EMULATOR_JOURNAL_*; a bad value is exit 2 naming the variable', async () => {
    const bad = await runCli(['emulator', 'start', '--port', '0', '--no-profile', '-q'], { env: { LANYARD_EMULATOR_JOURNAL_ENTRIES: '' } });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('LANYARD_EMULATOR_JOURNAL_ENTRIES must be a whole number >= 1');
    const child = spawn(process.execPath, [BIN, 'emulator', 'start', '--port', '0', '--no-profile', '-q'], {
      env: { ...cleanEnv(), LANYARD_EMULATOR_JOURNAL_ENTRIES: '3' },
    });
    try {
      let out = '';
      child.stdout.on('data', (c: Buffer) => (out += c.toString()));
      for (let i = 0; i < 200 && !/listening on (\S+)/.test(out); i++) await new Promise((r) => setTimeout(r, 50));
      const url = /listening on (\S+)/.exec(out)![1]!;
      for (let i = 0; i < 5; i++) await (await fetch(`${url}/api/v3/rate_limit`)).text();
      const { requests } = (await (await fetch(`${url}/_emulator/requests`)).json()) as { requests: Array<{ seq: number }> };
      expect(requests.map((r) => r.seq)).toEqual([3, 4, 5]);
    } finally {
      child.kill('SIGTERM');
    }
  });

  it('from the CLI: --json, --service, and --follow --ndjson as requests arrive', async () => {
    ref.emu.clearRequests();
    await script();
    await (await fetch(`${ref.emu.urls.mailbox.api}/label/0`)).text();
    const json = await runCli(['emulator', 'requests', '--url', ref.emu.url, '--json', '--service', 'hosting']);
    expect(json.code, json.stderr).toBe(0);
    const rows = JSON.parse(json.stdout) as Array<{ service: string; path: string }>;
    expect(rows.map((r) => r.path)).toEqual([
      '/api/v3/user',
      '/login/oauth/access_token',
      `/api/v3/applications/${ref.emu.fixtures.hosting.app.clientId}/token`,
    ]);
    const human = await runCli(['emulator', 'requests', '--url', ref.emu.url]);
    expect(human.stdout).toMatch(/mailbox\s+GET\s+\/rest\/v2\/example\.com\/alice\/mailbox\/label\/0\s+200/);
    expect(human.stdout).not.toContain(ref.emu.fixtures.hosting.personalToken);

    const child = spawn(process.execPath, [BIN, 'emulator', 'requests', '--url', ref.emu.url, '--follow', '--ndjson', '--service', 'echo'], {
      env: cleanEnv(),
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    await new Promise((r) => setTimeout(r, 1500));
    await (await fetch(`${ref.emu.url}/echo`, { headers: { 'x-api-key': ref.emu.fixtures.echo.apiKeys[0]! } })).text();
    for (let i = 0; i < 100 && !out.includes('\n'); i++) await new Promise((r) => setTimeout(r, 100));
    child.kill('SIGINT');
    const lines = out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { service: string; path: string; headers: Record<string, string> });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ service: 'echo', path: '/echo' });
    expect(lines[0]!.headers['x-api-key']).toBe('[redacted]');
  });
});
