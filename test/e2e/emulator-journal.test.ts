/**
 * The request journal: what a script sent, per request, secrets redacted -
 * from the library (`requests()`, `onRequest`), an emulator process
 * bounded by LANYARD_EMULATOR_JOURNAL_*, and `requests --follow` spawned,
 * polling on the live clock. `lanyard emulator requests` (also
 * `--follow --ndjson`) and the variables' check are tested on the run
 * functions in test/unit/cli/emulator/journal.test.ts.
 */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { BIN, cleanEnv } from './harness.js';
import { useInProcessEmulator } from './in-process-emulator.js';
import { journalScript } from './journal-script.js';

const ref = useInProcessEmulator();

describe('the request journal', () => {
  it('in process: each request with service, caller, status, duration and fault; no secret anywhere', async () => {
    ref.emu.clearRequests();
    ref.emu.fault({ type: 'status', status: 502, path: '/api/v3/rate_limit', count: 1 });
    const seen: string[] = [];
    const off = ref.emu.onRequest((e) => seen.push(`${e.method} ${e.path}`));
    const { secrets } = await journalScript(ref.emu);
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

  it('a reset empties the journal (in process and over HTTP); the numbering goes on, so a `since` taken before misses nothing', async () => {
    await (await fetch(`${ref.emu.urls.hosting.api}/rate_limit`)).text();
    const before = ref.emu.requests().at(-1)!.seq;
    await ref.emu.reset();
    expect(ref.emu.requests()).toEqual([]);
    await (await fetch(`${ref.emu.urls.hosting.api}/rate_limit`)).text();
    const after = ref.emu.requests();
    expect(after.map((e) => e.path)).toEqual(['/api/v3/rate_limit']);
    expect(ref.emu.requests({ since: before })).toEqual(after);
    expect((await fetch(`${ref.emu.urls.admin}/reset`, { method: 'POST' })).status).toBe(200);
    expect(ref.emu.requests().map((e) => `${e.method} ${e.path}`)).toEqual(['POST /_emulator/reset']);
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

  it('requests --follow --ndjson, on the live clock: a request made while it follows is printed within seconds; Ctrl-C is exit 130', async () => {
    const echo = () => fetch(`${ref.emu.url}/echo`, { headers: { 'x-api-key': ref.emu.fixtures.echo.apiKeys[0]! } }).then((r) => r.text());
    await echo();
    const child = spawn(process.execPath, [BIN, 'emulator', 'requests', '--follow', '--ndjson', '--service', 'echo', '--url', ref.emu.url], {
      env: cleanEnv(),
    });
    try {
      let out = '';
      child.stdout.on('data', (c: Buffer) => (out += c.toString()));
      const lines = () => out.split('\n').filter(Boolean).length;
      // The first line is the request made before: the follower has read the journal once.
      for (let i = 0; i < 400 && lines() < 1; i++) await new Promise((r) => setTimeout(r, 25));
      expect(lines()).toBe(1);
      const t0 = performance.now();
      await echo();
      for (let i = 0; i < 400 && lines() < 2; i++) await new Promise((r) => setTimeout(r, 25));
      expect(lines()).toBe(2);
      expect(performance.now() - t0).toBeLessThan(5000);
      const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
      child.kill('SIGINT');
      expect(await exited).toBe(130);
    } finally {
      child.kill('SIGTERM');
    }
  });

  it('emulator start takes the bounds from LANYARD_EMULATOR_JOURNAL_*', async () => {
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
});
