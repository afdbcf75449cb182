/** `lanyard ratelimit status|wait` and the rate-limit policy, CLI ↔ emulator over HTTP. */
import { describe, expect, it } from 'vitest';
import { useEmulatorWorld } from './emulator-world.js';

const ref = useEmulatorWorld();
const TOKEN = 'lyp_emulator_default_token_0000000000000001';
const run = ref.run;
const noStack = (s: string) => expect(s).not.toMatch(/\n\s+at .+\(.+:\d+:\d+\)/);

describe('ratelimit status', () => {
  it("--json: every resource with {limit, used, remaining, reset}; the token's budget", async () => {
    const r = await run(['ratelimit', 'status', '--json'], { LANYARD_TOKEN: TOKEN });
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
    const r = await run(['ratelimit', 'status', '--resource', 'core']);
    expect(r.code).toBe(0);
    // Into a pipe: the reset as epoch seconds (the header's value), not local time.
    expect(r.stdout).toMatch(/^core\t60\t0\t60\t\d{10}\n$/);
    const s = JSON.parse((await run(['ratelimit', 'status', '--resource', 'search', '--json'])).stdout);
    expect(Object.keys(s.resources)).toEqual(['search']);
  });

  it('an unknown resource or a bad --fail-under is a usage error (exit 2)', async () => {
    const a = await run(['ratelimit', 'status', '--resource', 'nope']);
    expect(a.code).toBe(2);
    expect(a.stderr).toMatch(/unknown resource "nope"/);
    const b = await run(['ratelimit', 'status', '--fail-under', 'lots']);
    expect(b.code).toBe(2);
    expect(b.stderr).toBe('--fail-under: expected a whole number, got "lots"\n');
  });

  it('--fail-under: exit 3 with the reset time when the budget is short, JSON still on stdout', async () => {
    const ok = await run(['ratelimit', 'status', '--resource', 'core', '--fail-under', '60', '--json']);
    expect(ok.code).toBe(0);
    const short = await run(['ratelimit', 'status', '--resource', 'core', '--fail-under', '100', '--json']);
    expect(short.code).toBe(3);
    expect(JSON.parse(short.stdout).resources.core.remaining).toBe(60);
    expect(short.stderr).toMatch(
      /^budget check failed: core has 60 requests left, fewer than 100; it resets at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d \(in (60|59)m\)\n$/,
    );
  });

  it('budget exhausted (emulator budget verb) → exit 3 with the reset time', async () => {
    const set = await ref.world.run(['emulator', 'budget', '--anonymous', '--remaining', '0', '--reset-in', '30m', '--json']);
    expect(set.code).toBe(0);
    expect(JSON.parse(set.stdout).buckets[0]).toMatchObject({ caller: 'ip:127.0.0.1', resource: 'core', remaining: 0 });
    const r = await run(['ratelimit', 'status', '--fail-under', '1']);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/core has 0 requests left, fewer than 1; it resets at .* \(in 30m\)/);
    noStack(r.stderr);
  });

  it('a missing endpoint names the config set to run (exit 2)', async () => {
    const r = await ref.world.run(['--profile', 'bare', 'ratelimit', 'status']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/no profile named "bare"/);
    await ref.world.run(['--profile', 'bare', 'config', 'set', 'mailbox.user', 'x']);
    const m = await ref.world.run(['--profile', 'bare', 'ratelimit', 'status']);
    expect(m.code).toBe(2);
    expect(m.stderr).toBe(
      'profile "bare" has no hosting.apiUrl\nrun `lanyard config set hosting.apiUrl <url> --profile bare`, or use a profile that has it: `--profile NAME` (`lanyard profile list`; after `lanyard emulator start`: `--profile emulator`)\n',
    );
  });
});

describe('ratelimit wait', () => {
  it('blocks until the emulator resets the budget, then succeeds', async () => {
    await ref.world.admin('hosting/budget', { anonymous: true, remaining: 0, resetInSeconds: 2 });
    const t0 = Date.now();
    const r = await run(['ratelimit', 'wait']);
    expect(r.code).toBe(0);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1500);
    expect(r.stderr).toMatch(/waiting for core budget: 0 left/);
    expect(r.stderr).toMatch(/core: 60 of 60 requests available/);
  });

  it('--timeout: exit 3 when the budget does not come back in time', async () => {
    await ref.world.admin('hosting/budget', { anonymous: true, remaining: 0, resetInSeconds: 1800 });
    const t0 = Date.now();
    const r = await run(['ratelimit', 'wait', '--timeout', '1s']);
    expect(r.code).toBe(3);
    expect(Date.now() - t0).toBeLessThan(8000);
    expect(r.stderr).toMatch(/timed out waiting for core: 0 left, resets at .* \(in 30m\)/);
  });

  it('--min above the limit is a usage error', async () => {
    const r = await run(['ratelimit', 'wait', '--min', '61']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--min 61 is more than the core limit \(60\)/);
  });
});

describe('the rate-limit policy end to end', () => {
  it('secondary limit with a retry-after beyond the bound (1 min without --wait): exit 3 at once, when to retry, no stack trace', async () => {
    await ref.world.admin('hosting/secondary', { retryAfter: 90 });
    const t0 = Date.now();
    const r = await run(['ratelimit', 'status', '--json']);
    expect(r.code).toBe(3);
    expect(Date.now() - t0).toBeLessThan(15_000);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(
      /^You have exceeded a secondary rate limit; retry after \d{4}-.*Z\ntry again at .* local time \(in (1m ?30s|90s|2m)\); rerun with --wait/,
    );
    noStack(r.stderr);
  });

  it('secondary limit with a short retry-after, no --wait: waited out as the server asks (said on stderr and as a CI event), then sent once more', async () => {
    await ref.world.admin('hosting/secondary', { retryAfter: 2 });
    const r = await run(['ratelimit', 'status', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/secondary rate limit reached; waiting 2 s \(as the server asks; at most 60 s without --wait, Ctrl-C to stop\)/);
    expect(JSON.parse(r.stdout).resources.core.limit).toBe(60);
    await ref.world.admin('hosting/secondary', { retryAfter: 1 });
    const ci = await run(['ratelimit', 'status', '--json'], { CI: 'true' });
    expect(ci.code, ci.stderr).toBe(0);
    const event = JSON.parse(ci.stderr.split('\n').find((l) => l.includes('rate_limit_wait'))!);
    expect(event).toMatchObject({ event: 'rate_limit_wait', kind: 'secondary', status: 403, wait_ms: 1000, bound_ms: 60_000 });
  });

  it('--max-wait 0 without --wait: never waits, exit 3 at once', async () => {
    await ref.world.admin('hosting/secondary', { retryAfter: 1 });
    const r = await run(['--max-wait', '0', 'ratelimit', 'status']);
    expect(r.code).toBe(3);
    expect(r.stderr).not.toMatch(/waiting/);
  });

  it('secondary limit with retry-after and --wait: waits that long and succeeds', async () => {
    await ref.world.admin('hosting/secondary', { retryAfter: 2 });
    const t0 = Date.now();
    const r = await run(['--wait', 'ratelimit', 'status', '--json']);
    expect(r.code).toBe(0);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1800);
    expect(r.stderr).toMatch(/secondary rate limit reached; waiting 2 s \(--wait\)/);
    expect(JSON.parse(r.stdout).resources.core.limit).toBe(60);
  });

  it('secondary limit without retry-after and remaining 0: LANYARD_RATE_LIMIT_WAIT=1 waits until x-ratelimit-reset', async () => {
    await ref.world.run(['emulator', 'secondary', '--exhaust-budget', '--reset-in', '2s']);
    const t0 = Date.now();
    const r = await run(['ratelimit', 'status', '--json'], { LANYARD_RATE_LIMIT_WAIT: '1' });
    expect(r.code).toBe(0);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1800);
    expect(r.stderr).toMatch(/waiting [23] s/);
    expect(JSON.parse(r.stdout).resources.core.remaining).toBe(60);
  });

  it('secondary limit without retry-after and budget left: the 60 s minimum is beyond --max-wait → exit 3', async () => {
    await ref.world.admin('hosting/secondary', {});
    const r = await run(['--wait', '--max-wait', '5s', 'ratelimit', 'status']);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/the wait \(60 s\) exceeds the maximum wait \(5 s\)/);
  });

  it('a 429 secondary limit is handled like a 403 one', async () => {
    await ref.world.run(['emulator', 'secondary', '--status', '429', '--retry-after', '1s']);
    const r = await run(['--wait', 'ratelimit', 'status', '--resource', 'core']);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/waiting 1 s/);
  });
});

describe('credentials, traces and interruption', () => {
  it('an unknown token: exit 4, naming the refused token and the sign-in', async () => {
    const r = await run(['ratelimit', 'status'], { LANYARD_TOKEN: 'lyp_not_a_real_token_000000000000' });
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(
      /HTTP 401: Bad credentials\nthe token from LANYARD_TOKEN was refused: set a valid one, or unset it and sign in with `lanyard auth device`\n/,
    );
    expect(r.stderr).not.toContain('lyp_not_a_real_token');
  });

  it('--debug traces the exchange with the token redacted', async () => {
    const r = await run(['--debug', 'ratelimit', 'status', '--resource', 'core'], { LANYARD_TOKEN: TOKEN });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^> GET http:\/\/127\.0\.0\.1:\d+\/api\/v3\/rate_limit$/m);
    expect(r.stderr).toContain('> authorization: Bearer [REDACTED]');
    expect(r.stderr).toMatch(/^< x-ratelimit-limit: 5000$/m);
    expect(r.stderr).not.toContain(TOKEN);
    expect(r.stdout).toMatch(/^core\t5000\t0\t5000\t/);
  });

  it('Ctrl-C during a rate-limit wait: exit 130 at once', async () => {
    await ref.world.admin('hosting/secondary', { retryAfter: 60 });
    const t0 = Date.now();
    const r = await ref.world.run(['--profile', 'emulator', '--wait', 'ratelimit', 'status'], {
      onSpawn: (child) => {
        child.stderr!.on('data', (c: Buffer) => {
          if (c.toString().includes('waiting')) child.kill('SIGINT');
        });
      },
    });
    expect(r.code).toBe(130);
    expect(r.stderr).toMatch(/waiting 60 s \(--wait\)\nInterrupted\n$/);
    expect(Date.now() - t0).toBeLessThan(15_000);
  });
});

describe('primary limit through a counted request (lanyard api)', () => {
  it('budget exhausted → exit 3 with the reset time on stderr; --wait waits for the emulator reset and succeeds', async () => {
    await ref.world.run(['emulator', 'budget', '--token-of', 'mona', '--remaining', '0', '--reset-in', '8s']);
    const fail = await run(['api', '/repos/mona/hello-world'], { LANYARD_TOKEN: TOKEN });
    expect(fail.code).toBe(3);
    expect(fail.stdout).toBe('');
    expect(fail.stderr).toMatch(
      /^API rate limit exceeded for user ID 1; the budget resets at \d{4}-.*Z\nthe budget resets at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d local time \((now|in \d+s)\); rerun with --wait/,
    );
    noStack(fail.stderr);
    const t0 = Date.now();
    const ok = await run(['--wait', 'api', '/repos/mona/hello-world'], { LANYARD_TOKEN: TOKEN });
    expect(ok.code).toBe(0);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1000);
    expect(ok.stderr).toMatch(/primary rate limit reached; waiting [1-9] s \(--wait\)/);
    expect(JSON.parse(ok.stdout)).toMatchObject({ full_name: 'mona/hello-world' });
  });

  it('anonymous callers: 60 per hour, then "API rate limit exceeded for 127.0.0.1"', async () => {
    await ref.world.run(['emulator', 'budget', '--anonymous', '--remaining', '1', '--reset-in', '20m']);
    const first = await run(['api', '-i', '/repos/mona/hello-world']);
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/x-ratelimit-remaining: 0/i);
    const second = await run(['api', '/repos/mona/hello-world']);
    expect(second.code).toBe(3);
    expect(second.stderr).toMatch(/^API rate limit exceeded for 127\.0\.0\.1; the budget resets at .*\n.*\(in 20m\)/);
  });
});
