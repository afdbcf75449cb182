/**
 * What every command declaration shares: the `--json`/`--ndjson` options, the
 * action that makes the run's context with the Output they choose (`runs`)
 * and the "Examples:" block. Command modules import this, never program.ts.
 */
import { InvalidArgumentError, type Command } from 'commander';
import type { Context } from './context.js';
import { Output, type OutputFormat } from './output/output.js';
import { exitQuietly, isPaged, type Paging, startPager } from './output/pager.js';
import type { IO } from './io.js';
import { UsageError } from './errors/usage-error.js';
import { EXIT_MEANINGS, type ExitCode } from '../shared/exit-codes.js';

/** Adds the shared `--json` option (and `--ndjson` for streams) to a command, with `--jq` and `--template`. */
export function withJson(cmd: Command, opts: { ndjson?: boolean } = {}): Command {
  cmd.option('--json', 'print JSON for scripts');
  if (opts.ndjson) cmd.option('--ndjson', 'print one JSON object per line as items arrive');
  return withShaping(cmd, opts);
}

/**
 * `--jq` and `--template` (src/cli/shape/), for a command that prints JSON;
 * commandOutput sets them up before the run function runs.
 */
export function withShaping(cmd: Command, opts: { ndjson?: boolean } = {}): Command {
  const each = opts.ndjson ? ' (with --ndjson: to each item)' : '';
  cmd.option('-q, --jq <expression>', `filter the JSON with a jq expression${each}; strings print raw`);
  cmd.option('-t, --template <text>', `format the JSON with a Liquid template${each} (see docs/scripts-and-ci.md)`);
  return cmd;
}

/** The output options withJson and withShaping declare. */
export interface OutputOptions {
  json?: boolean;
  ndjson?: boolean;
  jq?: string;
  template?: string;
}

/**
 * A command's action: `run` gets the context of this run — made after
 * parsing, a new context (`ctx.forRun`) whose IO and Output are the ones the
 * command's `--json`, `--ndjson`, `--jq`, `--template` and the pager chose
 * (commandOutput) — then the action's arguments. Nothing is written into the
 * root context or its IO. Every action of the tree is declared through it.
 */
export function runs<A extends unknown[]>(ctx: Context, run: (ctx: Context, ...args: A) => unknown): (this: Command, ...args: A) => Promise<void> {
  return async function (this: Command, ...args: A) {
    await run(ctx.forRun(await commandOutput(ctx, this)), ...args);
  };
}

/**
 * The IO and Output of the command about to run (`action`), from its
 * `--json`, `--ndjson`, `--jq`, `--template` and, for a `paged()` command,
 * the pager (whose IO decorates the context's). `--jq` / `--template` imply
 * `--json` (a bad expression is exit 2 before any request).
 */
export async function commandOutput(ctx: Context, action: Command): Promise<{ io: IO; output: Output }> {
  const o = action.opts<OutputOptions>();
  if (o.json && o.ndjson) throw new UsageError('--json and --ndjson cannot be used together');
  const shaper = o.jq === undefined && o.template === undefined ? undefined : await (await import('./shape/prepare.js')).prepareShaping(ctx, o);
  // --jq/--template imply --json; the Output says so (nothing is written back into the command's options).
  const json = o.json || (shaper !== undefined && !o.ndjson && action.options.some((opt) => opt.long === '--json'));
  const format: OutputFormat = o.ndjson ? 'ndjson' : json ? 'json' : 'human';
  const paging = format === 'human' && !shaper && isPaged(action) ? await startCommandPager(ctx) : undefined;
  const io = paging?.io ?? ctx.io;
  return { io, output: new Output(io, { format, shaper, pager: paging?.pager }) };
}

/** The pager of a `paged()` command printing for a person: the pager setting of the profile, and the process's ends. */
async function startCommandPager(ctx: Context): Promise<Paging | undefined> {
  if (!ctx.io.stdoutIsTTY) return undefined;
  // A profile that does not exist is the command's error to report, not the pager's.
  const setting = (await ctx.profile().catch(() => undefined))?.settings.pager;
  return startPager({ io: ctx.io, env: ctx.env, setting, onGone: () => exitQuietly(ctx.exitStatus()), warn: (t) => ctx.warn(t) });
}

/**
 * One line of a command's "Exit status:" block: a code, with the README's
 * meaning of it (EXIT_MEANINGS); or a code and what it means for this
 * command in particular, after that meaning; or `other` and what it is.
 */
export type ExitLine = ExitCode | readonly [ExitCode | 'other', string];

/** Reads and writes only local files (or the local emulator): any failure is 1, bad input 2. */
export const LOCAL_EXITS: readonly ExitLine[] = [0, 1, 2, 130, 143];
/** Calls a service that takes no credential (a 429/503 with Retry-After beyond the wait allowed: 3). */
export const SERVICE_EXITS: readonly ExitLine[] = [0, 1, 2, 3, 130, 143];
/** Calls a service with a credential, or signs in. */
export const SIGNED_IN_EXITS: readonly ExitLine[] = [0, 1, 2, 3, 4, 130, 143];
/** The root: every code (the README's table). */
export const ROOT_EXITS: readonly ExitLine[] = [0, 1, 2, 3, 4, 5, 130, 143];
/** A group: bare, it prints its help (0); an unknown subcommand is 2. */
export const GROUP_EXITS: readonly ExitLine[] = [
  [0, 'help printed (a command of the group has its own exit statuses)'],
  [2, 'unknown command'],
];

/** The "Exit status:" block of a command's help. */
export function exitStatusHelp(exits: readonly ExitLine[]): string {
  const rows = exits.map((e) => {
    const [code, own] = typeof e === 'number' ? [e, undefined] : e;
    const meaning = code === 'other' ? own : own ? `${EXIT_MEANINGS[code]}: ${own}` : EXIT_MEANINGS[code];
    // Two spaces at least after the code (`other` included): a long row goes on under its text (output/help-wrap.ts).
    return `  ${String(code).padEnd(5)}  ${meaning}`;
  });
  return `\nExit status:\n${rows.join('\n')}\n`;
}

/**
 * Appends an "Examples:" block and the "Exit status:" block to a command's
 * help: the exit statuses it can end with, declared beside it. Both are made
 * only when help is shown (nothing is rendered for a command that runs).
 */
export function examples(cmd: Command, lines: string[], exits: readonly ExitLine[]): Command {
  cmd.addHelpText('after', () => `\nExamples:\n${lines.map((l) => `  $ ${l}`).join('\n')}\n${exitStatusHelp(exits)}`);
  return cmd;
}

/** Declares one subcommand of a group (`auth login`, `mailbox list`, …) on it. */
export type DeclareSubcommand = (group: Command, ctx: Context) => void;

/** A group of subcommands: each declared by its own function, in help order, then the group's "Examples:" block. */
export function commandGroup(group: Command, ctx: Context, subcommands: readonly DeclareSubcommand[], lines: string[]): Command {
  for (const declare of subcommands) declare(group, ctx);
  return examples(group, lines, GROUP_EXITS);
}

/**
 * How Lanyard identifies itself to a protocol server's authorization server,
 * beyond `--client-id` and `--client-credentials`: declared alike on
 * `protocol request` and `auth login --server`.
 */
export function withProtocolClientOptions(cmd: Command): Command {
  return cmd
    .option('--client-key <file>', 'PEM private key of the --client-id client (private_key_jwt client authentication)')
    .option('--client-metadata-url <url>', "HTTPS URL of Lanyard's client ID metadata document, used where the server accepts one")
    .option('--idp-token-endpoint <url>', "cross-app access: your identity provider's token endpoint (ID token from LANYARD_ID_TOKEN or stdin)")
    .option('--idp-client-id <id>', 'cross-app access: the client id at your identity provider')
    .option(
      '--workload-token-file <file>',
      "workload identity: a file holding the platform's JWT for the authorization server (JWT-bearer grant, with --client-id; or LANYARD_WORKLOAD_TOKEN)",
    )
    .option(
      '--dpop',
      'ask for DPoP-bound tokens (RFC 9449) always (default: when the authorization server advertises DPoP and the server takes DPoP tokens; LANYARD_DPOP=1|0)',
    )
    .option('--no-dpop', 'never ask for DPoP-bound tokens')
    .option('--resource <url>', "identity providers that deviate: send this RFC 8707 resource instead of the server's")
    .option('--no-resource', 'identity providers that deviate: send no resource parameter')
    .option('--auth-param <name=value>', 'identity providers that deviate: add this parameter to the authorization request (repeatable)', collectParam, {})
    .option('--authorization-endpoint <url>', 'identity providers that deviate: use this authorization endpoint instead of the discovered one')
    .option('--token-endpoint <url>', 'identity providers that deviate: use this token endpoint instead of the discovered one');
}

/** `--auth-param name=value`, repeatable, into one record. */
function collectParam(v: string, prev: Record<string, string>): Record<string, string> {
  const i = v.indexOf('=');
  if (i < 1) throw new InvalidArgumentError('expected name=value');
  return { ...prev, [v.slice(0, i)]: v.slice(i + 1) };
}
