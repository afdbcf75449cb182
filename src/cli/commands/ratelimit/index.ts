import { Command } from 'commander';
import type { Context } from '../../context.js';
import { commandGroup, examples, withJson, runs } from '../../command-kit.js';
import type { RatelimitStatusOptions, RatelimitWaitOptions } from './options.js';

/** The group's line in `lanyard --help` (program.ts lists groups without declaring them). */
export const summary = 'show and wait for the hosting API rate-limit budget';

const run = () => import('./run.js');

/** How a fleet paces itself through a shared server (after the subcommands in the group's help). */
// One line a paragraph or item: the help wraps them to its width (output/help-wrap.ts).
const FLEET_HELP = [
  '',
  'A fleet (docs/fleets.md): with LANYARD_PACING_URL=redis://host:port (rediss:// for TLS; or the profile setting pacing.url) every process that uses the same Redis or Valkey server and the same token paces content-creating requests together (80 a minute, 500 an hour), waits out a secondary limit any of them met, and shares the last budget seen (status shows it with its age).',
  '  LANYARD_PACING_PASSWORD    the server password (or in the URL); never shown',
  '  LANYARD_PACING_REQUIRED=1  exit 1 before sending when the server cannot be used (profile: pacing.required), instead of pacing on this machine with a warning',
  '  LANYARD_PACING_TIMEOUT     the longest wait for the server in one call (default 2s)',
].join('\n');

export function ratelimitCommand(ctx: Context): Command {
  return commandGroup(
    new Command('ratelimit').description(summary).addHelpText('after', FLEET_HELP),
    ctx,
    [status, wait],
    [
      'lanyard ratelimit status',
      'lanyard ratelimit status --resource core --fail-under 100 --json',
      'lanyard ratelimit wait --resource search --min 10 --timeout 5m',
    ],
  );
}

function status(ratelimit: Command, ctx: Context): void {
  examples(
    withJson(ratelimit.command('status').description('show the budget of each resource (core, search, graphql, ...)'))
      .option('-r, --resource <name>', 'only this resource (with --fail-under: the one checked; default core)')
      .option('--fail-under <n>', 'exit 3 when the resource has fewer than n requests left (CI budget check)')
      .option('--user <login>', "this stored account's budget instead of the active account's")
      .action(runs(ctx, async (ctx, opts: RatelimitStatusOptions) => (await run()).runRatelimitStatus(ctx, opts))),
    [
      'lanyard ratelimit status',
      'lanyard ratelimit status --resource core --fail-under 100 --json',
      'lanyard --profile emulator ratelimit status --resource search',
      'lanyard ratelimit status --user mona',
    ],
    [0, 1, 2, [3, '--fail-under: fewer requests left than that'], 4, 130, 143],
  );
}

function wait(ratelimit: Command, ctx: Context): void {
  examples(
    ratelimit
      .command('wait')
      .description('block until the resource has budget again')
      .option('-r, --resource <name>', 'resource to wait for', 'core')
      .option('--min <n>', 'wait until at least n requests are left', '1')
      .option('--timeout <duration>', 'give up (exit 3) after this long, e.g. 10m')
      .option('--user <login>', "wait for this stored account's budget instead of the active account's")
      .action(runs(ctx, async (ctx, opts: RatelimitWaitOptions) => (await run()).runRatelimitWait(ctx, opts))),
    ['lanyard ratelimit wait', 'lanyard ratelimit wait --resource search --min 10 --timeout 5m'],
    [0, 1, 2, [3, '--timeout ran out'], 4, 130, 143],
  );
}
