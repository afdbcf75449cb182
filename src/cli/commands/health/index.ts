/**
 * `lanyard health`: service-health events of a subscription. Sign-in is
 * `lanyard auth login --health` (see ./auth.ts).
 */
import { Command, Option } from 'commander';
import type { Context } from '../../context.js';
import { commandGroup, examples, withJson, runs, SIGNED_IN_EXITS } from '../../command-kit.js';
import type { HealthEventsOptions, HealthCheckOptions, HealthEventOptions } from './options.js';
import { paged } from '../../output/pager.js';

const collect = (v: string, prev: string[] = []) => [...prev, v];

/** The options every health command shares; `window`: what the command reads without --since. */
function queryOptions(cmd: Command, window = 'API default: 3 days'): Command {
  return cmd
    .option('--subscription <id>', "subscription id (default: the profile's health.subscriptionId)")
    .option('--filter <expr>', "raw $filter expression, e.g. \"service eq 'Virtual Machines' or region eq 'West US'\"")
    .option('--service <name>', 'only events impacting this service (repeatable; OR-ed with --region)', collect)
    .option('--region <name>', 'only events impacting this region (repeatable)', collect)
    .option('--since <date>', `events updated since YYYY-MM-DD, M/D/YYYY or a relative 3d / 12h (${window})`)
    .option('--api-version <v>', 'api-version to send', '2025-05-01');
}

/** The group's line in `lanyard --help` (program.ts lists groups without declaring them): one line, what it does. */
export const summary = 'list and check service-health events';

/** Its own help's description: the detail. */
const description = 'list service-health events of a subscription (outages, maintenance, advisories, billing)';

const run = () => import('./run.js');

export function healthCommand(ctx: Context): Command {
  return commandGroup(
    new Command('health').summary(summary).description(description),
    ctx,
    [events, check, event],
    ['lanyard auth login --health', 'lanyard health events --since 7d --all --ndjson', 'lanyard health event BC_1-FXZ --since 5/12/2025 --json'],
  );
}

function events(health: Command, ctx: Context): void {
  examples(
    paged(
      withJson(queryOptions(health.command('events').description('list the health events of a subscription, as the service orders them')), { ndjson: true }),
    )
      .option('--all', 'follow every page (streams with --ndjson)')
      .option('--max <n>', 'stop after n events, following pages as needed')
      .option('--new', 'only events not seen by the previous --new run of this profile (new or updated since); state in the state directory')
      .action(runs(ctx, async (ctx, opts: HealthEventsOptions) => (await run()).runHealthEvents(ctx, opts))),
    [
      'lanyard health events',
      "lanyard health events --service 'Virtual Machines' --region 'West US' --since 5/12/2025",
      'lanyard health events --filter "service eq \'Storage\'" --all --ndjson',
      'lanyard health events --since 7d --max 20 --json',
      'lanyard health events --all --new --ndjson',
    ],
    SIGNED_IN_EXITS,
  );
}

function check(health: Command, ctx: Context): void {
  examples(
    withJson(
      queryOptions(
        health
          .command('check')
          .description('CI gate: the active events of a subscription (updated in the last 90 days); exit 5 with --fail-if-active when there are any'),
        'default: 90 days',
      ),
    )
      .option('--fail-if-active', 'exit 5 when an active event matches')
      .addOption(new Option('--impact <level>', 'only events of this level or worse').choices(['critical', 'error', 'warning', 'informational']))
      .action(runs(ctx, async (ctx, opts: HealthCheckOptions) => (await run()).runHealthCheck(ctx, opts))),
    [
      'lanyard health check --fail-if-active   # exit 5 while an event is active',
      "lanyard health check --impact error --service 'Virtual Machines' --fail-if-active --json   # exit 5 while one is active",
    ],
    [0, 1, 2, 3, 4, [5, '--fail-if-active: an active event matches'], 130, 143],
  );
}

function event(health: Command, ctx: Context): void {
  examples(
    paged(
      withJson(queryOptions(health.command('event').description('show one event in full: impact per region with updates, recommended actions, links, FAQs'))),
    )
      .argument('<trackingId>', 'tracking id of the event (its name), e.g. LY03-E6P')
      .action(runs(ctx, async (ctx, trackingId: string, opts: HealthEventOptions) => (await run()).runHealthEvent(ctx, trackingId, opts))),
    ['lanyard health event BC_1-FXZ --since 5/12/2025', 'lanyard health event LY03-E6P --json'],
    SIGNED_IN_EXITS,
  );
}
