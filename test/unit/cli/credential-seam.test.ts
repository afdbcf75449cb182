/**
 * The credential seam: an installable app's expiring token (signed in with
 * `auth device`) used by `ratelimit status`, `ratelimit wait` and `api`,
 * refreshed after a forced 401 (the emulator's faults) and after it expired
 * (the emulator's clock, moved with the client's). Run functions against the
 * in-process emulator (formerly spawned in test/e2e/credential-seam.test.ts).
 * Several processes refreshing one rotating refresh token at once are cases
 * of the fault suite (test/fault/parallel-refreshers.test.ts).
 */
import { describe, expect, it } from 'vitest';
import type { ApiOptions } from '../../../src/cli/commands/api/options.js';
import { runApi } from '../../../src/cli/commands/api/run.js';
import { runAuthDevice } from '../../../src/cli/commands/auth/run.js';
import { runRatelimitStatus, runRatelimitWait } from '../../../src/cli/commands/ratelimit/run.js';
import { type RunResult, type RunOptions, useEmulatorCommands } from './on-emulator.js';

const cmd = useEmulatorCommands();
const settings = { 'hosting.clientId': 'Iv1.lanyardinstallable' };
const run = (f: Parameters<typeof cmd.run>[0], r: RunOptions = {}) => cmd.run(f, { settings, ...r });
const ok = (r: RunResult) => expect(r.code, r.stderr).toBe(0);
const apiUser = () => run((ctx) => runApi(ctx, '/user', { header: [], rawField: [], field: [], service: 'hosting' } as ApiOptions), { format: 'json' });

/** Signs mona in through the installable app; returns her stored record's reader. */
async function signInInstallable(): Promise<() => { token: string; refreshToken: string }> {
  cmd.answerDevice();
  ok(await run((ctx) => runAuthDevice(ctx, {})));
  const key = `hosting:${new URL(cmd.emu.url).host}:mona`;
  return () => JSON.parse(cmd.store.data.get(key)!) as { token: string; refreshToken: string };
}

describe('installable app (expiring user tokens)', () => {
  it('ratelimit status and ratelimit wait work with the stored token', async () => {
    await signInInstallable();
    const s = await run((ctx) => runRatelimitStatus(ctx, {}), { format: 'json' });
    ok(s);
    expect(JSON.parse(s.stdout).resources.core.limit).toBeGreaterThan(0);
    ok(await run((ctx) => runRatelimitWait(ctx, { min: '1' })));
    ok(await run((ctx) => runRatelimitStatus(ctx, { failUnder: '1' })));
  });

  it('ratelimit status and api refresh after a forced 401, saving the rotated refresh token', async () => {
    const stored = await signInInstallable();
    const first = stored();
    cmd.emu.fault({ path: '/api/v3/rate_limit', type: 'status', status: 401, count: 1 });
    ok(await run((ctx) => runRatelimitStatus(ctx, {}), { format: 'json' }));
    const second = stored();
    expect(second.token).not.toBe(first.token);
    expect(second.refreshToken).not.toBe(first.refreshToken);

    cmd.emu.fault({ path: '/api/v3/user', type: 'status', status: 401, count: 1 });
    const r = await apiUser();
    ok(r);
    expect(JSON.parse(r.stdout).login).toBe('mona');
    expect(stored().token).not.toBe(second.token);
  });

  it('api refreshes an expired token (emulator clock past the expiry)', async () => {
    const stored = await signInInstallable();
    const first = stored();
    cmd.clock.advance((8 * 3600 + 60) * 1000);
    const r = await apiUser();
    ok(r);
    expect(JSON.parse(r.stdout).login).toBe('mona');
    expect(stored().token).not.toBe(first.token);
    ok(await run((ctx) => runRatelimitWait(ctx, { min: '1' })));
  });
});
