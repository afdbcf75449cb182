/**
 * Long human output goes through a pager on a terminal (a real
 * pseudo-terminal, Python's pty module): LANYARD_PAGER, the `pager` setting,
 * PAGER, else `less -FRX`; never into a pipe or with --jq/--json; a pager
 * that ends early (q) ends Lanyard quietly with 0; Ctrl-C while paging leaves
 * the terminal as it was.
 */
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startWorld, type World } from './harness.js';
import { runOnPty } from './pty.js';

let world: World;
let dir: string;
let fake: string;
const record = () => join(dir, 'record');

beforeAll(async () => {
  world = await startWorld();
  dir = await mkdtemp(join(tmpdir(), 'lanyard-pager-'));
  fake = join(dir, 'fake pager');
  // Records its arguments, the variables Lanyard sets, whether its stdout is the terminal, and its input.
  await writeFile(
    fake,
    [
      '#!/bin/sh',
      'r="$PAGER_RECORD"',
      'printf "%s\\n" "$@" > "$r.args"',
      'printf "LESS=%s\\nLV=%s\\n" "$LESS" "$LV" > "$r.env"',
      'if [ -t 1 ]; then echo tty > "$r.stdout"; else echo not-tty > "$r.stdout"; fi',
      'cat > "$r.input"',
      'echo "fake pager done"',
      '',
    ].join('\n'),
  );
  await chmod(fake, 0o755);
});
afterAll(async () => {
  await world?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});
beforeEach(async () => {
  for (const ext of ['args', 'env', 'stdout', 'input']) await rm(`${record()}.${ext}`, { force: true });
});

/** The world's environment with no pager settings of the machine running the tests. */
const env = (extra: Record<string, string | undefined> = {}) => ({
  ...world.env,
  PAGER: undefined,
  LESS: undefined,
  LV: undefined,
  LANYARD_PAGER: undefined,
  PAGER_RECORD: record(),
  ...extra,
});
const quoted = () => `'${fake.replace(/'/g, "'\\''")}'`;
const api = (...more: string[]) => ['--profile', 'emulator', 'api', '/rate_limit', ...more];

describe('the pager on a terminal', () => {
  it('LANYARD_PAGER, split into shell words, gets the pretty JSON; LESS=FRX and LV=-c when unset', async () => {
    const r = await runOnPty({ args: api(), env: env({ LANYARD_PAGER: `${quoted()} --first "two words" three\\ four` }), send: null });
    expect(r.exitCode, r.output).toBe(0);
    expect(r.output).toContain('fake pager done');
    expect(await readFile(`${record()}.args`, 'utf8')).toBe('--first\ntwo words\nthree four\n');
    expect(await readFile(`${record()}.env`, 'utf8')).toBe('LESS=FRX\nLV=-c\n');
    expect(await readFile(`${record()}.stdout`, 'utf8')).toBe('tty\n');
    const input = await readFile(`${record()}.input`, 'utf8');
    expect(JSON.parse(input)).toHaveProperty('resources.core.limit');
    expect(input).toContain('\n  "resources": {');
    // What went to the pager is not also printed directly.
    expect(r.output).not.toContain('"resources"');
  });

  it('the tables of health events go through it too, header and colours as on the terminal', async () => {
    const r = await runOnPty({
      args: ['--profile', 'emulator', 'health', 'events'],
      env: env({ LANYARD_PAGER: quoted(), LANYARD_HEALTH_TOKEN: 'emu-health-ada-0123456789abcdef' }),
      send: null,
    });
    expect(r.exitCode, r.output).toBe(0);
    const input = await readFile(`${record()}.input`, 'utf8');
    expect(input).toMatch(/^TITLE +STATUS +LEVEL/);
    expect(input.split('\n').length).toBeGreaterThan(3);
    expect(r.output).not.toContain('TITLE');
  });

  it('protocol request (its JSON result) and emulator info (its blocks) go through it too', async () => {
    const tools = await runOnPty({
      args: ['--profile', 'emulator', 'protocol', 'request', '--method', 'tools/list', '--client-id', 'ctx-service', '--client-credentials'],
      env: env({ LANYARD_PAGER: quoted(), LANYARD_CLIENT_SECRET: 'ctx-service-secret' }),
      send: null,
    });
    expect(tools.exitCode, tools.output).toBe(0);
    expect(JSON.parse(await readFile(`${record()}.input`, 'utf8'))).toHaveProperty('tools');
    expect(tools.output).not.toContain('"tools"');

    const info = await runOnPty({ args: ['--profile', 'emulator', 'emulator', 'info'], env: env({ LANYARD_PAGER: quoted() }), send: null });
    expect(info.exitCode, info.output).toBe(0);
    const input = await readFile(`${record()}.input`, 'utf8');
    expect(input).toMatch(/^emulator\n {2}url {2,}http:\/\/127\.0\.0\.1:\d+\n/);
    expect(input).toContain('\nhosting\n');
    expect(info.output).not.toContain('hosting');
  });

  it('PAGER when LANYARD_PAGER is unset; a LESS of the user is kept', async () => {
    const r = await runOnPty({ args: api(), env: env({ PAGER: quoted(), LESS: '-R' }), send: null });
    expect(r.exitCode, r.output).toBe(0);
    expect(await readFile(`${record()}.env`, 'utf8')).toBe('LESS=-R\nLV=-c\n');
  });

  it('the profile setting `pager` comes after LANYARD_PAGER and before PAGER', async () => {
    const set = await world.run(['--profile', 'emulator', 'config', 'set', 'pager', `${quoted()} --from-config`]);
    try {
      expect(set.code, set.stderr).toBe(0);
      const r = await runOnPty({ args: api(), env: env({ PAGER: '/bin/false' }), send: null });
      expect(r.exitCode, r.output).toBe(0);
      expect(await readFile(`${record()}.args`, 'utf8')).toBe('--from-config\n');
    } finally {
      await world.run(['--profile', 'emulator', 'config', 'unset', 'pager']);
    }
  });

  it('an empty LANYARD_PAGER or `cat` turns it off (PAGER is not used then)', async () => {
    for (const off of ['', 'cat']) {
      const r = await runOnPty({ args: api(), env: env({ LANYARD_PAGER: off, PAGER: quoted() }), send: null });
      expect(r.exitCode, r.output).toBe(0);
      expect(r.output).toContain('"resources"');
      expect(existsSync(`${record()}.input`)).toBe(false);
    }
  });

  it('never with --jq, and never into a pipe', async () => {
    const jq = await runOnPty({ args: api('--jq', '.rate.limit'), env: env({ LANYARD_PAGER: quoted() }), send: null });
    expect(jq.exitCode, jq.output).toBe(0);
    expect(jq.output).toMatch(/^60\r?$/m);
    expect(existsSync(`${record()}.input`)).toBe(false);
    const piped = await world.run(api(), { env: env({ LANYARD_PAGER: quoted() }) });
    expect(piped.code).toBe(0);
    expect(JSON.parse(piped.stdout)).toHaveProperty('resources');
    expect(existsSync(`${record()}.input`)).toBe(false);
  });

  it('a pager that cannot start: said once on stderr, the output printed directly', async () => {
    const r = await runOnPty({ args: api(), env: env({ LANYARD_PAGER: join(dir, 'no-such-pager') }), send: null });
    expect(r.exitCode, r.output).toBe(0);
    expect(r.output).toMatch(/could not start the pager .*no-such-pager.*ENOENT/);
    expect(r.output).toContain('"resources"');
    const empty = await runOnPty({ args: api(), env: env({ LANYARD_PAGER: "''" }), send: null });
    expect(empty.exitCode, empty.output).toBe(0);
    expect(empty.output).toMatch(/could not start the pager/);
    expect(empty.output).toContain('"resources"');
  });

  it('a pager that ends early (a large output): exit 0, no EPIPE error', async () => {
    const token = 'emu-health-ada-0123456789abcdef';
    const path = '/subscriptions/6f1c2a4e-0b7d-4c1e-9a55-3d2b8e7f9a10/providers/Microsoft.ResourceHealth/events?api-version=2025-05-01';
    const r = await runOnPty({
      args: ['--profile', 'emulator', 'api', '--service', 'health', path, '--paginate'],
      env: env({ LANYARD_PAGER: 'head -n 2', LANYARD_HEALTH_TOKEN: token }),
      send: null,
    });
    expect(r.exitCode, r.output).toBe(0);
    expect(r.output).not.toMatch(/EPIPE|Error|error/);
    expect(r.output.trim().split(/\r?\n/)).toHaveLength(2);
  });
});

describe('less -FRX, the default', () => {
  const rows = 10;
  it('shows the first screen; q ends it, exit 0, the terminal as it was', async () => {
    const r = await runOnPty({ args: api(), env: env(), rows, waitFor: '"resources"', send: '71' });
    expect(r.sent).toBe(true);
    expect(r.exitCode, r.output).toBe(0);
    expect(r.modeAfter).toBe(r.modeBefore);
    expect(r.output).toContain('"resources"');
    // Only a screenful was shown: the last resource of the answer was never reached.
    expect(r.output).not.toContain('"rate"');
  });

  it('output that fits the screen is printed and less ends by itself (-F)', async () => {
    const r = await runOnPty({ args: api('-i', '--silent'), env: env(), rows: 60, send: null });
    expect(r.exitCode, r.output).toBe(0);
    expect(r.output).toContain('HTTP 200');
  });

  it('Ctrl-C while paging: less keeps the terminal until q; Lanyard waits, the terminal is left as it was', async () => {
    const r = await runOnPty({ args: api(), env: env(), rows, waitFor: '"resources"', send: '03', sendAfter: ['03', '71'], timeout: 20 });
    expect(r.sent).toBe(true);
    expect(r.exitCode, r.output).not.toBeNull();
    expect([0, 130]).toContain(r.exitCode);
    // Lanyard ended after q (typed 0.6 s after the first Ctrl-C), not at Ctrl-C with less left on the terminal.
    expect(r.exitAfterSendMs!).toBeGreaterThanOrEqual(500);
    expect(r.modeAfter).toBe(r.modeBefore);
    expect(r.output).not.toMatch(/EPIPE|Error/);
  });
});
