/**
 * `ratelimit wait` and `ratelimit status` in CI, as run functions against the
 * in-process emulator (formerly spawned in test/e2e/ci-events.test.ts, which
 * keeps the retry events the HTTP port reports): one JSON line per wait on
 * stderr and the markdown step summary. The reset passes on the emulator's
 * clock, moved by the command's own sleeps.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runRatelimitStatus, runRatelimitWait } from '../../../../src/cli/commands/ratelimit/run.js';
import { useEmulatorCommands } from '../on-emulator.js';

const cmd = useEmulatorCommands();
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lanyard-ci-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));
const ci = (summary: string) => ({ CI: 'true', GITHUB_STEP_SUMMARY: summary });
const events = (stderr: string) =>
  stderr
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe('CI events and step summaries of ratelimit', () => {
  it('ratelimit wait: one rate_limit_wait line per wait, then a summary line', async () => {
    await cmd.emu.budget({ anonymous: true, remaining: 0, resetInSeconds: 6 });
    const summary = join(dir, 'wait.md');
    const r = await cmd.run((ctx) => runRatelimitWait(ctx, {}), { env: ci(summary) });
    expect(r.code, r.stderr).toBe(0);
    const e = events(r.stderr);
    expect(e.length).toBeGreaterThanOrEqual(1);
    expect(e[0]).toMatchObject({ event: 'rate_limit_wait', kind: 'budget', resource: 'core', remaining: 0 });
    expect(typeof e[0]!.wait_ms).toBe('number');
    expect(r.stderr).not.toMatch(/waiting for core budget/);
    expect(await readFile(summary, 'utf8')).toMatch(/^\*\*ratelimit wait\*\*: core has \d+ of \d+ requests available/);
    // It waited on the clock, not on the wall: the reset was about 6 s away.
    expect(r.clock.sleeps.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(5000);
  });

  it('ratelimit status: a markdown table appended to the step summary; no events without CI', async () => {
    const summary = join(dir, 'status.md');
    const r = await cmd.run((ctx) => runRatelimitStatus(ctx, {}), { env: ci(summary), format: 'json' });
    expect(r.code, r.stderr).toBe(0);
    const md = await readFile(summary, 'utf8');
    expect(md).toContain('| resource | limit | used | remaining | resets (UTC) |');
    expect(md).toMatch(/\| core \| \d+ \| \d+ \| \d+ \|/);
    await cmd.emu.budget({ anonymous: true, remaining: 0, resetInSeconds: 2 });
    const plain = await cmd.run((ctx) => runRatelimitWait(ctx, {}));
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stderr).not.toMatch(/^\{/m);
  });

  it('a step-summary file that cannot be written is a warning: a passing budget check exits 0, a failing one 3', async () => {
    const summary = join(dir, 'no-such-dir', 'summary.md');
    const pass = await cmd.run((ctx) => runRatelimitStatus(ctx, {}), { env: ci(summary), format: 'json' });
    expect(pass.code, pass.stderr).toBe(0);
    expect(pass.stderr).toMatch(/could not append to GITHUB_STEP_SUMMARY \(.*no-such-dir.*\): ENOENT; the summary is skipped/);
    await cmd.emu.budget({ anonymous: true, remaining: 0, resetInSeconds: 60 });
    const fail = await cmd.run((ctx) => runRatelimitStatus(ctx, { failUnder: '1' }), { env: ci(summary), format: 'json' });
    expect(fail.code, fail.stderr).toBe(3);
    expect(fail.stderr).toMatch(/the summary is skipped/);
  });
});
