import { Command, Option } from 'commander';
import type { Context } from '../../context.js';
import { commandGroup, examples, withJson, runs, LOCAL_EXITS } from '../../command-kit.js';
import { paged } from '../../output/pager.js';
import { emulatorServiceAccountCommand } from './service-account.js';
import type { EmulatorRequestsOptions, EmulatorStartOptions, EmulatorTargetOptions } from './options.js';

const urlOption = ['--url <url>', 'emulator URL (default: the "emulator" profile; env LANYARD_EMULATOR_URL)'] as const;

/** The group's line in `lanyard --help` (program.ts lists groups without declaring them): one line, what it does. */
export const summary = 'run and steer the local emulator of every service';

/** Its own help's description: the detail. */
const description = 'run the local emulator of every service, and steer it (time, faults, fixtures)';

const run = () => import('./run.js');
const rl = () => import('./ratelimit.js');

export function emulatorCommand(ctx: Context): Command {
  const subcommands = [start, consolePage, info, reset, advance, requests, fault, budget, budgets, secondary, limits, admin, serviceAccount];
  return commandGroup(new Command('emulator').summary(summary).description(description), ctx, subcommands, [
    'lanyard emulator start --port 0',
    'lanyard --profile emulator ratelimit status',
    'lanyard emulator info --json',
    'lanyard emulator advance 15m',
    'lanyard emulator admin mailbox generate --data \'{"count":100}\'',
    'lanyard emulator reset',
  ]);
}

function start(emulator: Command, ctx: Context): void {
  examples(
    emulator
      .command('start')
      .description('start the emulator on 127.0.0.1 and register the "emulator" profile')
      .option('--port <n>', 'port (0 = any free port)', '0')
      .option('--host <addr>', 'address to bind: 127.0.0.1, another 127.x.y.z (port 443 for gh) or ::1', '127.0.0.1')
      .option('--data-dir <dir>', 'keep state (mailbox store) here; default: a temporary directory')
      .option('--tls', 'serve HTTPS with a self-signed certificate (kept in --data-dir); prints the file to trust')
      .option('--tls-cert <file>', 'serve HTTPS with this PEM certificate')
      .option('--tls-key <file>', 'and this PEM private key')
      .option('--allow-host <name>', 'also answer requests whose Host is this name (repeatable; others are refused)', (v: string, all: string[] = []) => [
        ...all,
        v,
      ])
      .option(
        '--public-host <name>',
        'the host name it gives itself in its URLs and the profile (one that reaches it, e.g. through a proxy); also accepted in Host',
      )
      .option('--no-profile', 'do not create or update the "emulator" profile')
      .option('-q, --quiet', 'no request log on stderr')
      .action(runs(ctx, async (ctx, opts: EmulatorStartOptions) => (await run()).runEmulatorStart(ctx, opts))),
    ['lanyard emulator start --port 0', 'lanyard emulator start --port 8080 --data-dir ./emu-data', 'lanyard emulator start --tls --data-dir ./emu-data'],
    [[0, 'stopped by Ctrl-C or SIGTERM'], 1, [2, 'the port is in use']],
  );
}

function consolePage(emulator: Command, ctx: Context): void {
  examples(
    withJson(
      emulator
        .command('console')
        .description(
          "open the emulator's console in a browser: requests live, limits, sign-ins in progress, state and controls (prints the URL without a browser)",
        ),
    )
      .option('--no-browser', 'print the URL instead of opening a browser')
      .option(...urlOption)
      .action(runs(ctx, async (ctx, opts: EmulatorTargetOptions & { browser?: boolean }) => (await import('./console.js')).runEmulatorConsole(ctx, opts))),
    ['lanyard emulator console', 'lanyard emulator console --no-browser', 'lanyard emulator console --json'],
    LOCAL_EXITS,
  );
}

function info(emulator: Command, ctx: Context): void {
  examples(
    paged(withJson(emulator.command('info').description('list the seeded users, apps, tokens, keys and endpoints')))
      .option(...urlOption)
      .action(runs(ctx, async (ctx, opts: EmulatorTargetOptions) => (await run()).runEmulatorInfo(ctx, opts))),
    ['lanyard emulator info --json'],
    LOCAL_EXITS,
  );
}

function reset(emulator: Command, ctx: Context): void {
  examples(
    emulator
      .command('reset')
      .description('restore every service to its seeded state, clear faults, the clock offset and the request journal')
      .option(...urlOption)
      .action(runs(ctx, async (ctx, opts: EmulatorTargetOptions) => (await run()).runEmulatorAdmin(ctx, opts, 'reset', {}))),
    ['lanyard emulator reset'],
    LOCAL_EXITS,
  );
}

function advance(emulator: Command, ctx: Context): void {
  examples(
    withJson(emulator.command('advance').argument('<duration>', 'how far to move the emulator clock, e.g. 15m').description('move the emulator clock forward'))
      .option(...urlOption)
      .action(runs(ctx, async (ctx, duration: string, opts: EmulatorTargetOptions) => (await run()).runEmulatorAdvance(ctx, opts, duration))),
    ['lanyard emulator advance 901s', 'lanyard emulator advance 1h --json'],
    LOCAL_EXITS,
  );
}

function requests(emulator: Command, ctx: Context): void {
  examples(
    withJson(
      emulator
        .command('requests')
        .description(
          'the request journal: every request the emulator answered (time, service, caller, method, path, status, duration, fault), secrets redacted',
        ),
      { ndjson: true },
    )
      .option('--follow', 'keep printing requests as they are answered (until interrupted)')
      .addOption(new Option('--service <service>', 'only this service').choices(['hosting', 'echo', 'protocol', 'mailbox', 'health', 'admin']))
      .option(...urlOption)
      .action(runs(ctx, async (ctx, opts: EmulatorRequestsOptions) => (await run()).runEmulatorRequests(ctx, opts))),
    ['lanyard emulator requests', 'lanyard emulator requests --service hosting --json', 'lanyard emulator requests --follow --ndjson'],
    LOCAL_EXITS,
  );
}

/** `emulator fault` and its add, list and clear. */
function fault(emulator: Command, ctx: Context): void {
  const cmd = emulator.command('fault').description('inject faults on chosen routes');
  commandGroup(
    cmd,
    ctx,
    [faultAdd, faultList, faultClear],
    ['lanyard emulator fault add --type reset --path /api/v3/user --count 1', 'lanyard emulator fault list --json', 'lanyard emulator fault clear'],
  );
}

function faultAdd(fault: Command, ctx: Context): void {
  examples(
    withJson(fault.command('add').description('add a fault: latency, reset, status (5xx) or truncate'))
      .addOption(new Option('--type <type>', 'kind of fault').choices(['latency', 'reset', 'status', 'truncate']).makeOptionMandatory())
      .requiredOption('--path <prefix>', 'path prefix, e.g. /api/v3/user')
      .option('--method <method>', 'only this method')
      .option('--latency <duration>', 'added latency (type latency)')
      .option('--status <code>', 'status to answer (type status; default 503)')
      .option('--retry-after <duration>', 'with it a Retry-After header, in whole seconds (type status: a 429 or 503 asking to come back later)')
      .option('--count <n>', 'apply to the next n requests only')
      .option('--rate <share>', 'chaos: apply to this share of the matching requests (0.25 or 25%)')
      .option('--seed <n>', 'with --rate: seed of the draws, for a repeatable run (default: chosen and printed)')
      .option(...urlOption)
      .action(runs(ctx, async (ctx, opts: Record<string, string>) => (await run()).runEmulatorFaultAdd(ctx, opts))),
    [
      'lanyard emulator fault add --type status --status 502 --path /api/v3/rate_limit --count 1',
      'lanyard emulator fault add --type status --status 503 --path /api/v3 --rate 10% --seed 42',
      'lanyard emulator fault add --type status --status 429 --retry-after 2s --path /rest/v2 --count 1',
      'lanyard emulator fault add --type latency --latency 2s --path /echo --json',
    ],
    LOCAL_EXITS,
  );
}

function faultList(fault: Command, ctx: Context): void {
  examples(
    withJson(fault.command('list').description('list active faults'))
      .option(...urlOption)
      .action(runs(ctx, async (ctx, opts: EmulatorTargetOptions) => (await run()).runEmulatorFaultList(ctx, opts))),
    ['lanyard emulator fault list', 'lanyard emulator fault list --json'],
    LOCAL_EXITS,
  );
}

function faultClear(fault: Command, ctx: Context): void {
  examples(
    fault
      .command('clear')
      .description('remove every fault')
      .option(...urlOption)
      .action(runs(ctx, async (ctx, opts: EmulatorTargetOptions) => (await run()).runEmulatorFaultClear(ctx, opts))),
    ['lanyard emulator fault clear', 'lanyard emulator fault clear --url http://127.0.0.1:8765'],
    LOCAL_EXITS,
  );
}

/** Which caller's hosting rate-limit bucket a command acts on. */
function callerOptions(c: Command): Command {
  return c
    .option('--user <login>', "the user's bucket (shared by all of the user's tokens and apps)")
    .option('--token-of <login>', 'same as --user: the bucket every token of that user spends')
    .option('--anonymous', 'the unauthenticated bucket of 127.0.0.1')
    .option('--caller <key>', 'a bucket key: ip:<addr>, user:<login>, app:<client id>, installation:<id>, workflow:<owner/repo>');
}

function budget(emulator: Command, ctx: Context): void {
  examples(
    withJson(callerOptions(emulator.command('budget').description('set what a caller has left of a hosting rate-limit budget (default: every caller)')))
      .option('--remaining <n>', 'requests left', '0')
      .option('--reset-in <duration>', 'the window resets after this long, e.g. 5s (default: keep / a full window)')
      .option('-r, --resource <name>', 'core, search, graphql, code_search, lfs, audit_log, ...', 'core')
      .option(...urlOption)
      .action(runs(ctx, async (ctx, opts) => (await rl()).runEmulatorBudget(ctx, opts))),
    [
      'lanyard emulator budget --remaining 0 --reset-in 5s --anonymous',
      'lanyard emulator budget --user mona --remaining 10 --reset-in 1m',
      'lanyard emulator budget --resource search --remaining 0 --reset-in 30s',
    ],
    LOCAL_EXITS,
  );
}

function budgets(emulator: Command, ctx: Context): void {
  examples(
    withJson(emulator.command('budgets').description('list the hosting rate-limit buckets in use'))
      .option(...urlOption)
      .action(runs(ctx, async (ctx, opts) => (await rl()).runEmulatorBudgets(ctx, opts))),
    ['lanyard emulator budgets', 'lanyard emulator budgets --json'],
    LOCAL_EXITS,
  );
}

function secondary(emulator: Command, ctx: Context): void {
  examples(
    withJson(callerOptions(emulator.command('secondary').description('make the next requests hit a hosting secondary rate limit')))
      .option('--count <n>', 'how many requests to refuse', '1')
      .option('--retry-after <duration>', 'send retry-after with this many seconds (default: no header)')
      .option('--status <code>', '403 or 429', '403')
      .option('--exhaust-budget', "also zero the caller's core budget (the client then waits for x-ratelimit-reset)")
      .option('--reset-in <duration>', 'with --exhaust-budget: when that budget resets (default 60s)')
      .option(...urlOption)
      .action(runs(ctx, async (ctx, opts) => (await rl()).runEmulatorSecondary(ctx, opts))),
    [
      'lanyard emulator secondary --retry-after 2s',
      'lanyard emulator secondary --count 3 --status 429',
      'lanyard emulator secondary --exhaust-budget --reset-in 3s',
    ],
    LOCAL_EXITS,
  );
}

function limits(emulator: Command, ctx: Context): void {
  examples(
    withJson(
      emulator.command('limits').description('tune the hosting secondary limits (defaults: 100 concurrent, 900 points/min, 80/min and 500/h content-creating)'),
    )
      .option('--concurrent <n>', 'concurrent requests per caller')
      .option('--points-per-minute <n>', 'REST points per minute per endpoint')
      .option('--content-per-minute <n>', 'content-creating requests per minute')
      .option('--content-per-hour <n>', 'content-creating requests per hour')
      .option('--content-window <duration>', 'length of the "per minute" window, whole seconds (tests in real time; default 60s)')
      .option(...urlOption)
      .action(runs(ctx, async (ctx, opts) => (await rl()).runEmulatorLimits(ctx, opts))),
    [
      'lanyard emulator limits --content-per-minute 3',
      'lanyard emulator limits --content-per-minute 20 --content-window 10s',
      'lanyard emulator limits --json',
    ],
    LOCAL_EXITS,
  );
}

/** `emulator service-account` (./service-account.ts). */
function serviceAccount(emulator: Command, ctx: Context): void {
  emulator.addCommand(emulatorServiceAccountCommand(ctx));
}

function admin(emulator: Command, ctx: Context): void {
  examples(
    withJson(
      emulator.command('admin').argument('<service>').argument('<verb>').description('call any admin verb of a service (POST /_emulator/<service>/<verb>)'),
    )
      .option('--data <json>', 'JSON body of the verb', '{}')
      .option(...urlOption)
      .action(
        runs(ctx, async (ctx, service: string, verb: string, opts: EmulatorTargetOptions & { data: string }) =>
          (await run()).runEmulatorAdminVerb(ctx, opts, service, verb, opts.data),
        ),
      ),
    ['lanyard emulator admin hosting budget --data \'{"remaining":0,"resetInSeconds":5}\''],
    LOCAL_EXITS,
  );
}
