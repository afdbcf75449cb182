/** Opens URLs: LANYARD_BROWSER or BROWSER name a command; else the `open` package. */
import { spawn } from 'node:child_process';
import type { Browser } from '../core/deps.js';

export function createBrowser(env: NodeJS.ProcessEnv): Browser {
  return {
    async open(url) {
      const cmd = env.LANYARD_BROWSER || env.BROWSER;
      if (cmd) {
        return await new Promise<boolean>((resolve) => {
          // The URL is an argument, not shell text: no quoting problems.
          const child = spawn(cmd, [url], { stdio: 'ignore', detached: true, shell: false });
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
        const child = await open(url);
        child.once('error', () => undefined);
        return true;
      } catch {
        return false;
      }
    },
  };
}
