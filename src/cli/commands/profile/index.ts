import { Command } from 'commander';
import type { Context } from '../../context.js';
import { examples, withJson } from '../../command-kit.js';

/** The group's line in `lanyard --help` (program.ts lists groups without declaring them). */
export const summary = 'list, select and remove profiles';

export function profileCommand(ctx: Context): Command {
  const cmd = new Command('profile').description(summary);
  examples(
    withJson(cmd.command('list').description('list profiles; * marks the active one')).action(async () => (await import('./run.js')).runProfileList(ctx)),
    ['lanyard profile list', 'lanyard profile list --json'],
  );
  examples(
    cmd
      .command('use')
      .argument('<name>')
      .description('make a profile the active one')
      .action(async (name: string) => (await import('./run.js')).runProfileUse(ctx, name)),
    ['lanyard profile use emulator'],
  );
  examples(
    cmd
      .command('remove')
      .argument('<name>')
      .description('delete a profile (its stored tokens stay in the keychain)')
      .action(async (name: string) => (await import('./run.js')).runProfileRemove(ctx, name)),
    ['lanyard profile remove old-work'],
  );
  return examples(cmd, ['lanyard profile list', 'lanyard profile use work', 'lanyard profile remove old-work']);
}
