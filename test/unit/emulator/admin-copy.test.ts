/**
 * `admin()` in process answers as `POST /_emulator/<service>/<verb>` does: a
 * copy. A test that keeps the answer to compare before and after (the
 * protocol server's stats) sees the state of that moment, and nothing it
 * changes in the answer reaches the emulator.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningEmulator, startEmulator } from '../../../src/emulator/index.js';

let emu: RunningEmulator;
beforeAll(async () => {
  emu = await startEmulator();
});
afterAll(async () => emu.stop());

type Stats = { metadataRequests: unknown[] };

describe('admin() in process', () => {
  it('returns a copy: an answer kept is the state of its moment, and changing it changes nothing', async () => {
    const before = (await emu.admin('protocol', 'stats')) as Stats;
    await (await fetch(`${emu.url}/.well-known/oauth-authorization-server`)).text();
    const after = (await emu.admin('protocol', 'stats')) as Stats;
    expect(after.metadataRequests.length).toBe(before.metadataRequests.length + 1);
    before.metadataRequests.push('not the emulator’s');
    after.metadataRequests.length = 0;
    const again = (await emu.admin('protocol', 'stats')) as Stats;
    expect(again.metadataRequests).toHaveLength(1);
    const overHttp = await (
      await fetch(`${emu.urls.admin}/protocol/stats`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })
    ).json();
    expect(overHttp).toEqual(again);
  });
});
