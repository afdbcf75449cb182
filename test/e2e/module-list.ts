/**
 * Which of Node's built-in modules a CLI run loads: Node records every load
 * in process.moduleLoadList, and a module preloaded with --import prints that
 * list at exit (test/e2e/startup.test.ts, startup-commands.test.ts).
 */
import { spawnSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { BIN } from './harness.js';

/** Writes the preload module into `dir`; returns its path. */
export async function writeModuleListPreload(dir: string): Promise<string> {
  const preload = join(dir, 'print-loaded.mjs');
  await writeFile(
    preload,
    "import { writeSync } from 'node:fs';\n" +
      "process.on('exit', () => writeSync(2, '\\nLOADED ' + JSON.stringify(process.moduleLoadList.filter((m) => m.startsWith('NativeModule ')).map((m) => m.slice(13))) + '\\n'));\n",
  );
  return preload;
}

/** Runs the CLI with `args` under the preload (stdout a pipe, or /dev/null with `ignore`); its exit status, output and the built-in modules it loaded. */
export function loadedModules(
  preload: string,
  args: string[],
  env: Record<string, string>,
  stdout: 'pipe' | 'ignore' = 'pipe',
): { status: number | null; stdout: string; stderr: string; modules: string[] } {
  const r = spawnSync(process.execPath, ['--import', pathToFileURL(preload).href, BIN, ...args], { env, encoding: 'utf8', stdio: ['pipe', stdout, 'pipe'] });
  const m = /\nLOADED (\[.*\])\n/.exec(r.stderr);
  if (!m) throw new Error(`no module list: ${r.stderr}`);
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, modules: JSON.parse(m[1]!) as string[] };
}
