/** `ratelimit status|wait` run functions with fake IO, a FakeClock and a stub API. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createContext, type Context, type GlobalOptions } from '../../../src/cli/context.js';
import { Output } from '../../../src/cli/output/output.js';
import { runRatelimitStatus, runRatelimitWait } from '../../../src/cli/commands/ratelimit/run.js';
import { ConfigStore } from '../../../src/core/config/store.js';
import { RateLimitError } from '../../../src/core/errors.js';
import { FakeClock } from '../../fakes/clock.js';
import { createTestIO, type TestIO } from '../../fakes/io.js';
import { StubHttp } from '../../fakes/stub-http.js';

let dir: string;
let stub: StubHttp;
let clock: FakeClock;
let io: TestIO;
let ctx: Context;
const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);
const S = NOW / 1000;

function overview(core: { remaining: number; reset: number }, dateMs = clock.now()) {
  return {
    headers: { date: new Date(dateMs).toUTCString() },
    body: {
      resources: {
        core: { limit: 60, used: 60 - core.remaining, remaining: core.remaining, reset: core.reset },
        search: { limit: 10, used: 0, remaining: 10, reset: S + 60 },
      },
      rate: { limit: 60, used: 60 - core.remaining, remaining: core.remaining, reset: core.reset },
    },
  };
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lanyard-rl-'));
  stub = await StubHttp.start();
  clock = new FakeClock(NOW);
  await (await ConfigStore.open({ dir })).set('t', 'hosting.apiUrl', `${stub.url}/api/v3`);
});
afterEach(async () => {
  await ctx?.close();
  await stub.close();
  await rm(dir, { recursive: true, force: true });
});

function context(tty: boolean, globals: GlobalOptions = {}): Context {
  io = createTestIO({ tty, color: false, columns: 100 });
  ctx = createContext({
    io,
    env: { LANYARD_CONFIG_DIR: dir },
    signal: new AbortController().signal,
    version: '0.0.0',
    globals: () => ({ profile: 't', ...globals }),
    clock,
  });
  return ctx;
}

describe('ratelimit status', () => {
  it('a table with local reset time and "in Nm" on a TTY', async () => {
    stub.on('GET', '/api/v3/rate_limit', overview({ remaining: 42, reset: S + 720 }));
    await runRatelimitStatus(context(true), {});
    const lines = io.stdoutText().trimEnd().split('\n');
    expect(lines[0]).toMatch(/^RESOURCE\s+LIMIT\s+USED\s+REMAINING\s+RESET$/);
    // The date only when the reset is on another day than today (80 columns hold the table).
    const sameDay = new Date(S * 1000).toDateString() === new Date((S + 720) * 1000).toDateString();
    expect(lines[1]).toMatch(
      sameDay ? /^core\s+60\s+18\s+42\s+\d\d:\d\d:\d\d \(in 12m\)$/ : /^core\s+60\s+18\s+42\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \(in 12m\)$/,
    );
    expect(lines[2]).toMatch(/^search\s+10\s+0\s+10\s+.*\(in 60s\)$/);
    expect(stub.requests[0]!.headers.authorization).toBeUndefined();
  });

  it('LANYARD_TOKEN is sent as a bearer token', async () => {
    stub.on('GET', '/api/v3/rate_limit', overview({ remaining: 60, reset: S + 3600 }));
    context(false);
    ctx = createContext({
      io,
      env: { LANYARD_CONFIG_DIR: dir, LANYARD_TOKEN: 'tok-abc' },
      signal: new AbortController().signal,
      version: '0',
      globals: () => ({ profile: 't' }),
      clock,
    });
    await runRatelimitStatus(ctx, {});
    expect(stub.requests[0]!.headers.authorization).toBe('Bearer tok-abc');
  });

  it('--fail-under on the chosen resource', async () => {
    stub.on('GET', '/api/v3/rate_limit', overview({ remaining: 5, reset: S + 600 }), 2);
    await expect(runRatelimitStatus(context(false), { failUnder: '5' })).resolves.toBeUndefined();
    const json = context(false).forRun({ io, output: new Output(io, { format: 'json' }) });
    const err = (await runRatelimitStatus(json, { failUnder: '6' }).catch((e: unknown) => e)) as RateLimitError;
    expect(err).toBeInstanceOf(RateLimitError);
    expect(err.kind).toBe('budget');
    expect(err.resetAt).toBe((S + 600) * 1000);
    expect(JSON.parse(io.stdoutText()).resources.core.remaining).toBe(5);
  });
});

describe('ratelimit wait', () => {
  it('sleeps until the reset (server clock, +1 s), then reports the budget', async () => {
    const serverAhead = 30_000;
    stub.on('GET', '/api/v3/rate_limit', () => overview({ remaining: 0, reset: (NOW + serverAhead) / 1000 + 120 }, clock.now() + serverAhead));
    stub.on('GET', '/api/v3/rate_limit', () => overview({ remaining: 60, reset: S + 3600 }, clock.now() + serverAhead));
    await runRatelimitWait(context(false), {});
    expect(clock.sleeps).toEqual([121_000]);
    expect(io.stderrText()).toMatch(/waiting for core budget: 0 left, resets in 2m 00s\ncore: 60 of 60 requests available\n$/);
  });

  it('--timeout: waits what is left, checks once more, then fails with exit-3 error', async () => {
    stub.on('GET', '/api/v3/rate_limit', () => overview({ remaining: 0, reset: S + 1800 }), 2);
    const err = await runRatelimitWait(context(false, { timeout: '90s' }), {}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RateLimitError);
    expect((err as Error).message).toMatch(/^timed out waiting for core: 0 left, resets at .* \(in 29m\)$/);
    expect(clock.sleeps).toEqual([90_000]);
    stub.verify();
  });

  it('--min counts as "back"', async () => {
    stub.on('GET', '/api/v3/rate_limit', () => overview({ remaining: 3, reset: S + 10 }));
    stub.on('GET', '/api/v3/rate_limit', () => overview({ remaining: 60, reset: S + 3600 }));
    await runRatelimitWait(context(false), { min: '10' });
    expect(clock.sleeps).toEqual([11_000]);
  });
});
