/**
 * The examples of the "Scripts and CI" page (docs/scripts-and-ci.md) run:
 * every line of its ```sh blocks, in bash, against the emulator, with
 * `lanyard` on PATH.
 * A line ending in `# exit N` must exit N; every other line must exit 0.
 */
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cleanEnv, ROOT, startWorld, type World } from './harness.js';

/** The shell lines of the ```sh blocks of a page's `# ` or `## ` section, with their sub-heading. */
export async function sectionExamples(page: string, title: string): Promise<Array<{ heading: string; line: string }>> {
  const doc = `\n${await readFile(join(ROOT, page), 'utf8')}`;
  const found = [`\n# ${title}\n`, `\n## ${title}\n`].map((h) => doc.indexOf(h)).find((i) => i >= 0);
  if (found === undefined) throw new Error(`${page} has no "${title}" section`);
  const start = found + 1;
  const end = doc.indexOf('\n## ', start + 4);
  const text = doc.slice(start, end < 0 ? undefined : end);
  const out: Array<{ heading: string; line: string }> = [];
  let heading = title;
  let inBlock = false;
  for (const l of text.split('\n')) {
    if (!inBlock && l.startsWith('### ')) heading = l.slice(4);
    if (l.startsWith('```')) inBlock = l === '```sh';
    else if (inBlock && l.trim() && !l.trim().startsWith('#')) out.push({ heading, line: l });
  }
  return out;
}

describe('docs/scripts-and-ci.md examples', () => {
  let world: World;
  let bin: string;
  let env: Record<string, string>;
  beforeAll(async () => {
    world = await startWorld();
    const info = (await world.admin('info', undefined, 'GET')) as { hosting: { personalToken: string }; health: { token: string } };
    const token = info.hosting.personalToken;
    bin = await mkdtemp(join(tmpdir(), 'lanyard-readme-'));
    await writeFile(join(bin, 'lanyard'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
    await chmod(join(bin, 'lanyard'), 0o755);
    env = cleanEnv({
      ...world.env,
      LANYARD_PROFILE: 'emulator',
      LANYARD_TOKEN: token,
      LANYARD_HEALTH_TOKEN: info.health.token,
      LANYARD_STATE_DIR: join(bin, 'state'),
      PATH: `${bin}:${process.env.PATH}`,
      HOME: bin,
    });
  });
  afterAll(async () => {
    await world.stop();
    await rm(bin, { recursive: true, force: true });
  });

  it('every example line runs', async () => {
    const lines = await sectionExamples('docs/scripts-and-ci.md', 'Scripts and CI');
    expect(lines.length).toBeGreaterThan(5);
    for (const { heading, line } of lines) {
      const want = Number(/# exit (\d+)\s*$/.exec(line)?.[1] ?? 0);
      const r = spawnSync('bash', ['-c', `set -o pipefail; ${line}`], { env, cwd: bin, encoding: 'utf8', timeout: 30_000 });
      expect(r.status, `${heading}: $ ${line}\n${r.stderr}`).toBe(want);
    }
  });
});
