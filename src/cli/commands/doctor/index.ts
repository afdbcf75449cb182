/** `lanyard doctor`: what is wrong with the active profile's network, credentials, keychain and clock, and how to fix it. */
import { Command } from 'commander';
import type { Context } from '../../context.js';
import { examples, withJson, runs } from '../../command-kit.js';
import type { DoctorOptions } from './options.js';

/** The group's line in `lanyard --help` (program.ts lists groups without declaring them): one line, what it does. */
export const summary = 'check the setup and say how to fix what is wrong';

export function doctorCommand(ctx: Context): Command {
  const cmd = withJson(
    new Command('doctor')
      .summary(summary)
      .description(
        "check the profile's services, credentials, keychain, proxy and clock, and say how to fix what is wrong. " +
          `For each service of the profile in turn (hosting, echo, protocol, mailbox, health): the endpoint ` +
          '(DNS, TCP, TLS; through the proxy when one applies), the credential a command would use and where it comes from ' +
          '(environment, keychain, file), whether the service accepts it (one cheap call) and when it expires, the clock skew ' +
          "against the server's Date and the rate-limit budget; and the credential store. Exit 0 when everything works, 1 otherwise",
      )
      .option('--check-timeout <duration>', 'time limit of each check (default 10s)'),
  ).action(runs(ctx, async (ctx, opts: DoctorOptions) => (await import('./run.js')).runDoctor(ctx, opts)));
  cmd.addHelpText(
    'after',
    [
      '',
      // One paragraph: the help wraps it to its width (output/help-wrap.ts).
      'Every problem comes with its fix, one line each. No secret is printed: credentials are named by where they come from, proxies without their password. --json gives the report as one object (docs/doctor.md describes it).',
    ].join('\n'),
  );
  return examples(
    cmd,
    [
      'lanyard doctor',
      'lanyard doctor --json',
      'lanyard doctor --json --jq \'.services[] | select(.status == "fail") | .service\'',
      'HTTPS_PROXY=http://proxy.corp.example:3128 lanyard doctor --check-timeout 5s',
    ],
    [0, [1, 'a check failed'], 2, 130, 143],
  );
}
