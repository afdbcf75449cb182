/**
 * `lanyard ratelimit status|wait` and the rate-limit policy as run functions
 * against the in-process emulator (formerly spawned end to end): the JSON and
 * row shapes, usage errors (exit 2), budget checks (exit 3), refused tokens
 * (exit 4), the waits a secondary or primary limit asks for and their bounds.
 * Waits take no wall time: the command's clock moves the emulator's.
 * test/e2e/ratelimit.test.ts keeps the wiring, Ctrl-C and the waits against
 * the live clock.
 */
import { describe, expect, it } from 'vitest';
import { runApi } from '../../../../src/cli/commands/api/run.js';
import type { ApiOptions } from '../../../../src/cli/commands/api/options.js';
import { runEmulatorBudget, runEmulatorSecondary } from '../../../../src/cli/commands/emulator/ratelimit.js';
import { runRatelimitStatus, runRatelimitWait } from '../../../../src/cli/commands/ratelimit/run.js';
import { useEmulatorCommands } from '../on-emulator.js';

const on = useEmulatorCommands();
const TOKEN = 'lyp_emulator_default_token_0000000000000001';
const noStack = (s: string) => expect(s).not.toMatch(/\n\s+at .+\(.+:\d+:\d+\)/);
const api = (o: Partial<ApiOptions> = {}): ApiOptions => ({ header: [], rawField: [], field: [], service: 'hosting', ...o });

describe('ratelimit status', () => {
  it("--json: every resource with {limit, used, remaining, reset}; the token's budget", async () => {
    const r = await on.run((c) => runRatelimitStatus(c, {}), { env: { LANYARD_TOKEN: TOKEN }, format: 'json' });
    expect(r.code).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(Object.keys(j)).toEqual(['resources']);
    for (const name of ['core', 'search', 'graphql', 'code_search', 'integration_manifest']) {
      expect(Object.keys(j.resources[name])).toEqual(['limit', 'used', 'remaining', 'reset']);
    }
    expect(j.resources.core).toMatchObject({ limit: 5000, used: 0, remaining: 5000 });
    expect(j.resources.search.limit).toBe(30);
  });

  it('anonymous: 60 per hour; --resource picks one; rows are tab-separated off a TTY', async () => {
    const r = await on.run((c) => runRatelimitStatus(c, { resource: 'core' }));
    expect(r.code).toBe(0);
    // Into a pipe: the reset as epoch seconds (the header's value), not local time.
    expect(r.stdout).toMatch(/^core\t60\t0\t60\t\d{10}\n$/);
    const s = JSON.parse((await on.run((c) => runRatelimitStatus(c, { resource: 'search' }), { format: 'json' })).stdout);
    expect(Object.keys(s.resources)).toEqual(['search']);
  });

  it('an unknown resource or a bad --fail-under is a usage error (exit 2)', async () => {
    const a = await on.run((c) => runRatelimitStatus(c, { resource: 'nope' }));
    expect(a.code).toBe(2);
    expect(a.stderr).toMatch(/unknown resource "nope"/);
    const b = await on.run((c) => runRatelimitStatus(c, { failUnder: 'lots' }));
    expect(b.code).toBe(2);
    expect(b.stderr).toBe('--fail-under: expected a whole number, got "lots"\n');
  });

  it('--fail-under: exit 3 with the reset time when the budget is short, JSON still on stdout', async () => {
    const ok = await on.run((c) => runRatelimitStatus(c, { resource: 'core', failUnder: '60' }), { format: 'json' });
    expect(ok.code).toBe(0);
    const short = await on.run((c) => runRatelimitStatus(c, { resource: 'core', failUnder: '100' }), { format: 'json' });
    expect(short.code).toBe(3);
    expect(JSON.parse(short.stdout).resources.core.remaining).toBe(60);
    expect(short.stderr).toMatch(
      /^budget check failed: core has 60 requests left, fewer than 100; it resets at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d \(in (60|59)m\)\n$/,
    );
  });

  it('budget exhausted (emulator budget verb) → exit 3 with the reset time', async () => {
    const set = await on.run((c) => runEmulatorBudget(c, { url: on.emu.url, anonymous: true, remaining: '0', resetIn: '30m' }), { format: 'json' });
    expect(set.code).toBe(0);
    expect(JSON.parse(set.stdout).buckets[0]).toMatchObject({ caller: 'ip:127.0.0.1', resource: 'core', remaining: 0 });
    const r = await on.run((c) => runRatelimitStatus(c, { failUnder: '1' }));
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/core has 0 requests left, fewer than 1; it resets at .* \(in 30m\)/);
    noStack(r.stderr);
  });

  it('a missing endpoint names the config set to run (exit 2)', async () => {
    const r = await on.run((c) => runRatelimitStatus(c, {}), { globals: { profile: 'bare' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/no profile named "bare"/);
    const m = await on.run((c) => runRatelimitStatus(c, {}), { profile: 'bare', settings: { 'hosting.apiUrl': undefined } });
    expect(m.code).toBe(2);
    expect(m.stderr).toBe(
      'profile "bare" has no hosting.apiUrl\nrun `lanyard config set hosting.apiUrl <url> --profile bare`, or use a profile that has it: `--profile NAME` (`lanyard profile list`; after `lanyard emulator start`: `--profile emulator`)\n',
    );
  });
});

describe('ratelimit wait', () => {
  it('blocks until the emulator resets the budget, then succeeds', async () => {
    await on.emu.budget({ anonymous: true, remaining: 0, resetInSeconds: 120 });
    const r = await on.run((c) => runRatelimitWait(c, {}));
    expect(r.code).toBe(0);
    expect(r.clock.sleeps).toEqual([121_000]);
    expect(r.stderr).toMatch(/waiting for core budget: 0 left, resets in 2m 00s\n/);
    expect(r.stderr).toMatch(/core: 60 of 60 requests available/);
  });

  it('--timeout: exit 3 when the budget does not come back in time', async () => {
    await on.emu.budget({ anonymous: true, remaining: 0, resetInSeconds: 1800 });
    const r = await on.run((c) => runRatelimitWait(c, {}), { globals: { timeout: '1s' } });
    expect(r.code).toBe(3);
    expect(r.clock.sleeps).toEqual([1000]);
    expect(r.stderr).toMatch(/timed out waiting for core: 0 left, resets at .* \(in 30m\)/);
  });

  it('--min above the limit is a usage error', async () => {
    const r = await on.run((c) => runRatelimitWait(c, { min: '61' }));
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--min 61 is more than the core limit \(60\)/);
  });
});

describe('the rate-limit policy (secondary limits)', () => {
  it('a retry-after beyond the bound (1 min without --wait): exit 3 at once, when to retry, no stack trace', async () => {
    await on.emu.secondary({ retryAfter: 90 });
    const r = await on.run((c) => runRatelimitStatus(c, {}), { format: 'json' });
    expect(r.code).toBe(3);
    expect(r.clock.sleeps).toEqual([]);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(
      /^You have exceeded a secondary rate limit; retry after \d{4}-.*Z\ntry again at .* local time \(in (1m ?30s|90s|2m)\); rerun with --wait/,
    );
    noStack(r.stderr);
  });

  it('a short retry-after, no --wait: waited out as the server asks (said on stderr and as a CI event), then sent once more', async () => {
    await on.emu.secondary({ retryAfter: 2 });
    const r = await on.run((c) => runRatelimitStatus(c, {}), { format: 'json' });
    expect(r.code, r.stderr).toBe(0);
    expect(r.clock.sleeps).toEqual([2000]);
    expect(r.stderr).toMatch(/secondary rate limit reached; waiting 2 s \(as the server asks; at most 60 s without --wait, Ctrl-C to stop\)/);
    expect(JSON.parse(r.stdout).resources.core.limit).toBe(60);
    await on.emu.secondary({ retryAfter: 1 });
    const ci = await on.run((c) => runRatelimitStatus(c, {}), { format: 'json', env: { CI: 'true' } });
    expect(ci.code, ci.stderr).toBe(0);
    const event = JSON.parse(ci.stderr.split('\n').find((l) => l.includes('rate_limit_wait'))!);
    expect(event).toMatchObject({ event: 'rate_limit_wait', kind: 'secondary', status: 403, wait_ms: 1000, bound_ms: 60_000 });
  });

  it('--max-wait 0 without --wait: never waits, exit 3 at once', async () => {
    await on.emu.secondary({ retryAfter: 1 });
    const r = await on.run((c) => runRatelimitStatus(c, {}), { globals: { maxWait: '0' } });
    expect(r.code).toBe(3);
    expect(r.clock.sleeps).toEqual([]);
    expect(r.stderr).not.toMatch(/waiting/);
  });

  it('with retry-after and --wait: waits that long and succeeds', async () => {
    await on.emu.secondary({ retryAfter: 2 });
    const r = await on.run((c) => runRatelimitStatus(c, {}), { globals: { wait: true }, format: 'json' });
    expect(r.code).toBe(0);
    expect(r.clock.sleeps).toEqual([2000]);
    expect(r.stderr).toMatch(/secondary rate limit reached; waiting 2 s \(--wait\)/);
    expect(JSON.parse(r.stdout).resources.core.limit).toBe(60);
  });

  it('without retry-after and remaining 0: LANYARD_RATE_LIMIT_WAIT=1 waits until x-ratelimit-reset', async () => {
    const armed = await on.run((c) => runEmulatorSecondary(c, { url: on.emu.url, exhaustBudget: true, resetIn: '2s' }));
    expect(armed.stderr).toMatch(/^Next 1 request\(s\) from .* get a secondary rate limit \(HTTP 403, no retry-after\)\n$/);
    const r = await on.run((c) => runRatelimitStatus(c, {}), { env: { LANYARD_RATE_LIMIT_WAIT: '1' }, format: 'json' });
    expect(r.code).toBe(0);
    expect(r.clock.sleeps.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(1800);
    expect(r.stderr).toMatch(/waiting [23] s/);
    expect(JSON.parse(r.stdout).resources.core.remaining).toBe(60);
  });

  it('without retry-after and budget left: the 60 s minimum is beyond --max-wait → exit 3', async () => {
    await on.emu.secondary({});
    const r = await on.run((c) => runRatelimitStatus(c, {}), { globals: { wait: true, maxWait: '5s' } });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/the wait \(60 s\) exceeds the maximum wait \(5 s\)/);
  });

  it('a 429 secondary limit is handled like a 403 one', async () => {
    await on.run((c) => runEmulatorSecondary(c, { url: on.emu.url, status: '429', retryAfter: '1s' }));
    const r = await on.run((c) => runRatelimitStatus(c, { resource: 'core' }), { globals: { wait: true } });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/waiting 1 s/);
  });
});

describe('credentials and traces', () => {
  it('an unknown token: exit 4, naming the refused token and the sign-in', async () => {
    const r = await on.run((c) => runRatelimitStatus(c, {}), { env: { LANYARD_TOKEN: 'lyp_not_a_real_token_000000000000' } });
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(
      /HTTP 401: Bad credentials\nthe token from LANYARD_TOKEN was refused: set a valid one, or unset it and sign in with `lanyard auth device`\n/,
    );
    expect(r.stderr).not.toContain('lyp_not_a_real_token');
  });

  it('--debug traces the exchange with the token redacted', async () => {
    const r = await on.run((c) => runRatelimitStatus(c, { resource: 'core' }), { env: { LANYARD_TOKEN: TOKEN }, globals: { debug: true } });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^> GET http:\/\/127\.0\.0\.1:\d+\/api\/v3\/rate_limit$/m);
    expect(r.stderr).toContain('> authorization: Bearer [REDACTED]');
    expect(r.stderr).toMatch(/^< x-ratelimit-limit: 5000$/m);
    expect(r.io.stderrText()).not.toContain(TOKEN);
    expect(r.stdout).toMatch(/^core\t5000\t0\t5000\t/);
  });
});

describe('primary limit through a counted request (lanyard api)', () => {
  it('budget exhausted → exit 3 with the reset time on stderr; --wait waits for the emulator reset and succeeds', async () => {
    await on.run((c) => runEmulatorBudget(c, { url: on.emu.url, tokenOf: 'mona', remaining: '0', resetIn: '8s' }));
    const env = { LANYARD_TOKEN: TOKEN };
    const fail = await on.run((c) => runApi(c, '/repos/mona/hello-world', api()), { env });
    expect(fail.code).toBe(3);
    expect(fail.stdout).toBe('');
    expect(fail.stderr).toMatch(
      /^API rate limit exceeded for user ID 1; the budget resets at \d{4}-.*Z\nthe budget resets at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d local time \(in \d+s\); rerun with --wait/,
    );
    noStack(fail.stderr);
    const ok = await on.run((c) => runApi(c, '/repos/mona/hello-world', api()), { env, globals: { wait: true } });
    expect(ok.code).toBe(0);
    expect(ok.clock.sleeps.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(7000);
    expect(ok.stderr).toMatch(/primary rate limit reached; waiting [1-9] s \(--wait\)/);
    expect(JSON.parse(ok.stdout)).toMatchObject({ full_name: 'mona/hello-world' });
  });

  it('anonymous callers: 60 per hour, then "API rate limit exceeded for 127.0.0.1"', async () => {
    await on.emu.budget({ anonymous: true, remaining: 1, resetInSeconds: 1200 });
    const first = await on.run((c) => runApi(c, '/repos/mona/hello-world', api({ include: true })));
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/x-ratelimit-remaining: 0/i);
    const second = await on.run((c) => runApi(c, '/repos/mona/hello-world', api()));
    expect(second.code).toBe(3);
    expect(second.stderr).toMatch(/^API rate limit exceeded for 127\.0\.0\.1; the budget resets at .*\n.*\(in 20m\)/);
  });
});
