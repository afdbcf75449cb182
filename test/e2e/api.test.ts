/**
 * `lanyard api` end to end: one GET through the program, a full URL of
 * another configured service, and a foreign URL under --debug's trace (the
 * HTTP port the program builds). -i, fields, --input, pagination and the
 * mailbox's pagination are tested as run functions on the in-process emulator
 * (test/unit/cli/api/emulator.test.ts); usage errors and refusals on fakes
 * (test/unit/cli/api/behaviour.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorld, type World } from './harness.js';

describe('lanyard api', () => {
  let world: World;
  let token: string;
  let apiKey: string;
  beforeAll(async () => {
    world = await startWorld();
    const info = (await world.admin('info', undefined, 'GET')) as { hosting: { personalToken: string }; echo: { apiKeys: Array<{ key: string }> } };
    token = info.hosting.personalToken;
    apiKey = info.echo.apiKeys[0]!.key;
  });
  afterAll(() => world.stop());
  const run = (args: string[], env: Record<string, string> = {}, input?: string) =>
    world.run(['--profile', 'emulator', 'api', ...args], { env: { LANYARD_TOKEN: token, ...env }, input });

  it('GET a path of the hosting API with the token injected, JSON on stdout', async () => {
    const r = await run(['/user']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ login: 'mona' });
    expect(r.stdout + r.stderr).not.toContain(token);
  });

  it("a full URL of a configured service gets that service's credential; a foreign URL gets none", async () => {
    const echo = await world.run(['--profile', 'emulator', 'api', '-X', 'POST', `${world.url}/echo`, '-f', 'message=hi'], { env: { LANYARD_API_KEY: apiKey } });
    expect(echo.code, echo.stderr).toBe(0);
    expect(JSON.parse(echo.stdout)).toEqual({ message: 'hi' });
    const foreign = await run(['http://127.0.0.2:9/elsewhere'], { LANYARD_DEBUG: '1' });
    expect(foreign.stderr).toMatch(/without credentials/);
    expect(foreign.stderr).not.toMatch(/authorization:/i);
  });
});
