/** `lanyard exec`: runs a program with credentials in its environment (never on its command line). */
import { Command, Option } from 'commander';
import type { Context } from '../../context.js';
import { examples, runs, type ExitLine } from '../../command-kit.js';
import type { ExecService, ExecOptions } from './options.js';
import { CREDENTIAL_SERVICES } from '../../../shared/services.js';

/** The group's line in `lanyard --help` (program.ts lists groups without declaring them): one line, what it does. */
export const summary = 'run a program with credentials in its environment';

/** exec ends with the command's own status; its own failures happen before the command starts. */
const EXEC_EXITS: readonly ExitLine[] = [
  [0, 'the command succeeded'],
  [1, 'the command could not be started'],
  2,
  [4, 'no credential for a --service'],
  ['other', "the command's own exit status, passed through (128+N when signal N ended it)"],
];

export function execCommand(ctx: Context): Command {
  const service = new Option('-s, --service <name>', 'a service whose credential to hand over (repeatable; default hosting)').choices(CREDENTIAL_SERVICES);
  const oneOf = service.parseArg!;
  service.argParser((v: string, prev: ExecService[] | undefined) => [...(prev ?? []), oneOf(v, '') as ExecService]);
  const cmd = new Command('exec')
    .summary(summary)
    .description(
      'run a program with credentials in its environment (LANYARD_TOKEN, GH_TOKEN, …), never on its command line; its exit status is passed through and signals are forwarded to it',
    )
    .argument('<command>', 'the program to run (after --)')
    .argument('[args...]', 'its arguments')
    .addOption(service)
    .option('--user <login>', 'hand over the token of this stored hosting account instead of the active one')
    .action(runs(ctx, async (ctx, command: string, args: string[], opts: ExecOptions) => (await import('./run.js')).runExec(ctx, command, args, opts)));
  return examples(
    cmd,
    [
      'lanyard exec -- gh repo list',
      "lanyard exec --user mona -- sh -c 'lanyard api /user --jq .login'",
      'lanyard exec -- sh -c \'curl -sH "Authorization: Bearer $LANYARD_TOKEN" "$LANYARD_API_URL/user"\'',
      'lanyard exec --service hosting --service echo -- ./deploy.sh',
    ],
    EXEC_EXITS,
  );
}
