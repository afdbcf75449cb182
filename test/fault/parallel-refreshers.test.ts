/**
 * Parallel refreshers, as a CI matrix or a shell loop makes them: separate
 * processes that find one expired token at once must all succeed, and the
 * account must stay signed in. The emulator, like real servers, rotates
 * refresh tokens and revokes the whole family when a spent one is presented,
 * so a refresh that is not serialised across processes (the lock in the
 * config directory, the store re-read once it is held) signs the user out.
 * Every store that refreshes: the hosting token of an installable app, and a
 * context-protocol server's tokens. Each case runs ROUNDS rounds.
 */
import { describe, expect, it } from 'vitest';
import { cli, signInInstallable, storedRecord, useAuthWorld } from '../e2e/auth-helpers.js';
import type { CliResult, World } from '../e2e/harness.js';
import { configure, newClient, stats, tokensOf } from '../e2e/protocol-helpers.js';

const ROUNDS = 2;
let world: World;
useAuthWorld((w) => (world = w));

const ok = (r: CliResult) => expect(r.code, r.stderr).toBe(0);

describe("hosting: an installable app's rotating refresh token", () => {
  it('eight processes refreshing one rotating refresh token at once all exit 0, and the account stays valid', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const key = await signInInstallable(world);
      const first = await storedRecord(world, key);
      await world.admin('advance', { seconds: 8 * 3600 + 60 });
      const runs = await Promise.all(Array.from({ length: 8 }, () => cli(world, ['api', '/user'])));
      for (const r of runs) {
        ok(r);
        expect(JSON.parse(r.stdout).login).toBe('mona');
      }
      const after = await storedRecord(world, key);
      expect(after.refreshToken).not.toBe(first.refreshToken);
      const s = await cli(world, ['auth', 'status', '--json']);
      ok(s);
      const hosting = (JSON.parse(s.stdout).accounts as Array<{ service: string; account: string; valid: boolean }>).find((a) => a.service === 'hosting');
      expect(hosting).toMatchObject({ account: 'mona', valid: true });
    }
  }, 180_000);
});

describe("protocol: a server's rotating refresh token", () => {
  it('four `protocol request` at once after expiry all succeed with one refresh', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      // The file's emulator, back to its seed (not a new emulator process per round); a new client each round.
      const w = world;
      await w.admin('reset');
      const mcp = `${w.url}/mcp`;
      // 20 s tokens expire within the client's 30 s margin: every next call refreshes first.
      await configure(w, { accessTokenTtl: 20 });
      const c = await newClient('allow');
      ok(await w.run(['protocol', 'request', mcp], { env: c.env() }));
      const first = (await tokensOf(c, mcp))!;
      const before = (await stats(w)).tokenRequests.refresh_token ?? 0;
      const runs = await Promise.all(Array.from({ length: 4 }, () => w.run(['protocol', 'request', mcp, '--method', 'ping'], { env: c.env() })));
      for (const r of runs) ok(r);
      const s = await stats(w);
      expect(s.refreshReuseDetected).toBe(0);
      expect(await c.urls()).toHaveLength(1); // nobody had to sign in again
      // Each refresh was done by one process at a time, from the newest refresh token.
      expect((s.tokenRequests.refresh_token ?? 0) - before).toBeGreaterThanOrEqual(1);
      expect((await tokensOf(c, mcp))!.refreshToken).not.toBe(first.refreshToken);
    }
  }, 240_000);
});
