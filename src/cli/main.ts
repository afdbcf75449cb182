/** Entry point: builds the context, parses, runs, maps errors to exit codes. */
import { createProcessIO } from './io.js';
import type { Command } from 'commander';
import { type Context, createContext, type GlobalOptions } from './context.js';
import { buildProgram, commandWords, helpArgs, knownHelpTopic, optionSuggestion, subcommandWord, suggestionFor, treeScope } from './program.js';
import { exitCodeFor, formatError, owesErrorLine } from './errors/exit.js';
import { VERSION } from './version.js';
import { ExitCode } from '../shared/exit-codes.js';
import { Secrets } from './terminal/terminal-text.js';
import { exitQuietly } from './output/pager.js';
import type { KeychainOpening } from '../core/credentials/keychain-open.js';
import type { Preconnected } from '../core/http/transport.js';

/** What main ran (bin/lanyard.js keys its compile cache by it). */
export interface MainResult {
  /** The command group, when it was one. */
  group?: string;
  /** The word after the group, when it names one of the group's commands (or an alias: as typed). */
  sub?: string;
}

/** What bin/lanyard.js may hand over besides the arguments. */
export interface MainOptions {
  /** The keychain's opening, started before the CLI loaded (dist/keychain-prefetch.cjs). */
  keychain?: KeychainOpening;
  /** The API's connection, opened before the CLI loaded (dist/connection-prefetch.cjs). */
  preconnected?: Preconnected;
}

export async function main(argv: string[] = process.argv, options: MainOptions = {}): Promise<MainResult> {
  // A reader that went away (`lanyard … | head`) ends the command quietly, like other CLIs.
  // Every diagnostic line (errors, notices, --debug traces) goes through secrets.safe: no secret; controls shown in caret notation.
  const secrets = new Secrets();
  secrets.rememberEnv(process.env);
  // The root options, once the tree is built (before that, none: the IO and context ask for them at each use).
  let program: Command | undefined;
  const globals = (): GlobalOptions => program?.opts<GlobalOptions>() ?? {};
  // The context of the command that runs (made by its action after parsing): main waits for its pager.
  let run: Context | undefined;
  // A reader that went away ends the process with the status the run decided before writing, if it did (Context.exitWith).
  let root: Context | undefined;
  const io = createProcessIO(process.env, {
    onBrokenPipe: () => exitQuietly(root?.exitStatus()),
    safeErr: (text) => secrets.safe(text),
    noColor: () => globals().color === false,
  });
  const signals = watchSignals(() => !!run?.output.pagerRunning());
  // A copy: the browser helper takes secrets out of process.env for the moment it spawns (browser.ts).
  const ctx = (root = createContext({
    io,
    env: { ...process.env },
    signal: signals.signal,
    version: VERSION,
    cwd: process.cwd(),
    globals,
    secrets,
    onRun: (made) => (run = made),
    ...(options.keychain ? { keychain: options.keychain } : {}),
    ...(options.preconnected ? { preconnected: options.preconnected } : {}),
  }));
  let args = helpArgs(argv.slice(2));
  const scope = treeScope(args);
  program = buildProgram(ctx, scope);
  if (commandWords(argv.slice(2))[0] === 'help' || args.some((a) => a === '-h' || a === '--help')) args = knownHelpTopic(program, args);
  let code: number = ExitCode.Ok;
  try {
    await program.parseAsync([...argv.slice(0, 2), ...args]);
    if (signals.interrupted) code = ExitCode.Interrupted;
  } catch (err) {
    code = exitCodeFor(err);
    // Known now: a reader that goes away while main reports and closes (`| head`) does not turn it into 0.
    process.exitCode = code;
    reportFailure(io, err, code, ctx.debug, args, program);
  } finally {
    // Ended by SIGTERM rather than Ctrl-C: 143, as a shell would report it.
    if (signals.terminated && code === ExitCode.Interrupted) code = ExitCode.Terminated;
    await ctx.close();
    // The terminal goes back to the shell once the person has left the pager (Ctrl-C meanwhile is the pager's).
    process.exitCode = code;
    await run?.output.finish();
    signals.stop();
  }
  process.exitCode = code;
  if (typeof scope !== 'object') return {};
  const sub = subcommandWord(program, scope.group, args);
  return sub ? { group: scope.group, sub } : { group: scope.group };
}

/** The error's line on stderr when it owes one, and for an unknown command the nearest known one. */
function reportFailure(io: { err(text: string): void }, err: unknown, code: number, debug: boolean, args: string[], program: Command): void {
  if (owesErrorLine(err, code)) io.err(formatError(err, debug));
  const kind = (err as { code?: string })?.code;
  const guess =
    kind === 'commander.unknownCommand'
      ? suggestionFor(commandWords(args))
      : kind === 'commander.unknownOption'
        ? optionSuggestion(program, commandWords(args), /'([^']+)'/.exec((err as Error).message)?.[1] ?? '')
        : undefined;
  if (guess) io.err(`Did you mean ${guess}?`);
}

/** Ctrl-C and SIGTERM while main runs: the first aborts the run, a second one forces the exit. */
interface SignalWatch {
  readonly signal: AbortSignal;
  readonly interrupted: boolean;
  readonly terminated: boolean;
  stop(): void;
}

/** `pagerRunning`: whether a pager has the terminal (then a second Ctrl-C is the pager's). */
function watchSignals(pagerRunning: () => boolean): SignalWatch {
  const ac = new AbortController();
  let firstSignalAt = 0;
  const watch = {
    signal: ac.signal,
    interrupted: false,
    terminated: false,
    stop() {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      // conf's atomic writer (when-exit) answers a signal by raising it again on
      // this process. Should that arrive after the command has ended, it would
      // kill the process by the signal and lose the exit status (`emulator
      // start` ends with 0 on SIGTERM): one more of each is swallowed.
      if (watch.interrupted) for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => undefined);
    },
  };
  function onSignal(signal?: NodeJS.Signals): void {
    // A second Ctrl-C forces the exit. A repeat within 300 ms is not a person's:
    // conf's atomic writer (when-exit) re-raises every signal on this process.
    if (watch.interrupted) {
      // While a pager shows the output, it has the terminal: Lanyard waits for it to end (Output.finish).
      if (performance.now() - firstSignalAt < 300 || pagerRunning()) return;
      process.exit(watch.terminated ? ExitCode.Terminated : ExitCode.Interrupted);
    }
    watch.interrupted = true;
    watch.terminated = signal === 'SIGTERM';
    firstSignalAt = performance.now();
    ac.abort();
  }
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return watch;
}
