/**
 * What a CI gate remembers between runs (`health events --new`, `mailbox list
 * --new`): small JSON files per profile in the user's state directory —
 * LANYARD_STATE_DIR, else $XDG_STATE_HOME/lanyard, else the platform's
 * (~/.local/state/lanyard on Linux, the application-data directory on macOS
 * and Windows). Written atomically (a temporary sibling renamed into place).
 */
import { join } from 'node:path';
import { makeDir } from '../shared/make-dir.js';
import type { Context } from './context.js';
import { ConfigError } from '../core/errors.js';

export async function stateDir(env: NodeJS.ProcessEnv): Promise<string> {
  if (env.LANYARD_STATE_DIR) return env.LANYARD_STATE_DIR;
  if (env.XDG_STATE_HOME) return join(env.XDG_STATE_HOME, 'lanyard');
  const { default: envPaths } = await import('env-paths');
  const paths = envPaths('lanyard', { suffix: '' });
  // env-paths' "log" is $XDG_STATE_HOME/lanyard (~/.local/state/lanyard) on Linux.
  return process.platform === 'linux' ? paths.log : paths.data;
}

/** A file name for a gate's state: the gate and its scope, readable and safe. */
function fileName(gate: string, scope: readonly string[]): string {
  return `${[gate, ...scope].map((p) => p.replace(/[^A-Za-z0-9._-]+/g, '_')).join('--')}.json`;
}

export interface SeenState {
  /** The keys seen by the previous run, or undefined on the first run. */
  previous: ReadonlySet<string> | undefined;
  /** Records what this run saw (replacing the previous run's set). */
  save(seen: Iterable<string>): Promise<void>;
  path: string;
}

/** The set of keys the previous run of a gate saw, for this profile and scope. */
export async function seenState(ctx: Context, gate: string, scope: readonly string[]): Promise<SeenState> {
  const [{ access, constants, readFile, rename, writeFile }, { randomBytes }] = await Promise.all([import('node:fs/promises'), import('node:crypto')]);
  const dir = join(await stateDir(ctx.env), 'profiles', (await ctx.profileName()).replace(/[^A-Za-z0-9._-]+/g, '_'));
  const path = join(dir, fileName(gate, scope));
  const unusable = (err: unknown) =>
    new ConfigError(
      `cannot keep what --new has seen in ${dir} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); set LANYARD_STATE_DIR to a writable directory`,
    );
  // Before anything is listed: a gate that prints every item and then cannot
  // save would print (alert) them all again on the next run.
  try {
    makeDir(dir, 0o700);
    await access(dir, constants.W_OK);
  } catch (err) {
    throw unusable(err);
  }
  let previous: Set<string> | undefined;
  try {
    const data = JSON.parse(await readFile(path, 'utf8')) as { seen?: unknown };
    if (Array.isArray(data.seen)) previous = new Set(data.seen.map(String));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') ctx.warn(`${path} is unreadable (${(err as Error).message}); every item counts as new`);
  }
  return {
    previous,
    path,
    async save(seen) {
      const tmp = `${path}.${randomBytes(4).toString('hex')}.tmp`;
      try {
        await writeFile(tmp, `${JSON.stringify({ gate, scope, savedAt: new Date(ctx.clock.now()).toISOString(), seen: [...seen] })}\n`, { mode: 0o600 });
        await rename(tmp, path);
      } catch (err) {
        throw unusable(err);
      }
    },
  };
}
