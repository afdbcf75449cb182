import { Command } from 'commander';
import type { Context } from '../../context.js';
import { examples, withJson } from '../../command-kit.js';

/** The group's line in `lanyard --help` (program.ts lists groups without declaring them). */
export const summary = 'read and change the settings of a profile (never secrets)';

export function configCommand(ctx: Context): Command {
  const cmd = new Command('config').description(summary);
  examples(
    withJson(cmd.command('get').argument('<key>', 'setting, e.g. hosting.apiUrl').description('print one setting of the profile')).action(async (key: string) =>
      (await import('./run.js')).runConfigGet(ctx, key),
    ),
    ['lanyard config get hosting.apiUrl', 'lanyard --profile work config get mailbox.user --json'],
  );
  examples(
    cmd
      .command('set')
      .argument('<key>')
      .argument('<value>')
      .description('change one setting of the profile (created if missing)')
      .action(async (key: string, value: string) => (await import('./run.js')).runConfigSet(ctx, key, value)),
    ['lanyard config set hosting.apiUrl https://code.example.com/api/v3 --profile work'],
  );
  examples(
    cmd
      .command('unset')
      .argument('<key>')
      .description('remove one setting of the profile')
      .action(async (key: string) => (await import('./run.js')).runConfigUnset(ctx, key)),
    ['lanyard config unset echo.audience'],
  );
  examples(
    withJson(cmd.command('list').description('list the settings of the profile, or every known key with --keys'))
      .option('--keys', 'list every known setting key with its meaning')
      .action(async (opts: { json?: boolean; keys?: boolean }) => (await import('./run.js')).runConfigList(ctx, opts)),
    ['lanyard config list', 'lanyard config list --json', 'lanyard config list --keys'],
  );
  return examples(cmd, [
    'lanyard config set hosting.apiUrl https://code.example.com/api/v3 --profile work',
    'lanyard config get hosting.apiUrl',
    'lanyard config list --keys',
  ]);
}
