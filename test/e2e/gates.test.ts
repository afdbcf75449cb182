/** CI gates end to end: `health events --new`, `health check`, `mailbox list --new`, with state per profile in the state directory. */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunOptions, startWorld, type World } from './harness.js';

describe('CI gates', () => {
  let world: World;
  let state: string;
  let env: Record<string, string>;
  beforeAll(async () => {
    world = await startWorld();
    state = await mkdtemp(join(tmpdir(), 'lanyard-state-'));
    const info = (await world.admin('info', undefined, 'GET')) as { health: { token: string } };
    env = { LANYARD_HEALTH_TOKEN: info.health.token, XDG_STATE_HOME: state };
  });
  afterAll(async () => {
    await world.stop();
    await rm(state, { recursive: true, force: true });
  });
  const run = (args: string[], o: RunOptions = {}) => world.run(['--profile', 'emulator', ...args], { ...o, env });
  const names = (out: string) => out.trim().split('\n').filter(Boolean);

  it('health events --new: everything the first time, nothing the second, then only an added or updated event', async () => {
    const first = await run(['health', 'events', '--all', '--new', '--ndjson', '--jq', '.name']);
    expect(first.code, first.stderr).toBe(0);
    expect(names(first.stdout).length).toBeGreaterThan(0);
    expect(await readdir(join(state, 'lanyard', 'profiles', 'emulator'))).toEqual([expect.stringMatching(/^health-events--/)]);
    const second = await run(['health', 'events', '--all', '--new', '--ndjson', '--jq', '.name']);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toBe('');
    await world.admin('health/add-event', {
      event: { name: 'GATE-0001', properties: { title: 'ACTIVE: gate test', eventType: 'ServiceIssue', eventLevel: 'Warning', status: 'Active' } },
    });
    const third = await run(['health', 'events', '--all', '--new', '--json', '--jq', '.[].name']);
    expect(names(third.stdout)).toEqual(['GATE-0001']);
    await world.admin('advance', { seconds: 60 });
    await world.admin('health/resolve', { trackingId: 'GATE-0001', summary: 'Mitigated.' });
    const fourth = await run(['health', 'events', '--all', '--new', '--ndjson', '--jq', '.name + " " + .properties.status']);
    expect(names(fourth.stdout)).toEqual(['GATE-0001 Resolved']);
    // Another profile keeps its own state.
    await world.run(['config', 'set', 'health.subscriptionId', 'x', '--profile', 'other']);
    expect((await readdir(join(state, 'lanyard', 'profiles'))).sort()).toEqual(['emulator']);
  });

  it('--new with a state directory that cannot be made: one line and exit 2 before anything is listed (else the next run alerts everything again)', async () => {
    for (const args of [
      ['health', 'events', '--all', '--new', '--ndjson', '--jq', '.name'],
      ['mailbox', 'list', '--all', '--new'],
    ]) {
      const r = await world.run(['--profile', 'emulator', ...args], { env: { ...env, LANYARD_STATE_DIR: '/dev/null/state' } });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.trim()).toMatch(/^cannot keep what --new has seen in \/dev\/null\/state\/profiles\/emulator \(ENOTDIR\); set LANYARD_STATE_DIR/);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
    }
  });

  it('health check: exit 5 with --fail-if-active when an active event matches --impact; 0 otherwise', async () => {
    await world.admin('reset');
    await world.admin('health/add-event', {
      event: { name: 'GATE-0002', properties: { title: 'ACTIVE: warning only', eventType: 'ServiceIssue', eventLevel: 'Warning', status: 'Active' } },
    });
    const any = await run(['health', 'check', '--fail-if-active', '--json']);
    expect(any.code, any.stderr).toBe(5);
    const body = JSON.parse(any.stdout) as { active: number; events: Array<{ name: string }> };
    expect(body.active).toBeGreaterThan(0);
    expect(body.events.map((e) => e.name)).toContain('GATE-0002');
    expect(any.stderr).toMatch(/failing \(--fail-if-active\)/);
    const critical = await run(['health', 'check', '--fail-if-active', '--impact', 'critical', '--jq', '[.events[].name]']);
    expect(JSON.parse(critical.stdout)).not.toContain('GATE-0002');
    const report = await run(['health', 'check', '--json']);
    expect(report.code).toBe(0);
    const bad = await run(['health', 'check', '--impact', 'severe']);
    expect(bad.code).toBe(2);
  });

  it('health check --fail-if-active: exit 5 when the reader of stdout goes away after the first chunk (| head), --json and the table', async () => {
    await world.admin('reset');
    // Titles long enough that the report outgrows a pipe's buffer: the reader leaves while the CLI still writes.
    for (let i = 0; i < 6; i++) {
      await world.admin('health/add-event', {
        event: { name: `PIPE-000${i}`, properties: { title: `ACTIVE: ${'long title '.repeat(4000)}`, eventType: 'ServiceIssue', status: 'Active' } },
      });
    }
    // Three times each: as a CI job runs it, every time (main exited 0 on every run of ten with --json).
    for (const args of [['--json'], [], ['--json'], [], ['--json'], []]) {
      const r = await run(['health', 'check', '--fail-if-active', ...args], {
        onSpawn: (child) => child.stdout!.once('data', () => child.stdout!.destroy()),
      });
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(5);
      expect(r.stderr).not.toMatch(/EPIPE|Error:/);
    }
    // A command that succeeds still ends quietly with 0.
    const ok = await run(['health', 'check', '--json'], { onSpawn: (child) => child.stdout!.once('data', () => child.stdout!.destroy()) });
    expect(ok.code, ok.stderr).toBe(0);
  });

  it('any status decided before the output survives a reader gone before the first byte (ratelimit --fail-under 3, api 404 1, health check 5; success 0)', async () => {
    await world.admin('reset');
    await world.admin('health/add-event', { event: { name: 'GONE-0001', properties: { title: 'ACTIVE: gone', eventType: 'ServiceIssue', status: 'Active' } } });
    const gone: RunOptions = { onSpawn: (child) => child.stdout!.destroy() };
    const cases: Array<[string[], number]> = [
      [['ratelimit', 'status', '--fail-under', '1000', '--json'], 3],
      [['api', '/repos/nobody/nothing'], 1],
      [['health', 'check', '--fail-if-active'], 5],
      [['health', 'check', '--json'], 0],
      [['ratelimit', 'status'], 0],
    ];
    for (const [args, code] of cases) {
      const r = await run(args, gone);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(code);
      expect(r.stderr).not.toMatch(/EPIPE|at .*\.js:\d+/);
    }
  });

  it('health check sees an event still Active but last updated more than 3 days ago (default window 90 days)', async () => {
    await world.admin('reset');
    await world.admin('health/add-event', { event: { name: 'OLD-0001', properties: { title: 'Outage RevSvc', status: 'Active', eventType: 'ServiceIssue' } } });
    // Four days on, every active event (the seeded ones too) is out of the API's own window.
    await world.admin('advance', { seconds: 4 * 86_400 });
    const r = await run(['health', 'check', '--fail-if-active', '--jq', '.events[].name']);
    expect(r.code, r.stderr).toBe(5);
    expect(r.stdout.split('\n')).toContain('OLD-0001');
    expect(r.stderr).toMatch(
      /^\d+ active health events? in subscription \S+ updated in the last 90 days \(since \d+\/\d+\/\d{4}; --since widens it\): failing/m,
    );
  });

  it('mailbox list --new: all ids the first time, none the second, then only a stored message', async () => {
    const first = await run(['mailbox', 'list', '--all', '--new']);
    expect(first.code, first.stderr).toBe(0);
    expect(names(first.stdout).length).toBeGreaterThan(0);
    expect((await run(['mailbox', 'list', '--all', '--new'])).stdout).toBe('');
    const stored = await world.run(['--profile', 'emulator', 'mailbox', 'store', '-', '--jq', '.id'], {
      env,
      input: 'From: a@example.com\r\nTo: b@example.com\r\nSubject: gate\r\n\r\nhello\r\n',
    });
    expect(stored.code, stored.stderr).toBe(0);
    const third = await run(['mailbox', 'list', '--all', '--new', '--ndjson', '--jq', '.id']);
    expect(names(third.stdout)).toEqual([stored.stdout.trim()]);
  });
});
