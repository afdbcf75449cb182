/**
 * Opens URLs: LANYARD_BROWSER or BROWSER name a command; else the `open`
 * package (xdg-open, open, start). `true` only says the opener started, not
 * that a page appeared: callers word it so. `false` when nothing could be
 * started, and at once in an ssh session with no display (nothing to open on).
 */
import { spawn } from 'node:child_process';
import type { Browser } from '../../core/deps.js';
import { remoteWithoutDisplay } from './interactive.js';
import { scrubbedEnv } from './terminal-text.js';

/**
 * The browser gets no secret: it runs with the environment minus every secret
 * variable (a browser, its extensions and crash reporters have no business
 * with LANYARD_TOKEN or LANYARD_CLIENT_SECRET).
 */
export function createBrowser(env: NodeJS.ProcessEnv): Browser {
  return {
    async open(url) {
      if (remoteWithoutDisplay(env)) return false;
      const cmd = env.LANYARD_BROWSER || env.BROWSER;
      if (cmd) {
        return await new Promise<boolean>((resolve) => {
          // The URL is an argument, not shell text: no quoting problems.
          const child = spawn(cmd, [url], { stdio: 'ignore', detached: true, shell: false, env: scrubbedEnv(env) });
          child.once('error', () => resolve(false));
          child.once('spawn', () => {
            child.unref();
            resolve(true);
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
        return child.pid !== undefined;
      } catch {
        return false;
      }
    },
  };
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
