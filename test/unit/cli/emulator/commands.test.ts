/**
 * The `emulator` commands that steer a running emulator (info, advance,
 * reset, budget(s), secondary, limits, fault add|list|clear), the start
 * command's refusals, and what the faults do to a command (retried, or one
 * line and exit 1), as run functions against the in-process emulator
 * (formerly spawned end to end). test/e2e/emulator.test.ts keeps the
 * emulator process itself: start, the profile, signals, TLS.
 */
import { describe, expect, it } from 'vitest';
import { runEmulatorBudget, runEmulatorBudgets, runEmulatorLimits, runEmulatorSecondary } from '../../../../src/cli/commands/emulator/ratelimit.js';
import {
  runEmulatorAdmin,
  runEmulatorAdvance,
  runEmulatorFaultAdd,
  runEmulatorFaultClear,
  runEmulatorFaultList,
  runEmulatorInfo,
  runEmulatorStart,
} from '../../../../src/cli/commands/emulator/run.js';
import { runRatelimitStatus } from '../../../../src/cli/commands/ratelimit/run.js';
import { useEmulatorCommands } from '../on-emulator.js';

const on = useEmulatorCommands();
const url = () => ({ url: on.emu.url });
const status = (format?: 'json') => on.run((c) => runRatelimitStatus(c, {}), { format });

describe('emulator start refuses before listening (exit 2)', () => {
  it('a non-loopback host, a busy port, unreadable or unusable TLS files, --tls with --tls-cert', async () => {
    for (const host of ['0.0.0.0', '10.0.0.1', '127.0.0', 'example.com'])
      expect(await on.run((c) => runEmulatorStart(c, { host }))).toMatchObject({
        code: 2,
        stderr: expect.stringMatching(/^--host must be a loopback address/),
      });
    const port = String(on.emu.port);
    const busy = await on.run((c) => runEmulatorStart(c, { port, profile: false }));
    expect(busy.code).toBe(2);
    expect(busy.stderr).toMatch(new RegExp(`port ${port} on 127.0.0.1 is already in use`));
    const tls = await on.run((c) => runEmulatorStart(c, { tlsCert: '/nonexistent.pem', tlsKey: '/nonexistent.key' }));
    expect([tls.code, tls.stderr]).toEqual([2, '--tls-cert: cannot read /nonexistent.pem\n']);
    expect((await on.run((c) => runEmulatorStart(c, { tlsCert: '/etc/hostname' }))).code).toBe(2);
    expect((await on.run((c) => runEmulatorStart(c, { tlsCert: '/etc/hostname', tlsKey: '/etc/hostname', quiet: true }))).code).toBe(2);
    const both = await on.run((c) => runEmulatorStart(c, { tls: true, tlsCert: '/etc/hostname', tlsKey: '/etc/hostname' }));
    expect([both.code, both.stderr]).toEqual([2, '--tls makes its own certificate: give either --tls or --tls-cert and --tls-key\n']);
  });
});

describe('admin verbs as commands', () => {
  it('info --json lists the seeded users, apps and token; advance moves the clock; reset restores it', async () => {
    const info = async () => JSON.parse((await on.run((c) => runEmulatorInfo(c, url()), { format: 'json' })).stdout);
    const seeded = await info();
    expect(seeded.url).toBe(on.emu.url);
    expect(seeded.hosting.users[0]).toMatchObject({ login: 'mona', password: expect.any(String) });
    expect(seeded.hosting.personalToken).toMatch(/^lyp_/);
    const adv = await on.run((c) => runEmulatorAdvance(c, url(), '2h'));
    expect(adv.code).toBe(0);
    expect(adv.stderr).toMatch(/^Emulator clock now \d{4}-/);
    expect((await info()).clockOffsetMs).toBe(7_200_000);
    expect((await on.run((c) => runEmulatorAdmin(c, url(), 'reset', {}))).stderr).toBe('Emulator: reset done\n');
    expect((await info()).clockOffsetMs).toBe(0);
    expect((await on.run((c) => runEmulatorAdvance(c, url(), 'soon'))).code).toBe(2);
    // --json: the new emulator time on stdout, nothing on stderr.
    const j = await on.run((c) => runEmulatorAdvance(c, url(), '90s'), { format: 'json' });
    expect(j.stderr).toBe('');
    expect(Date.parse(JSON.parse(j.stdout).now)).toBeGreaterThan(Date.now() + 80_000);
  });

  it('budget, budgets, secondary and limits', async () => {
    const b = await on.run((c) => runEmulatorBudget(c, { ...url(), user: 'mona', remaining: '7', resetIn: '90s' }));
    expect(b.code).toBe(0);
    expect(b.stdout).toMatch(/^user:mona\tcore\t5000\t4993\t7\t/);
    const list = JSON.parse((await on.run((c) => runEmulatorBudgets(c, url()), { format: 'json' })).stdout);
    expect(list.buckets).toContainEqual(expect.objectContaining({ caller: 'user:mona', remaining: 7 }));
    expect(list.seeded.length).toBeGreaterThanOrEqual(8);
    expect((await on.run((c) => runEmulatorBudget(c, { ...url(), user: 'mona', anonymous: true }))).code).toBe(2);
    const byToken = await on.run((c) => runEmulatorBudget(c, { ...url(), tokenOf: 'mona', remaining: '3' }), { format: 'json' });
    expect(JSON.parse(byToken.stdout)).toMatchObject({ appliesTo: 'user:mona', buckets: [{ remaining: 3 }] });
    const unknown = await on.run((c) => runEmulatorBudget(c, { ...url(), user: 'ghost' }));
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/no user "ghost"/);
    const s = await on.run((c) => runEmulatorSecondary(c, { ...url(), count: '2', retryAfter: '1s' }));
    expect(s.stderr).toBe('Next 2 request(s) from any get a secondary rate limit (HTTP 403, retry-after 1)\n');
    expect((await on.run((c) => runEmulatorSecondary(c, { ...url(), status: '500' }))).code).toBe(2);
    const l = await on.run((c) => runEmulatorLimits(c, { ...url(), contentPerMinute: '3' }), { format: 'json' });
    expect(JSON.parse(l.stdout).secondaryLimits.contentCreatingPerMinute).toBe(3);
  });
});

describe('faults through a command', () => {
  const faults = async () => JSON.parse((await on.run((c) => runEmulatorFaultList(c, url()), { format: 'json' })).stdout).faults;

  it('a 502 on an idempotent request is retried', async () => {
    const added = await on.run((c) => runEmulatorFaultAdd(c, { ...url(), type: 'status', status: '502', path: '/api/v3/rate_limit', count: '1' }), {
      format: 'json',
    });
    expect(added.code, added.stderr).toBe(0);
    const fault = JSON.parse(added.stdout);
    expect(fault).toMatchObject({ id: expect.any(Number), type: 'status', path: '/api/v3/rate_limit' });
    expect((await faults()).map((f: { id: number }) => f.id)).toEqual([fault.id]);
    expect((await status('json')).code).toBe(0);
    expect(await faults()).toEqual([]);
    const human = await on.run((c) => runEmulatorFaultAdd(c, { ...url(), type: 'status', status: '503', path: '/x' }));
    expect(human.stderr).toMatch(/^Fault \d+ added\n$/);
    expect((await on.run((c) => runEmulatorFaultAdd(c, { ...url(), type: 'status', status: '200', path: '/x' }))).code).toBe(2);
  });

  it('a persistent 503 gives up after the bounded retries: exit 1, one line', async () => {
    on.emu.fault({ type: 'status', status: 503, path: '/api/v3/rate_limit', count: 10 });
    const r = await status();
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^GET http:\/\/127\.0\.0\.1:\d+\/api\/v3\/rate_limit failed: HTTP 503: Injected fault: HTTP 503\n$/);
    expect((await faults())[0].count).toBe(7); // 1 try + 2 retries
  });

  it('a connection reset is retried', async () => {
    on.emu.fault({ type: 'reset', path: '/api/v3/rate_limit', count: 1 });
    expect((await status('json')).code).toBe(0);
  });

  it('a truncated body is retried', async () => {
    on.emu.fault({ type: 'truncate', path: '/api/v3/rate_limit', count: 1 });
    const r = await status('json');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).resources.core.limit).toBe(60);
    on.emu.fault({ type: 'truncate', path: '/api/v3/rate_limit' });
    const cut = await status();
    expect(cut.code).toBe(1);
    expect(cut.stderr).toMatch(/^GET http:\/\/127\.0\.0\.1:\d+\/api\/v3\/rate_limit: connection closed before the whole body arrived\n$/);
    expect((await on.run((c) => runEmulatorFaultClear(c, url()))).stderr).toBe('Faults cleared\n');
    expect(await faults()).toEqual([]);
  });

  it('persistent resets: exit 1 with "connection reset", no stack trace', async () => {
    on.emu.fault({ type: 'reset', path: '/api/v3/rate_limit' });
    const r = await status();
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^GET http:\/\/127\.0\.0\.1:\d+\/api\/v3\/rate_limit: (connection reset|other side closed)/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('added latency delays the answer', async () => {
    await on.run((c) => runEmulatorFaultAdd(c, { ...url(), type: 'latency', latency: '1500ms', path: '/api/v3/rate_limit', method: 'GET', count: '1' }));
    const t0 = Date.now();
    expect((await status('json')).code).toBe(0);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1500);
  });
});
