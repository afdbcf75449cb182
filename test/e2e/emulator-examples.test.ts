/**
 * The runnable examples of docs/emulator.md (docs/emulator-examples/*.mjs):
 * each imports `lanyard-cli/emulator` (the built package, `npm run build`),
 * drives an independent client against it and must exit 0 with its output.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './harness.js';

function example(name: string, env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [join(ROOT, 'docs', 'emulator-examples', name)], { env: { ...process.env, ...env }, timeout: 60_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('docs/emulator-examples', () => {
  it('octokit.mjs', async () => {
    const r = await example('octokit.mjs');
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(r.stdout).toBe(
      'signed in as mona; scopes: repo, read:org, gist\nissue #1 made by a mutation; REST lists: Hello from GraphQL\ndevice flow token acts for mona\n',
    );
  });
  it('azure-sdk.mjs', async () => {
    const r = await example('azure-sdk.mjs');
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(r.stdout).toMatch(/^\d+ events in the last 3 days\n\S+: (ACTIVE|RESOLVED): /);
  });
  it('protocol-sdk.mjs', async () => {
    const r = await example('protocol-sdk.mjs');
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(r.stdout).toBe('tools: echo, time, confirm\necho: hello\n');
  });
  it('gh.mjs (port 443 of a spare loopback address)', async () => {
    const r = await example('gh.mjs', {
      EMULATOR_HOST: `127.${2 + Math.floor(Math.random() * 200)}.${Math.floor(Math.random() * 250)}.${3 + Math.floor(Math.random() * 250)}`,
    });
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(r.stdout).toBe('mona\n#1 Filed by a script: OPEN, 1 comment\n');
  });
});
