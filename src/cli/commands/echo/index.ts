/**
 * `lanyard echo`: the echo sample API — send a message with the API key,
 * show who a token says you are under each JWT scheme, manage the API key.
 */
import { Command, Option } from 'commander';
import type { Context } from '../../context.js';
import { examples, withJson } from '../../command-kit.js';
import { EchoTokenSchemes } from '../../../shared/echo.js';
import type { EchoSendOptions, EchoTokenOptions, EchoKeyOptions } from './options.js';

const SCHEMES = Object.keys(EchoTokenSchemes);

function tokenOptions(cmd: Command): Command {
  return cmd
    .addOption(new Option('-s, --scheme <scheme>', 'authentication scheme').choices(SCHEMES).makeOptionMandatory())
    .option('-c, --credentials <file>', 'service-account key file (vendor-jwt, service-account, default-service-account)')
    .option('--audience <aud>', "aud claim of minted JWTs (default: the profile's echo.audience)")
    .option('--issuer <iss>', "iss and sub claims of minted JWTs (default: the key file's client_email)")
    .option('--lifetime <duration>', 'lifetime of minted JWTs, at most 1h', '1h')
    .option('--project <id>', "app-platform project (default: the profile's echo.appPlatformProject)")
    .option('--client-id <id>', "OAuth client id at the identity provider (default: the profile's echo.idpClientId)")
    .option('--login-hint <email>', 'suggest this account on the sign-in page')
    .option('--no-browser', 'print the sign-in URL instead of opening a browser')
    .option('--timeout <duration>', 'give up waiting for the browser sign-in after this long (default: 5m)')
    .option('--fresh', 'sign in again even if a cached identity token is still valid');
}

/** The group's line in `lanyard --help` (program.ts lists groups without declaring them). */
export const summary = 'call the echo sample API (API key and JWT schemes)';

export function echoCommand(ctx: Context): Command {
  const cmd = new Command('echo').description(summary);
  const send = () => import('./send.js');
  const auth = () => import('./auth-info.js');
  const key = () => import('./key.js');

  examples(
    withJson(cmd.command('send').argument('[message]', 'the message to echo').description('POST /echo with the API key; prints the echoed message'))
      .option('--stdin', 'read the message from stdin instead of the argument')
      .action(async (message: string | undefined, opts: EchoSendOptions) => (await send()).runEchoSend(ctx, message, opts)),
    [
      'lanyard echo send "hello world"',
      'printf "multi\\nline" | lanyard echo send --stdin --json',
      'LANYARD_API_KEY="$API_KEY" lanyard --profile emulator echo send hi',
    ],
  );

  examples(
    withJson(tokenOptions(cmd.command('auth-info').description('call /auth/info/* with a bearer token of the chosen scheme; prints {id, email}'))).action(
      async (opts: EchoTokenOptions) => (await auth()).runEchoAuthInfo(ctx, opts),
    ),
    [
      'lanyard echo auth-info --scheme vendor-jwt --credentials sa.json --audience echo-api.example.com',
      'lanyard echo auth-info --scheme service-account -c sa.json --json',
      'lanyard echo auth-info --scheme id-token',
      'lanyard echo auth-info --scheme app-platform --project my-project --no-browser',
    ],
  );

  examples(
    withJson(tokenOptions(cmd.command('token').description('print the bearer token a scheme would send (for curl); --json adds its expiry'))).action(
      async (opts: EchoTokenOptions) => (await auth()).runEchoToken(ctx, opts),
    ),
    [
      'lanyard echo token --scheme service-account -c sa.json',
      'lanyard echo token --scheme id-token --json',
      'curl -H "Authorization: Bearer $(lanyard echo token --scheme service-account -c sa.json)" "$URL/auth/info/vendorjwt"',
    ],
  );

  const keyCmd = cmd
    .command('key')
    .description('manage the API key of the echo API (OS keychain, or a 0600 file with LANYARD_INSECURE_STORAGE=1; LANYARD_API_KEY wins)');
  examples(
    keyCmd
      .command('set')
      .description("store the API key read from stdin for the profile's echo API")
      .action(async (opts: EchoKeyOptions) => (await key()).runEchoKeySet(ctx, opts)),
    ['printf %s "$API_KEY" | lanyard echo key set', 'lanyard echo key set < key.txt'],
  );
  examples(
    withJson(keyCmd.command('status').description('show where the API key comes from (masked); exit 4 when there is none')).action(async () =>
      (await key()).runEchoKeyStatus(ctx),
    ),
    ['lanyard echo key status', 'lanyard echo key status --json'],
  );
  examples(
    keyCmd
      .command('delete')
      .description("delete the stored API key of the profile's echo API")
      .action(async (opts: EchoKeyOptions) => (await key()).runEchoKeyDelete(ctx, opts)),
    ['lanyard echo key delete'],
  );
  examples(keyCmd, ['printf %s "$API_KEY" | lanyard echo key set', 'lanyard echo key status --json', 'lanyard echo key delete']);
  return examples(cmd, [
    'printf %s "$API_KEY" | lanyard echo key set',
    'lanyard echo send "hello world"',
    'lanyard echo auth-info --scheme service-account -c sa.json --json',
    'lanyard echo token --scheme vendor-jwt -c sa.json',
  ]);
}
