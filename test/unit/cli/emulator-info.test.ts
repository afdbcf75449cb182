/** `emulator info` for people: every service's endpoint and seeded credentials, whole, from the emulator's own info. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { infoRows, renderInfo } from '../../../src/cli/commands/emulator/render-info.js';
import { type RunningEmulator, startEmulator } from '../../../src/emulator/index.js';
import { createTestIO } from '../../fakes/io.js';

let emu: RunningEmulator;
let info: Record<string, unknown>;
beforeAll(async () => {
  emu = await startEmulator();
  info = (await emu.info()) as Record<string, unknown>;
});
afterAll(() => emu?.stop());

describe('emulator info rows', () => {
  it('name what a user signs in with, for every service', () => {
    const rows = infoRows(info);
    const has = (service: string, what: string, value: string, note?: RegExp) =>
      expect(
        rows.find((r) => r.service === service && r.what === what && r.value === value && (!note || note.test(r.note))),
        `${service} ${what} ${value}`,
      ).toBeDefined();
    const f = emu.fixtures;
    has('emulator', 'url', emu.url);
    has('emulator', 'clock', String(info.now), /^real time$/);
    has('hosting', 'api', emu.urls.hosting.api, new RegExp(`^web ${emu.url}`));
    has('hosting', 'user', 'mona', /^password lanyard-emulator-password$/);
    has('hosting', 'app', f.hosting.app.clientId, new RegExp(`secret ${f.hosting.app.clientSecret}$`));
    has('hosting', 'app', 'Iv1.lanyardinstallable', /^installable app, expiring tokens/);
    has('hosting', 'app', 'lanyard-web-only', /no device flow/);
    has('hosting', 'token', f.hosting.personalToken);
    has('echo', 'api key', f.echo.apiKeys[0]!, /^default$/);
    has('protocol', 'server', `${emu.url}/mcp`, /2025-03-26, 2025-06-18, 2025-11-25/);
    has('protocol', 'client', 'ctx-cli', /^public$/);
    has('protocol', 'client', 'ctx-service', /^client_secret_basic; secret ctx-service-secret$/);
    has('mailbox', 'api', `${emu.url}/rest/v2/example.com/alice/mailbox`, /^3 messages$/);
    has('health', 'user', 'ada@contoso.example', /^password health-pass$/);
    has('health', 'token', 'emu-health-ada-0123456789abcdef');
    for (const r of rows) expect(r.value, `${r.service} ${r.what}`).not.toBe('');
  });

  it('say how far the clock was moved', async () => {
    await emu.advance('2h');
    try {
      const clock = infoRows(await emu.info()).find((r) => r.what === 'clock');
      expect(clock?.note).toBe('moved 2h ahead');
    } finally {
      await emu.reset();
    }
  });

  it('tolerate an info of another version: missing parts give no rows, never an error', () => {
    expect(infoRows({ url: 'http://127.0.0.1:1', hosting: { users: 'nope', apps: [null, 3] } })).toEqual([
      { service: 'emulator', what: 'url', value: 'http://127.0.0.1:1', note: '' },
    ]);
    expect(infoRows(null)).toEqual([]);
  });
});

describe('renderInfo', () => {
  it('on a terminal: a block per service, values and notes whole however narrow the terminal', () => {
    const io = createTestIO({ tty: true, columns: 40 });
    renderInfo(io, info);
    const lines = io.stdoutText().trimEnd().split('\n');
    expect(lines[0]).toBe('emulator');
    expect(lines).toContain('hosting');
    expect(lines.some((l) => l.startsWith('  app ') && l.includes(`secret ${emu.fixtures.hosting.app.clientSecret}`))).toBe(true);
    expect(io.stdoutText()).not.toContain('…');
  });

  it('into a pipe: tab-separated rows (service, what, value, note), no header', () => {
    const io = createTestIO();
    renderInfo(io, info);
    const lines = io.stdoutText().trimEnd().split('\n');
    expect(lines[0]).toBe(`emulator\turl\t${emu.url}\t`);
    expect(lines).toContain(`hosting\ttoken\t${emu.fixtures.hosting.personalToken}\tpersonal token`);
    for (const l of lines) expect(l.split('\t')).toHaveLength(4);
  });
});
