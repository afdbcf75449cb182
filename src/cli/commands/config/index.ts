import { Command } from 'commander';
import type { Context } from '../../context.js';
import { commandGroup, examples, withJson, runs, LOCAL_EXITS } from '../../command-kit.js';

/** The group's line in `lanyard --help` (program.ts lists groups without declaring them): one line, what it does. */
export const summary = "read and change a profile's settings";

/** Its own help's description: the detail. */
const description = 'read and change the settings of a profile (never secrets)';

const run = () => import('./run.js');

export function configCommand(ctx: Context): Command {
  return commandGroup(
    new Command('config').summary(summary).description(description),
    ctx,
    [get, set, unset, list],
    ['lanyard config set hosting.apiUrl https://code.example.com/api/v3 --profile work', 'lanyard config get hosting.apiUrl', 'lanyard config list --keys'],
  );
}

function get(config: Command, ctx: Context): void {
  examples(
    withJson(config.command('get').argument('<key>', 'setting, e.g. hosting.apiUrl').description('print one setting of the profile')).action(
      runs(ctx, async (ctx, key: string) => (await run()).runConfigGet(ctx, key)),
    ),
    ['lanyard config get hosting.apiUrl', 'lanyard --profile work config get mailbox.user --json'],
    LOCAL_EXITS,
  );
}

function set(config: Command, ctx: Context): void {
  examples(
    config
      .command('set')
      .argument('<key>')
      .argument('<value>')
      .description('change one setting of the profile (created if missing)')
      .action(runs(ctx, async (ctx, key: string, value: string) => (await run()).runConfigSet(ctx, key, value))),
    ['lanyard config set hosting.apiUrl https://code.example.com/api/v3 --profile work'],
    LOCAL_EXITS,
  );
}

function unset(config: Command, ctx: Context): void {
  examples(
    config
      .command('unset')
      .argument('<key>')
      .description('remove one setting of the profile')
      .action(runs(ctx, async (ctx, key: string) => (await run()).runConfigUnset(ctx, key))),
    ['lanyard config unset echo.audience'],
    LOCAL_EXITS,
  );
}

function list(config: Command, ctx: Context): void {
  examples(
    withJson(config.command('list').description('list the settings of the profile, or every known key with --keys'))
      .option('--keys', 'list every known setting key with its meaning')
      .action(runs(ctx, async (ctx, opts: { keys?: boolean }) => (await run()).runConfigList(ctx, opts))),
    ['lanyard config list', 'lanyard config list --json', 'lanyard config list --keys'],
    LOCAL_EXITS,
  );
}
