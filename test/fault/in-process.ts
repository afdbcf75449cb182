/** The fault suite's in-process runs: a command through the same parse → run → error line path as main.ts, without a process per case. */
import { createContext, type GlobalOptions } from '../../src/cli/context.js';
import { exitCodeFor, formatError, owesErrorLine } from '../../src/cli/errors/exit.js';
import type { IO } from '../../src/cli/io.js';
import { buildProgram } from '../../src/cli/program.js';

/** The environment of an in-process run: no keychain, browser or prompt; a credential for every service. */
export function inProcessEnv(configDir: string): Record<string, string> {
  return {
    LANYARD_CONFIG_DIR: configDir,
    LANYARD_KEYCHAIN: 'off',
    LANYARD_BROWSER: 'true',
    LANYARD_PROMPT_DISABLED: '1',
    NO_COLOR: '1',
    LANYARD_TOKEN: 'fuzz-hosting-token-0001',
    LANYARD_HEALTH_TOKEN: 'fuzz-health-token-0001',
    LANYARD_API_KEY: 'fuzz-echo-key-0001',
  };
}

/**
 * Runs argv as main.ts does (parse, run, map the error to an exit code and
 * its line on `io.err`), in this process: a thousand cases take seconds. A
 * run still going after `timeoutMs` is interrupted (exit 130).
 */
export async function runInProcess(argv: string[], io: IO, env: Record<string, string>, timeoutMs: number): Promise<number> {
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(), timeoutMs);
  let globals: () => GlobalOptions = () => ({});
  const ctx = createContext({ io, env, signal: ac.signal, version: '0.0.0', globals: () => globals() });
  const program = buildProgram(ctx, 'full');
  globals = () => program.opts<GlobalOptions>();
  let code = 0;
  try {
    await program.parseAsync(['node', 'lanyard', ...argv]);
  } catch (err) {
    code = exitCodeFor(err);
    if (owesErrorLine(err, code)) io.err(formatError(err, false));
  } finally {
    clearTimeout(timer);
    await ctx.close();
  }
  return code;
}
