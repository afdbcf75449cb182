/** The console's snapshot and actions on fake services and the emulator clock: handles, statuses, masking, the admin operations it calls. */
import { describe, expect, it } from 'vitest';
import { EmulatorClock } from '../../../src/emulator/clock.js';
import { type ConsoleOps, durationMs, runAction } from '../../../src/emulator/console/actions.js';
import { takeSnapshot } from '../../../src/emulator/console/snapshot.js';
import type { EmulatorService } from '../../../src/emulator/service.js';
import type { Fault } from '../../../src/emulator/faults.js';

const SECRET = Buffer.alloc(32, 7);
const TOKEN = 'lyx_a_secret_token_value_0001';

function fakeService(clock: EmulatorClock) {
  const state = { revoked: false, decided: [] as Array<[boolean, string | undefined]>, ended: 0 };
  const expiresAt = clock.now() + 60_000;
  const service: EmulatorService = {
    name: 'fake',
    register: () => undefined,
    console: () => ({
      users: [{ name: 'mona' }],
      credentials: [
        {
          key: TOKEN,
          masked: 'lyx_…0001',
          kind: 'oauth',
          subject: 'mona',
          expiresAt,
          revoked: state.revoked,
          revoke: () => void (state.revoked = true),
        },
        { key: 'other', masked: '********', kind: 'personal', subject: 'hubot' },
      ],
      sessions: [{ key: 'session-cookie-value-123', masked: 'sess…0123', subject: 'mona', end: () => void state.ended++ }],
      pending: [
        {
          key: 'device-code-secret',
          kind: 'device code',
          code: 'ABCD-EFGH',
          client: 'app',
          scopes: 'repo',
          expiresAt: clock.now() + 900_000,
          users: ['mona', 'hubot'],
          decide: (a, l) => state.decided.push([a, l]),
        },
      ],
    }),
  };
  return { service, state };
}

function fakeOps(): ConsoleOps & { calls: unknown[] } {
  const calls: unknown[] = [];
  return {
    calls,
    reset: async () => void calls.push(['reset']),
    advance: (ms, freeze) => (calls.push(['advance', ms, freeze]), { now: 'then' }),
    addFault: (f) => (calls.push(['fault', f]), { id: 1, type: 'status', path: '/x', ...f }) as Fault,
    faults: () => [],
    clearFaults: () => void calls.push(['clear']),
    verb: async (s, v, b) => (calls.push(['verb', s, v, b]), { appliesTo: 'user:mona' }),
  };
}

describe('console snapshot', () => {
  it('names items by handles that hold no secret, stable across snapshots; statuses follow the emulator clock', () => {
    const clock = new EmulatorClock();
    clock.freeze(true);
    const { service } = fakeService(clock);
    const a = takeSnapshot([service], clock, [], SECRET);
    const b = takeSnapshot([service], clock, [], SECRET);
    const json = JSON.stringify(a.snapshot);
    expect(json).not.toContain(TOKEN);
    expect(json).not.toContain('session-cookie-value-123');
    expect(json).not.toContain('device-code-secret');
    const cred = a.snapshot.services[0]!.credentials[0]!;
    expect(cred).toMatchObject({ masked: 'lyx_…0001', status: 'active', revocable: true });
    expect(cred.id).toBe(b.snapshot.services[0]!.credentials[0]!.id);
    // Another emulator (another secret) names it otherwise: a handle is no guessable function of the token.
    expect(takeSnapshot([service], clock, [], Buffer.alloc(32, 8)).snapshot.services[0]!.credentials[0]!.id).not.toBe(cred.id);
    // Without a revoke action it is shown, not revocable.
    expect(a.snapshot.services[0]!.credentials[1]).toMatchObject({ status: 'active', revocable: false });
    clock.advance(60_000);
    const later = takeSnapshot([service], clock, [], SECRET);
    expect(later.snapshot.services[0]!.credentials[0]).toMatchObject({ status: 'expired', revocable: false });
    expect(later.actions.has(cred.id)).toBe(false);
  });
});

describe('console actions', () => {
  it('call the admin operations with what the forms say', async () => {
    const ops = fakeOps();
    const run = (f: Record<string, string>) => runAction(new URLSearchParams(f), new Map(), ops);
    await run({ action: 'advance', duration: '1h30m' });
    await run({ action: 'freeze' });
    await run({ action: 'chaos', type: 'status', path: '/api/v3', status: '503', rate: '25%', seed: '42' });
    await run({ action: 'limits', contentPerMinute: '3' });
    await run({ action: 'budget', caller: 'user:mona', remaining: '0', resetIn: '5s' });
    expect(ops.calls).toEqual([
      ['advance', 5_400_000, undefined],
      ['advance', 0, true],
      ['fault', { type: 'status', path: '/api/v3', status: 503, rate: 0.25, seed: 42 }],
      ['verb', 'hosting', 'limits', { contentCreatingPerMinute: 3 }],
      ['verb', 'hosting', 'budget', { resource: 'core', remaining: 0, caller: 'user:mona', resetInSeconds: 5 }],
    ]);
  });

  it('refuse what they cannot do, with the reason', async () => {
    const ops = fakeOps();
    const run = (f: Record<string, string>) => runAction(new URLSearchParams(f), new Map(), ops);
    await expect(run({ action: 'advance', duration: 'soon' })).rejects.toThrow(/not a duration/);
    await expect(run({ action: 'chaos', type: 'status', path: '/x', rate: '150%' })).rejects.toThrow(/rate/);
    await expect(run({ action: 'limits' })).rejects.toThrow(/at least one/);
    await expect(run({ action: 'revoke', id: 'nope' })).rejects.toThrow(/gone/);
    await expect(run({ action: 'drop-tables' })).rejects.toThrow(/unknown action/);
    expect(ops.calls).toEqual([]);
  });

  it('act on items by handle: revoke, end, approve as the chosen user, deny', async () => {
    const clock = new EmulatorClock();
    const { service, state } = fakeService(clock);
    const { snapshot, actions } = takeSnapshot([service], clock, [], SECRET);
    const ops = fakeOps();
    const run = (f: Record<string, string>) => runAction(new URLSearchParams(f), actions, ops);
    const p = snapshot.pending[0]!;
    await expect(run({ action: 'revoke', id: p.id })).rejects.toThrow(/approved or denied/);
    expect(await run({ action: 'approve', id: p.id, login: 'hubot' })).toEqual({ message: 'Approved' });
    await run({ action: 'deny', id: p.id });
    expect(state.decided).toEqual([
      [true, 'hubot'],
      [false, undefined],
    ]);
    await run({ action: 'revoke', id: snapshot.services[0]!.credentials[0]!.id });
    expect(state.revoked).toBe(true);
    await run({ action: 'revoke', id: snapshot.services[0]!.sessions[0]!.id });
    expect(state.ended).toBe(1);
  });

  it('read durations as the CLI writes them', () => {
    expect(durationMs('90', 'd')).toBe(90_000);
    expect(durationMs('250ms', 'd')).toBe(250);
    expect(durationMs('1h30m', 'd')).toBe(5_400_000);
    expect(durationMs('2d', 'd')).toBe(172_800_000);
    expect(() => durationMs('1h 30m', 'd')).toThrow();
    expect(() => durationMs('-5s', 'd')).toThrow();
  });
});
