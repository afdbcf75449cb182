/**
 * `lanyard protocol request` calls the protocol emulator's resources and
 * prompts at every revision it speaks, as a run function against the
 * in-process emulator (formerly spawned end to end, test/e2e/
 * protocol-content.test.ts): resources/list, resources/templates/list,
 * resources/read (at 2026-07-28 with the URI in Mcp-Name), prompts/list and
 * prompts/get with arguments, and a server error (-32002 for an unknown
 * resource) as exit 1 with one line.
 */
import { describe, expect, it } from 'vitest';
import { runProtocolRequest } from '../../../../src/cli/commands/protocol/request.js';
import type { Stats } from '../../../../src/emulator/services/protocol/state.js';
import { useEmulatorCommands } from '../on-emulator.js';

const on = useEmulatorCommands();

describe('protocol request: resources and prompts', () => {
  for (const revision of ['2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28'] as const) {
    it(`${revision}: lists, reads and gets`, async () => {
      await on.emu.admin('protocol', 'configure', { revision, open: true });
      const call = (method: string, params?: unknown) =>
        on.run((c) => runProtocolRequest(c, `${on.emu.url}/mcp`, { method, ...(params ? { params: JSON.stringify(params) } : {}) }), { format: 'json' });
      const result = async (method: string, params?: unknown) => {
        const r = await call(method, params);
        expect(r.code, `${method}: ${r.stderr}`).toBe(0);
        return JSON.parse(r.stdout).result;
      };
      expect((await result('resources/list')).resources.map((r: { name: string }) => r.name)).toEqual(['readme', 'notes', 'pixel']);
      expect((await result('resources/templates/list')).resourceTemplates[0].uriTemplate).toBe('emulator://users/{login}');
      const read = await result('resources/read', { uri: 'emulator://users/grace' });
      expect(JSON.parse(read.contents[0].text)).toEqual({ login: 'grace', name: 'Grace Hopper' });
      const prompts = await result('prompts/list');
      expect(prompts.prompts.map((p: { name: string; title?: string }) => [p.name, p.title])).toEqual(
        revision === '2025-03-26'
          ? [
              ['greeting', undefined],
              ['summarize', undefined],
            ]
          : [
              ['greeting', 'Greeting'],
              ['summarize', 'Summarize a resource'],
            ],
      );
      const got = await result('prompts/get', { name: 'summarize', arguments: { uri: 'emulator://notes/today' } });
      expect(got.messages[1].content.resource).toMatchObject({ uri: 'emulator://notes/today', mimeType: 'text/plain' });
      const missing = await call('resources/read', { uri: 'emulator://users/nobody' });
      expect(missing.code).toBe(1);
      const code = revision === '2026-07-28' ? -32602 : -32002;
      expect(missing.stderr).toMatch(new RegExp(`resources/read failed: server error ${code}: Resource not found`));
      expect(missing.stderr.trim().split('\n')).toHaveLength(1);
      if (revision === '2026-07-28') {
        const s = (await on.emu.admin('protocol', 'stats')) as Stats;
        expect(s.mcpRequests.filter((m) => m.method === 'resources/read').map((m) => m.status)).toEqual([200, 200]);
      }
    });
  }
});
