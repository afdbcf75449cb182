import { Command } from 'commander';
import type { Context } from '../../context.js';
import { examples, withJson } from '../../program.js';
import { emulatorServiceAccountCommand } from './service-account.js';

export interface EmulatorStartOptions {
  port?: string;
  host?: string;
  dataDir?: string;
  tlsCert?: string;
  tlsKey?: string;
  profile?: boolean;
  quiet?: boolean;
}

export interface EmulatorTargetOptions {
  url?: string;
  json?: boolean;
}

const urlOption = ['--url <url>', 'emulator URL (default: the "emulator" profile; env LANYARD_EMULATOR_URL)'] as const;

export function emulatorCommand(ctx: Context): Command {
  const cmd = new Command('emulator').description('run the local emulator of every service, and steer it (time, faults, fixtures)');
  const run = () => import('./run.js');
  examples(
    cmd.command('start').description('start the emulator on 127.0.0.1 and register the "emulator" profile')
      .option('--port <n>', 'port (0 = any free port)', '0')
      .option('--host <addr>', 'address to bind (loopback only)', '127.0.0.1')
      .option('--data-dir <dir>', 'keep state (mailbox store) here; default: a temporary directory')
      .option('--tls-cert <file>', 'serve HTTPS with this PEM certificate')
      .option('--tls-key <file>', 'and this PEM private key')
      .option('--no-profile', 'do not create or update the "emulator" profile')
      .option('-q, --quiet', 'no request log on stderr')
      .action(async (opts: EmulatorStartOptions) => (await run()).runEmulatorStart(ctx, opts)),
    ['lanyard emulator start --port 0', 'lanyard emulator start --port 8080 --data-dir ./emu-data'],
  );
  examples(
    withJson(cmd.command('info').description('list the seeded users, apps, tokens, keys and endpoints'))
      .option(...urlOption)
      .action(async (opts: EmulatorTargetOptions) => (await run()).runEmulatorInfo(ctx, opts)),
    ['lanyard emulator info --json'],
  );
  examples(
    cmd.command('reset').description('restore every service to its seeded state, clear faults and the clock offset')
      .option(...urlOption)
      .action(async (opts: EmulatorTargetOptions) => (await run()).runEmulatorAdmin(ctx, opts, 'reset', {})),
    ['lanyard emulator reset'],
  );
  examples(
    cmd.command('advance').argument('<duration>', 'how far to move the emulator clock, e.g. 15m').description('move the emulator clock forward')
      .option(...urlOption)
      .action(async (duration: string, opts: EmulatorTargetOptions) => (await run()).runEmulatorAdvance(ctx, opts, duration)),
    ['lanyard emulator advance 901s', 'lanyard emulator advance 1h'],
  );
  const fault = cmd.command('fault').description('inject faults on chosen routes');
  examples(
    fault.command('add').description('add a fault: latency, reset, status (5xx) or truncate')
      .requiredOption('--type <type>', 'latency | reset | status | truncate')
      .requiredOption('--path <prefix>', 'path prefix, e.g. /api/v3/user')
      .option('--method <method>', 'only this method')
      .option('--latency <duration>', 'added latency (type latency)')
      .option('--status <code>', 'status to answer (type status; default 503)')
      .option('--count <n>', 'apply to the next n requests only')
      .option(...urlOption)
      .action(async (opts: Record<string, string>) => (await run()).runEmulatorFaultAdd(ctx, opts)),
    ['lanyard emulator fault add --type status --status 502 --path /api/v3/rate_limit --count 1', 'lanyard emulator fault add --type latency --latency 2s --path /echo'],
  );
  withJson(fault.command('list').description('list active faults')).option(...urlOption)
    .action(async (opts: EmulatorTargetOptions) => (await run()).runEmulatorFaultList(ctx, opts));
  fault.command('clear').description('remove every fault').option(...urlOption)
    .action(async (opts: EmulatorTargetOptions) => (await run()).runEmulatorFaultClear(ctx, opts));
  examples(
    withJson(cmd.command('admin').argument('<service>').argument('<verb>').description('call any admin verb of a service (POST /_emulator/<service>/<verb>)'))
      .option('--data <json>', 'JSON body of the verb', '{}')
      .option(...urlOption)
      .action(async (service: string, verb: string, opts: EmulatorTargetOptions & { data: string }) =>
        (await run()).runEmulatorAdminVerb(ctx, opts, service, verb, opts.data)),
    ['lanyard emulator admin hosting budget --data \'{"remaining":0,"resetInSeconds":5}\''],
  );
  cmd.addCommand(emulatorServiceAccountCommand(ctx));
  return cmd;
}
