/**
 * The hosting emulator's organisations have the code host's legacy global
 * node ids: base64 of `0<length of the type name>:<type><id>` — `012:Organization1`
 * is `MDEyOk9yZ2FuaXphdGlvbjE=`, the published description's own example —
 * the same in the listing (`GET /user/orgs`) and in the organisation itself.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../../src/emulator/server.js';
import { SEED } from '../../../src/emulator/services/hosting/state.js';

let emu: Emulator;
beforeAll(async () => {
  emu = await startEmulator({ port: 0 });
});
afterAll(async () => {
  await emu.close();
});

const get = async (path: string) =>
  (await fetch(`${emu.url}/api/v3${path}`, { headers: { authorization: `Bearer ${SEED.personalToken}` } })).json() as Promise<any>;

const decoded = (id: string) => Buffer.from(id, 'base64').toString('latin1');

describe('organisation node ids', () => {
  it('the published example decodes to the form the emulator makes', () => {
    const spec = JSON.parse(readFileSync(createRequire(import.meta.url).resolve('@octokit/openapi/generated/api.github.com.json'), 'utf8'));
    const example = spec.components.examples['organization-full'].value;
    expect(decoded(example.node_id)).toBe(`012:Organization${example.id}`);
  });
  it('GET /user/orgs and GET /orgs/{org}: 012:Organization<id>, the same id in both', async () => {
    const list: Array<{ login: string; id: number; node_id: string }> = await get('/user/orgs');
    expect(list.length).toBeGreaterThan(0);
    for (const o of list) {
      expect(decoded(o.node_id)).toBe(`012:Organization${o.id}`);
      expect((await get(`/orgs/${o.login}`)).node_id).toBe(o.node_id);
    }
  });
});
