import { Command } from 'commander';
import type { Context } from '../../context.js';
import { commandGroup, examples, withJson, runs, LOCAL_EXITS } from '../../command-kit.js';

/** The group's line in `lanyard --help` (program.ts lists groups without declaring them): one line, what it does. */
export const summary = 'list, select, remove and bind profiles';

/** Its own help's description: the detail. */
const description = 'list, select and remove profiles; bind a profile to a directory';

const run = () => import('./run.js');

export function profileCommand(ctx: Context): Command {
  return commandGroup(
    new Command('profile').summary(summary).description(description),
    ctx,
    [list, use, remove],
    ['lanyard profile list', 'lanyard profile use work', 'lanyard profile use work --dir ~/src/work', 'lanyard profile remove old-work'],
  );
}

function list(profile: Command, ctx: Context): void {
  examples(
    withJson(
      profile
        .command('list')
        .description('list profiles; * marks the one that applies here, and says why (--profile, LANYARD_PROFILE, a directory binding, the active one)'),
    ).action(runs(ctx, async (ctx) => (await run()).runProfileList(ctx))),
    ['lanyard profile list', 'lanyard profile list --json'],
    LOCAL_EXITS,
  );
}

function use(profile: Command, ctx: Context): void {
  examples(
    profile
      .command('use')
      .argument('<name>')
      .description('make a profile the active one; with --dir, the profile of commands run in that directory or below')
      .option('--dir <dir>', 'bind the profile to this directory (symlinks resolved; the longest bound directory wins) instead of making it active')
      .action(runs(ctx, async (ctx, name: string, opts: { dir?: string }) => (await run()).runProfileUse(ctx, name, opts))),
    ['lanyard profile use emulator', 'lanyard profile use work --dir ~/src/work'],
    LOCAL_EXITS,
  );
}

function remove(profile: Command, ctx: Context): void {
  examples(
    profile
      .command('remove')
      .argument('[name]')
      .description('delete a profile and its directory bindings (its stored tokens stay in the keychain); with --dir, only the binding of that directory')
      .option('--dir <dir>', "remove this directory's profile binding instead of a profile")
      .action(runs(ctx, async (ctx, name: string | undefined, opts: { dir?: string }) => (await run()).runProfileRemove(ctx, name, opts))),
    ['lanyard profile remove old-work', 'lanyard profile remove --dir ~/src/work'],
    LOCAL_EXITS,
  );
}
