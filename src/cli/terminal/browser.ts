/**
 * Opens URLs: LANYARD_BROWSER or BROWSER name a command; else the `open`
 * package (xdg-open, open, start). `open`'s `true` only says the opener
 * started, not that a page appeared: callers word it so; `openChecked` waits
 * (bounded) for the opener's exit status. `false` when nothing could be
 * started, and at once in an ssh session with no display (nothing to open on).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import type { Browser } from '../../core/deps.js';
import { remoteWithoutDisplay } from './interactive.js';
import { scrubbedEnv } from './terminal-text.js';

/**
 * The browser gets no secret: it runs with the environment minus every secret
 * variable (a browser, its extensions and crash reporters have no business
 * with LANYARD_TOKEN or LANYARD_CLIENT_SECRET).
 */
export function createBrowser(env: NodeJS.ProcessEnv): CheckedBrowser {
  return {
    open: async (url) => (await launch(env, url)) !== undefined,
    async openChecked(url, waitMs) {
      const child = await launch(env, url);
      if (!child) return 'failed';
      const code = await exitWithin(child, waitMs);
      return code === undefined ? 'started' : code === 0 ? 'opened' : 'failed';
    },
  };
}

/** How handing a URL to the opener ended, as far as `waitMs` tells. */
export type OpenOutcome = 'opened' | 'failed' | 'started';

export interface CheckedBrowser extends Browser {
  /**
   * Opens `url` and waits up to `waitMs` for the opener to end: `opened` when
   * it exited 0 (xdg-open, open or a script handed the URL to a browser),
   * `failed` when it could not start or exited otherwise (no browser for it;
   * xdg-open's 3 and 4), `started` when it still runs at the bound (a browser
   * named by LANYARD_BROWSER or BROWSER itself, or an opener that waits for
   * the browser): not known.
   */
  openChecked(url: string, waitMs: number): Promise<OpenOutcome>;
}

/** The exit code of `child` within `waitMs`, or undefined (still running; an error event counts as 1). */
function exitWithin(child: ChildProcess, waitMs: number): Promise<number | undefined> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(undefined), waitMs);
    const done = (code: number | null) => {
      clearTimeout(timer);
      resolve(code ?? 1);
    };
    child.once('exit', done);
    child.once('error', () => done(1));
  });
}

/** Starts the opener for `url` (nothing over ssh with no display): the process, or undefined when none could be started. */
async function launch(env: NodeJS.ProcessEnv, url: string): Promise<ChildProcess | undefined> {
  if (remoteWithoutDisplay(env)) return undefined;
  const cmd = env.LANYARD_BROWSER || env.BROWSER;
  if (cmd) {
    return await new Promise<ChildProcess | undefined>((resolve) => {
      // The URL is an argument, not shell text: no quoting problems.
      const child = spawn(cmd, [url], { stdio: 'ignore', detached: true, shell: false, env: scrubbedEnv(env) });
      child.once('error', () => resolve(undefined));
      child.once('spawn', () => {
        child.unref();
        resolve(child);
      });
    });
  }
  try {
    const mod = await import('open');
    // In dist/cli.cjs this import() is a require() of an ES module, and
    // the bundler's interop puts the whole namespace on `default`.
    const open = typeof mod.default === 'function' ? mod.default : (mod.default as unknown as typeof mod).default;
    // `open` spawns with process.env and takes no environment: the secrets are
    // taken out of process.env for the call and put back after (the CLI reads its
    // environment from the context's copy, never from process.env).
    const child = await withoutSecretsInProcessEnv(() => open(url));
    child.once('error', () => undefined);
    // No process id: the opener could not be started (xdg-open missing); the error event follows.
    return child.pid !== undefined ? child : undefined;
  } catch {
    return undefined;
  }
}

async function withoutSecretsInProcessEnv<T>(f: () => Promise<T>): Promise<T> {
  const keep = scrubbedEnv(process.env);
  const removed = Object.entries(process.env).filter(([k]) => !(k in keep));
  for (const [k] of removed) delete process.env[k];
  try {
    return await f();
  } finally {
    for (const [k, v] of removed) process.env[k] = v;
  }
}
