/** `auth status` lines of the health token, and the token resolution order, through a real context (temp config dir, file store). */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createContext, type Context } from '../../../../src/cli/context.js';
import { healthStatusEntries } from '../../../../src/cli/commands/auth/health.js';
import { resolveToken } from '../../../../src/cli/services/health/wiring.js';
import { saveHealthToken } from '../../../../src/core/health/token.js';
import { FakeClock } from '../../../fakes/clock.js';
import { createTestIO } from '../../../fakes/io.js';

let dir: string;
const clock = new FakeClock(Date.UTC(2026, 10, 22, 12));
const authUrl = 'http://127.0.0.1:4010';

function context(env: Record<string, string> = {}): Context {
  return createContext({
    io: createTestIO(),
    env: { LANYARD_CONFIG_DIR: dir, LANYARD_KEYCHAIN: 'off', ...env },
    signal: new AbortController().signal,
    version: 'test',
    globals: () => ({ profile: 'p' }),
    clock,
  });
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lanyard-health-status-'));
  const store = await context().config();
  await store.set('p', 'health.authUrl', authUrl);
});
afterEach(async () => rm(dir, { recursive: true, force: true }));

describe('healthStatusEntries', () => {
  it('lists the stored token masked with its expiry, valid until it expires', async () => {
    const ctx = context();
    await saveHealthToken((await ctx.credentialStorage()).store(), authUrl, {
      access_token: 'emu-secret-token',
      token_type: 'Bearer',
      expires_at: clock.now() + 600_000,
      obtained_at: clock.now(),
      scope: 'user_impersonation',
      client_id: 'cid',
    });
    const [e] = await healthStatusEntries(ctx, false);
    expect(e).toEqual({
      service: 'health',
      host: '127.0.0.1:4010',
      account: 'cid',
      source: 'file',
      scopes: ['user_impersonation'],
      valid: true,
      expiresAt: new Date(clock.now() + 600_000).toISOString(),
      token: 'emu-…oken',
      active: true,
    });
    expect((await healthStatusEntries(ctx, true))[0]!.token).toBe('emu-secret-token');
    expect((await resolveToken(ctx, { 'health.authUrl': authUrl })).token).toBe('emu-secret-token');
    clock.advance(600_000);
    const [expired] = await healthStatusEntries(ctx, false);
    expect(expired!.valid).toBe(false);
    expect(expired!.detail).toMatch(/expired/);
    await expect(resolveToken(ctx, { 'health.authUrl': authUrl })).rejects.toThrow(/expired/);
  });

  it('a token that is a JWT: the user from its claims (upn), not the client id; from the environment, its exp too', async () => {
    const exp = Math.floor(clock.now() / 1000) + 600;
    const jwt = ['e30', Buffer.from(JSON.stringify({ upn: 'ada@contoso.example', appid: 'cid', exp })).toString('base64url'), 'c2ln'].join('.');
    const ctx = context();
    await saveHealthToken((await ctx.credentialStorage()).store(), authUrl, {
      access_token: jwt,
      token_type: 'Bearer',
      expires_at: exp * 1000,
      obtained_at: clock.now(),
      client_id: 'cid',
    });
    expect((await healthStatusEntries(ctx, false))[0]).toMatchObject({ account: 'cid', user: 'ada@contoso.example', valid: true });
    const fromEnv = context({ LANYARD_HEALTH_TOKEN: jwt });
    expect((await healthStatusEntries(fromEnv, false))[0]).toMatchObject({
      source: 'LANYARD_HEALTH_TOKEN',
      user: 'ada@contoso.example',
      valid: true,
      expiresAt: new Date(exp * 1000).toISOString(),
    });
    clock.advance(600_000);
    expect((await healthStatusEntries(fromEnv, false))[0]).toMatchObject({ valid: false, detail: expect.stringMatching(/^expired/) });
  });

  it('LANYARD_HEALTH_TOKEN is listed first and is the active one', async () => {
    const ctx = context({ LANYARD_HEALTH_TOKEN: 'from-env-123' });
    const entries = await healthStatusEntries(ctx, false);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ service: 'health', source: 'LANYARD_HEALTH_TOKEN', active: true, token: '************' });
    expect(await resolveToken(ctx, { 'health.authUrl': authUrl })).toEqual({ token: 'from-env-123', source: 'environment' });
  });
});
