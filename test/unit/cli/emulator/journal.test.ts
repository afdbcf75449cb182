/**
 * `lanyard emulator requests` (--json, --service, the human rows, --follow
 * --ndjson as requests arrive) and the start command's check of the journal
 * variables, as run functions against the in-process emulator (formerly
 * spawned). test/e2e/emulator-journal.test.ts keeps the journal itself
 * (library calls) and a started emulator process bounded by the variables.
 */
import { describe, expect, it } from 'vitest';
import { runEmulatorRequests, runEmulatorStart } from '../../../../src/cli/commands/emulator/run.js';
import { journalScript } from '../../../e2e/journal-script.js';
import { useEmulatorCommands } from '../on-emulator.js';

const on = useEmulatorCommands();

describe('emulator requests', () => {
  it('--json with --service; human rows without a secret', async () => {
    on.emu.clearRequests();
    await journalScript(on.emu);
    await (await fetch(`${on.emu.urls.mailbox.api}/label/0`)).text();
    const json = await on.run((c) => runEmulatorRequests(c, { url: on.emu.url, service: 'hosting' }), { format: 'json' });
    expect(json.code, json.stderr).toBe(0);
    expect((JSON.parse(json.stdout) as Array<{ path: string }>).map((r) => r.path)).toEqual([
      '/api/v3/user',
      '/login/oauth/access_token',
      `/api/v3/applications/${on.emu.fixtures.hosting.app.clientId}/token`,
    ]);
    const human = await on.run((c) => runEmulatorRequests(c, { url: on.emu.url }));
    expect(human.stdout).toMatch(/mailbox\s+GET\s+\/rest\/v2\/example\.com\/alice\/mailbox\/label\/0\s+200/);
    expect(human.stdout).not.toContain(on.emu.fixtures.hosting.personalToken);
  });

  it('--follow --ndjson prints requests as they arrive, read every 250 ms of its clock, until interrupted; --follow with --json is exit 2', async () => {
    on.emu.clearRequests();
    await journalScript(on.emu);
    // The clock stands still until the test moves it: the follower reads again only then.
    const clock = on.clock;
    clock.autoAdvance = false;
    const following = on.run((c) => runEmulatorRequests(c, { url: on.emu.url, follow: true, service: 'echo' }), {
      format: 'ndjson',
      interruptWhen: (io) => io.stdoutText().includes('\n'),
    });
    for (let i = 0; i < 1000 && clock.sleeps.length === 0; i++) await new Promise((r) => setTimeout(r, 5));
    expect(clock.sleeps).toEqual([250]);
    await (await fetch(`${on.emu.url}/echo`, { headers: { 'x-api-key': on.emu.fixtures.echo.apiKeys[0]! } })).text();
    clock.advance(250);
    const r = await following;
    expect(r.clock.sleeps.slice(0, 2)).toEqual([250, 250]);
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { service: string; path: string; headers: Record<string, string> });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ service: 'echo', path: '/echo' });
    expect(lines[0]!.headers['x-api-key']).toBe('[redacted]');
    const json = await on.run((c) => runEmulatorRequests(c, { url: on.emu.url, follow: true }), { format: 'json' });
    expect([json.code, json.stderr]).toEqual([2, '--follow streams: use --ndjson instead of --json\n']);
  });
});

describe('emulator start', () => {
  it('a bad LANYARD_EMULATOR_JOURNAL_* value is exit 2 naming the variable', async () => {
    const bad = await on.run((c) => runEmulatorStart(c, { port: '0', profile: false, quiet: true }), { env: { LANYARD_EMULATOR_JOURNAL_ENTRIES: '' } });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('LANYARD_EMULATOR_JOURNAL_ENTRIES must be a whole number >= 1');
  });
});
