/**
 * The commander tree. Group modules only declare commands; each action
 * imports its run module lazily, so start-up loads almost nothing.
 */
import { Command, Option } from 'commander';
import type { Context } from './context.js';
import { VERSION } from './version.js';
import { configCommand } from './commands/config/index.js';
import { profileCommand } from './commands/profile/index.js';
import { ratelimitCommand } from './commands/ratelimit/index.js';
import { emulatorCommand } from './commands/emulator/index.js';
import { authCommand } from './commands/auth/index.js';
import { echoCommand } from './commands/echo/index.js';
import { protocolCommand } from './commands/protocol/index.js';
import { mailboxCommand } from './commands/mailbox/index.js';
import { healthCommand } from './commands/health/index.js';
import { apiCommand } from './commands/api/index.js';
import { completeCommand, completionCommand } from './commands/completion/index.js';

export function buildProgram(ctx: Context): Command {
  const program = new Command('lanyard')
    .description('Sign in to and call the hosting, echo, context-protocol, mailbox and service-health APIs.')
    .version(VERSION, '-V, --version', 'print the version')
    .option('-p, --profile <name>', 'profile to use (env: LANYARD_PROFILE)')
    .option('--debug', 'trace HTTP requests on stderr, secrets redacted (env: LANYARD_DEBUG=1)')
    .option('--wait', 'wait out rate limits instead of failing with exit 3 (env: LANYARD_RATE_LIMIT_WAIT=1)')
    .option('--max-wait <duration>', 'longest rate-limit wait with --wait (default 1h; env: LANYARD_RATE_LIMIT_MAX_WAIT)')
    .option('--basic-client', 'hosting calls authenticate as the OAuth app (client id + LANYARD_CLIENT_SECRET, Basic) for public data (env: LANYARD_BASIC_CLIENT=1)')
    .addOption(new Option('--no-color', 'disable colour (env: NO_COLOR)'))
    .showHelpAfterError('(run with --help for usage)')
    .configureOutput({
      writeOut: (s) => ctx.io.stdout.write(s),
      writeErr: (s) => ctx.io.stderr.write(s),
    })
    .exitOverride();
  program.hook('preAction', () => {
    if (program.opts().color === false) (ctx.io as { color: boolean }).color = false;
  });
  const groups = [
    authCommand(ctx),
    ratelimitCommand(ctx),
    apiCommand(ctx),
    echoCommand(ctx),
    protocolCommand(ctx),
    mailboxCommand(ctx),
    healthCommand(ctx),
    configCommand(ctx),
    profileCommand(ctx),
    emulatorCommand(ctx),
    completionCommand(ctx),
  ];
  for (const g of groups) program.addCommand(g);
  examples(program, [
    'lanyard emulator start --port 0',
    'lanyard --profile emulator auth device',
    'lanyard ratelimit status --fail-under 100 --json',
    'lanyard api /user',
    'lanyard mailbox list --all --ndjson',
  ]);
  program.addCommand(completeCommand(ctx), { hidden: true });
  applyExitOverride(program);
  return program;
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

/** Adds the shared `--json` option (and `--ndjson` for streams) to a command. */
export function withJson(cmd: Command, opts: { ndjson?: boolean } = {}): Command {
  cmd.option('--json', 'print JSON for scripts');
  if (opts.ndjson) cmd.option('--ndjson', 'print one JSON object per line as items arrive');
  return cmd;
}

/** Appends an "Examples:" block to a command's help. */
export function examples(cmd: Command, lines: string[]): Command {
  cmd.addHelpText('after', `\nExamples:\n${lines.map((l) => `  $ ${l}`).join('\n')}\n`);
  return cmd;
}
