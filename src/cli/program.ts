/**
 * The commander tree. Group modules only declare commands; each action
 * imports its run module lazily, so start-up loads almost nothing.
 */
import { Command } from 'commander';
import type { Context } from './context.js';
import { VERSION } from './version.js';
import { environmentHelp } from './environment.js';
import { examples, ROOT_EXITS } from './command-kit.js';
import { ROOT_OPTIONS } from './root-options.js';
import * as config from './commands/config/index.js';
import * as profile from './commands/profile/index.js';
import * as ratelimit from './commands/ratelimit/index.js';
import * as emulator from './commands/emulator/index.js';
import * as auth from './commands/auth/index.js';
import * as echo from './commands/echo/index.js';
import * as protocol from './commands/protocol/index.js';
import * as mailbox from './commands/mailbox/index.js';
import * as health from './commands/health/index.js';
import * as api from './commands/api/index.js';
import * as exec from './commands/exec/index.js';
import * as completion from './commands/completion/index.js';
import * as doctor from './commands/doctor/index.js';
import { NETWORK_HELP } from './ports/network-help.js';
import { wrapHelp } from './output/help-wrap.js';

interface Group {
  name: string;
  /** Its line in the root help: one line at 80 columns (test/unit/cli/program.test.ts). */
  summary: string;
  declare: (ctx: Context) => Command;
  /** A single command (arguments and options show in the root help), not a group of subcommands. */
  leaf?: boolean;
}

/** The top-level command groups, in help order. */
const GROUPS: readonly Group[] = [
  { name: 'auth', summary: auth.summary, declare: auth.authCommand },
  { name: 'ratelimit', summary: ratelimit.summary, declare: ratelimit.ratelimitCommand },
  { name: 'api', summary: api.summary, declare: api.apiCommand, leaf: true },
  { name: 'exec', summary: exec.summary, declare: exec.execCommand, leaf: true },
  { name: 'echo', summary: echo.summary, declare: echo.echoCommand },
  { name: 'protocol', summary: protocol.summary, declare: protocol.protocolCommand },
  { name: 'mailbox', summary: mailbox.summary, declare: mailbox.mailboxCommand },
  { name: 'health', summary: health.summary, declare: health.healthCommand },
  { name: 'config', summary: config.summary, declare: config.configCommand },
  { name: 'profile', summary: profile.summary, declare: profile.profileCommand },
  { name: 'doctor', summary: doctor.summary, declare: doctor.doctorCommand, leaf: true },
  { name: 'emulator', summary: emulator.summary, declare: emulator.emulatorCommand },
  { name: 'completion', summary: completion.summary, declare: completion.completionCommand, leaf: true },
];

/** Root options that take a value (the word after them is not a command), and the other root options. */
export const VALUE_OPTIONS: ReadonlySet<string> = new Set(['-p', '--profile', '--max-wait', '--timeout']);
const ROOT_FLAGS = /^(--profile=.*|-p.+|--max-wait=.*|--timeout=.*|--debug|--wait|--basic-client|--no-color|-h|--help|-V|--version)$/;

/**
 * How much of the tree `args` (argv without node and the script) needs, when
 * it can be told without parsing: `{ group }` - only root options, then a
 * group's name: that group alone; `shallow` - no command word at all
 * (`lanyard --help`, `lanyard`): every group by name and summary, as the root
 * help shows them; `full` for the rest (`help <cmd>`, `completion` and its
 * hidden helper, typos, unusual options) - the whole tree.
 */
export type TreeScope = { group: string } | 'shallow' | 'full';

export function treeScope(args: readonly string[]): TreeScope {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (VALUE_OPTIONS.has(a)) {
      i++;
      continue;
    }
    if (a.startsWith('-')) {
      if (a === '--' || !ROOT_FLAGS.test(a)) return 'full';
      continue;
    }
    return a !== 'completion' && GROUPS.some((g) => g.name === a) ? { group: a } : 'full';
  }
  return 'shallow';
}

/** The command of `parent` that `word` names (its name or an alias). */
function subcommand(parent: Command, word: string): Command | undefined {
  return parent.commands.find((c) => c.name() === word || c.aliases().includes(word));
}

/** Whether `cmd` itself declares the option `flag` (its long or short form). */
function declares(cmd: Command, flag: string): boolean {
  return cmd.options.some((o) => o.long === flag || o.short === flag);
}

/**
 * The word right after `group` in `args` (`status` in `lanyard -p ci auth
 * status`) when it names one of the group's commands or aliases in `program`:
 * bin/lanyard.js keeps a compile cache per command under it.
 */
export function subcommandWord(program: Command, group: string, args: readonly string[]): string | undefined {
  const at = args.findIndex((a, i) => a === group && !VALUE_OPTIONS.has(args[i - 1] ?? ''));
  const word = at < 0 ? undefined : args[at + 1];
  const parent = program.commands.find((c) => c.name() === group);
  return word !== undefined && parent && subcommand(parent, word) ? word : undefined;
}

/** Guesses people type, and the command they are after (shown after "unknown command"). */
const GUESSES: Readonly<Record<string, string>> = {
  login: '`lanyard auth device` (or `lanyard auth login` for the web flow)',
  signin: '`lanyard auth device`',
  'sign-in': '`lanyard auth device`',
  logout: '`lanyard auth logout`',
  signout: '`lanyard auth logout`',
  whoami: '`lanyard auth status`',
  status: '`lanyard auth status` (or `lanyard ratelimit status`)',
  token: '`lanyard auth token`',
  'mailbox rm': '`lanyard mailbox delete`',
  'mailbox del': '`lanyard mailbox delete`',
  'mailbox remove': '`lanyard mailbox delete`',
  'mailbox ls': '`lanyard mailbox list`',
  'mailbox show': '`lanyard mailbox get`',
  'mailbox read': '`lanyard mailbox get`',
  'mailbox send': '`lanyard mailbox store`',
  'auth list': '`lanyard auth status`',
  'auth whoami': '`lanyard auth status`',
  'profile ls': '`lanyard profile list`',
  'health list': '`lanyard health events`',
  'ratelimit show': '`lanyard ratelimit status`',
};

/** The command someone who typed `words` (the command words, root options dropped) probably meant. */
export function suggestionFor(words: readonly string[]): string | undefined {
  for (let n = Math.min(2, words.length); n >= 1; n--) {
    const hit = GUESSES[words.slice(0, n).join(' ')];
    if (hit) return hit;
  }
  return undefined;
}

/**
 * For an option given to a group that one of its commands takes (`lanyard
 * auth --with-token`): those commands with it (`lanyard auth token
 * --with-token`), at most three; undefined when none or when `words` do not
 * name a group of `program`.
 */
export function optionSuggestion(program: Command, words: readonly string[], option: string): string | undefined {
  let group: Command | undefined = program;
  for (const word of words) group = group && subcommand(group, word);
  if (!group || group === program || group.commands.length === 0) return undefined;
  const flag = option.split('=')[0]!;
  const path = ['lanyard', ...words].join(' ');
  const takers = group.commands.filter((c) => declares(c, flag)).map((c) => `\`${path} ${c.name()} ${flag}\``);
  return takers.length > 0 && takers.length <= 3 ? takers.join(' or ') : undefined;
}

/** The words of `args` that are not root options (and their values). */
export function commandWords(args: readonly string[]): string[] {
  const words: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (VALUE_OPTIONS.has(a)) i++;
    else if (a === '--') break;
    else if (!a.startsWith('-')) words.push(a);
  }
  return words;
}

/**
 * Help requests commander does not answer the way people expect, rewritten
 * to `… --help` (stdout, exit 0): bare `lanyard`, a bare group
 * (`lanyard mailbox`), and `lanyard help <group> <command>` (commander's help
 * command goes one level deep only; knownHelpTopic() checks the words name a
 * command, and the options). Bare means no word but root options: with an option the root or
 * the group does not know (`lanyard --nosuch`, `lanyard auth --with-token`),
 * the args are left to commander, which reports it (exit 2) instead of
 * printing help with 0 - an option at the wrong level fails the CI job.
 */
export function helpArgs(args: readonly string[]): string[] {
  const words = commandWords(args);
  const asksHelp = args.some((a) => a === '-h' || a === '--help' || a === '-V' || a === '--version');
  if (words.length === 0 && !asksHelp && onlyRootOptions(args)) return [...args, '--help'];
  if (words[0] === 'help' && (words.length > 1 || !onlyRootOptions(args))) {
    const i = args.indexOf('help');
    return [...args.slice(0, i), ...args.slice(i + 1), '--help'];
  }
  const group = GROUPS.find((g) => g.name === words[0]);
  if (words.length === 1 && group && !group.leaf && !asksHelp && onlyRootOptions(args)) return [...args, '--help'];
  return [...args];
}

/** Whether every option in `args` is a root option (the words and option values aside). */
function onlyRootOptions(args: readonly string[]): boolean {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (VALUE_OPTIONS.has(a)) i++;
    else if (a.startsWith('-') && !ROOT_FLAGS.test(a)) return false;
  }
  return true;
}

/**
 * A help request (`help <words>` as helpArgs() rewrote it, or `-h`/`--help`
 * anywhere) that commander should refuse instead: `args` without the help
 * flags when a word names no command of `program` (`help auth nosuch`), or
 * when an option given at the root or a group is one it does not take
 * (`help --nosuch`, `lanyard auth --with-token --help`), as gh refuses them.
 * Commander then reports the unknown command or option (exit 2). A group
 * runs nothing, so nothing runs without the flag; a command's own help still
 * wins over an option it does not take, as commander has it.
 */
export function knownHelpTopic(program: Command, args: readonly string[]): string[] {
  const help = args.filter((a) => a !== '-h' && a !== '--help');
  let cmd: Command = program;
  for (let i = 0; i < help.length; i++) {
    const a = help[i]!;
    if (a === '--') break;
    if (VALUE_OPTIONS.has(a)) i++;
    else if (!a.startsWith('-')) {
      const sub = subcommand(cmd, a);
      // Past the commands (a command's arguments): only a help topic must name commands all along.
      if (!sub) return cmd.commands.length > 0 ? help : [...args];
      cmd = sub;
    } else if (cmd.commands.length > 0 && !takesOption(cmd, a.split('=')[0]!)) return help;
  }
  return [...args];
}

/** Whether `cmd` or a command above it declares `flag` (root options are the root's). */
function takesOption(cmd: Command, flag: string): boolean {
  if (flag === '-h' || flag === '--help') return true;
  for (let c: Command | null = cmd; c; c = c.parent) if (declares(c, flag)) return true;
  return false;
}

/**
 * The tree, as much of it as `scope` says (declaring all eleven groups costs
 * more than many commands take to run).
 */
export function buildProgram(ctx: Context, scope: TreeScope = 'full'): Command {
  const program = new Command('lanyard')
    .description('Sign in to and call the hosting, echo, context-protocol, mailbox and service-health APIs.')
    .version(VERSION, '-V, --version', 'print the version')
    .showHelpAfterError('(run with --help for usage)')
    .configureOutput({
      // Help is Lanyard's own text: commander's colour stays (it writes no server text); the
      // hand-written blocks wrapped to the width commander wraps its own parts to.
      writeOut: (s) => ctx.io.printStyled(wrapHelp(s, ctx.io.stdoutIsTTY ? ctx.io.columns : 80)),
      writeErr: (s) => ctx.io.printErrStyled(s),
      // Asked of the IO, so printing help does not build process.stdout.
      getOutHelpWidth: () => (ctx.io.stdoutIsTTY ? ctx.io.columns : 80),
      getErrHelpWidth: () => (ctx.io.stderrIsTTY ? ctx.io.columns : 80),
      getOutHasColors: () => ctx.io.stdoutIsTTY && ctx.io.color,
      getErrHasColors: () => ctx.io.stderrIsTTY && ctx.io.color,
    })
    // The root list names each command or group on one line (its summary),
    // like gh's: arguments and options are in the command's own --help.
    .configureHelp({ subcommandTerm: (cmd) => cmd.name() })
    .exitOverride();
  for (const [flags, description] of Object.values(ROOT_OPTIONS)) program.option(flags, description);
  addGroups(program, ctx, scope);
  program.addHelpText('after', NETWORK_HELP);
  examples(
    program,
    [
      'lanyard emulator start --port 0',
      'lanyard --profile emulator auth device',
      'lanyard --profile emulator ratelimit status --fail-under 100 --json',
      'lanyard --profile emulator api /user',
      'lanyard --profile emulator mailbox list --all --ndjson',
    ],
    ROOT_EXITS,
  );
  program.addHelpText('after', environmentHelp());
  if (scope === 'full') program.addCommand(completion.completeCommand(ctx), { hidden: true });
  applyExitOverride(program);
  return program;
}

/** The groups `scope` asks for: all, one, or (shallow) the groups' names and summaries alone. */
function addGroups(program: Command, ctx: Context, scope: TreeScope): void {
  for (const g of GROUPS) {
    if (typeof scope === 'object') {
      if (g.name === scope.group) program.addCommand(g.declare(ctx));
    } else if (scope === 'shallow' && !g.leaf) {
      program.addCommand(new Command(g.name).description(g.summary));
    } else {
      program.addCommand(g.declare(ctx));
    }
  }
}

/** Subcommands inherit output configuration but not exitOverride; set it everywhere. */
function applyExitOverride(cmd: Command): void {
  for (const sub of cmd.commands) {
    sub.exitOverride();
    sub.configureOutput(cmd.configureOutput());
    sub.showHelpAfterError('(run with --help for usage)');
    applyExitOverride(sub);
  }
}
