/**
 * `lanyard health check` as a run function against the in-process emulator:
 * its window (90 days by default, not the API's 3) and the exit status it
 * decides before writing its report (so a reader that stops early, `| head`,
 * cannot turn a failed gate into a pass; test/e2e/gates.test.ts closes a real
 * pipe).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { HealthCheckOptions } from '../../../../src/cli/commands/health/options.js';
import { runHealthCheck } from '../../../../src/cli/commands/health/run.js';
import type { Context } from '../../../../src/cli/context.js';
import type { IO } from '../../../../src/cli/io.js';
import { Output, type OutputFormat } from '../../../../src/cli/output/output.js';
import { type RunOptions, useEmulatorCommands } from '../on-emulator.js';

const on = useEmulatorCommands();
let token: string;
beforeAll(() => {
  token = (on.emu.info() as { health: { token: string } }).health.token;
});
const withToken = (o: RunOptions = {}): RunOptions => ({ ...o, env: { LANYARD_HEALTH_TOKEN: token, ...o.env } });
const check = (o: HealthCheckOptions, r: RunOptions = {}) => on.run((c) => runHealthCheck(c, o), withToken(r));

/** Runs check with an IO that notes, at each write on stdout, the exit status the run has said so far (Context.exitStatus). */
async function statusAtWrites(o: HealthCheckOptions, format: OutputFormat) {
  const seen: Array<number | undefined> = [];
  const r = await on.run((c: Context) => {
    const note = (write: (t: string) => void) => (t: string) => {
      seen.push(c.exitStatus());
      write(t);
    };
    const io: IO = { ...c.io, out: note(c.io.out), print: note(c.io.print) };
    return runHealthCheck(c.forRun({ io, output: new Output(io, { format }) }), o);
  }, withToken());
  return { ...r, seen };
}

const OUTAGE = {
  name: 'OLD-0001',
  properties: {
    title: 'Outage RevSvc',
    status: 'Active',
    eventType: 'ServiceIssue',
    eventLevel: 'Critical',
    impact: [{ impactedService: 'RevSvc', impactedRegions: [{ impactedRegion: 'West US', status: 'Active' }] }],
  },
};

describe('the exit status is decided before the report is written', () => {
  it('--fail-if-active with active events: 5 is said before the first byte, --json and the table', async () => {
    for (const format of ['json', 'human'] as const) {
      const r = await statusAtWrites({ failIfActive: true }, format);
      expect(r.code, r.stderr).toBe(5);
      expect(r.seen.length).toBeGreaterThan(0);
      expect(r.seen.every((s) => s === 5)).toBe(true);
    }
  });

  it('a report without --fail-if-active, or with nothing active, says no status (a reader that stops early leaves 0)', async () => {
    const report = await statusAtWrites({}, 'json');
    expect(report.code).toBe(0);
    expect(report.seen).not.toContain(5);
    const none = await statusAtWrites({ failIfActive: true, service: ['NoSuchService'] }, 'json');
    expect(none.code).toBe(0);
    expect(none.seen.length).toBe(1);
    expect(none.seen[0]).toBeUndefined();
  });
});

describe('the window', () => {
  it('an event still Active but last updated 4 days ago fails the gate; the request says the 90-day window', async () => {
    await on.emu.admin('health', 'add-event', { event: OUTAGE });
    on.emu.advance('4d');
    const r = await check({ failIfActive: true, service: ['RevSvc'] }, { globals: { debug: true } });
    expect(r.code, r.stderr).toBe(5);
    const d = new Date(on.emu.now() - 90 * 86_400_000);
    const since = `${d.getUTCMonth() + 1}/${d.getUTCDate()}/${d.getUTCFullYear()}`;
    expect(r.stderr).toContain(`queryStartTime=${encodeURIComponent(since)}`);
    expect(r.stderr).toContain(`1 active health event in subscription`);
    expect(r.stderr).toContain(`updated in the last 90 days (since ${since}; --since widens it): failing (--fail-if-active).`);
  });

  it('--since replaces the window (here narrower: the event is out of it) and the summary names it', async () => {
    await on.emu.admin('health', 'add-event', { event: OUTAGE });
    on.emu.advance('4d');
    const r = await check({ failIfActive: true, service: ['RevSvc'], since: '2d' });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^No active health events in subscription \S+ updated since \d+\/\d+\/\d{4}\.$/m);
  });
});
