/**
 * `lanyard echo`: the echo sample API — send a message with the API key,
 * show who a token says you are under each JWT scheme, manage the API key.
 */
import { Command, Option } from 'commander';
import type { Context } from '../../context.js';
import { commandGroup, examples, withJson, runs, LOCAL_EXITS, SIGNED_IN_EXITS } from '../../command-kit.js';
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

const sendModule = () => import('./send.js');
const authInfoModule = () => import('./auth-info.js');
const keyModule = () => import('./key.js');

export function echoCommand(ctx: Context): Command {
  return commandGroup(
    new Command('echo').description(summary),
    ctx,
    [send, authInfo, token, key],
    [
      'printf %s "$API_KEY" | lanyard echo key set',
      'lanyard echo send "hello world"',
      'lanyard echo auth-info --scheme service-account -c sa.json --json',
      'lanyard echo token --scheme vendor-jwt -c sa.json',
    ],
  );
}

function send(echo: Command, ctx: Context): void {
  examples(
    withJson(echo.command('send').argument('[message]', 'the message to echo').description('POST /echo with the API key; prints the echoed message'))
      .option('--stdin', 'read the message from stdin instead of the argument')
      .action(runs(ctx, async (ctx, message: string | undefined, opts: EchoSendOptions) => (await sendModule()).runEchoSend(ctx, message, opts))),
    [
      'lanyard echo send "hello world"',
      'printf "multi\\nline" | lanyard echo send --stdin --json',
      'LANYARD_API_KEY="$API_KEY" lanyard --profile emulator echo send hi',
    ],
    SIGNED_IN_EXITS,
  );
}

function authInfo(echo: Command, ctx: Context): void {
  examples(
    withJson(tokenOptions(echo.command('auth-info').description('call /auth/info/* with a bearer token of the chosen scheme; prints {id, email}'))).action(
      runs(ctx, async (ctx, opts: EchoTokenOptions) => (await authInfoModule()).runEchoAuthInfo(ctx, opts)),
    ),
    [
      'lanyard echo auth-info --scheme vendor-jwt --credentials sa.json --audience echo-api.example.com',
      'lanyard echo auth-info --scheme service-account -c sa.json --json',
      'lanyard echo auth-info --scheme id-token',
      'lanyard echo auth-info --scheme app-platform --project my-project --no-browser',
    ],
    SIGNED_IN_EXITS,
  );
}

function token(echo: Command, ctx: Context): void {
  examples(
    withJson(tokenOptions(echo.command('token').description('print the bearer token a scheme would send (for curl); --json adds its expiry'))).action(
      runs(ctx, async (ctx, opts: EchoTokenOptions) => (await authInfoModule()).runEchoToken(ctx, opts)),
    ),
    [
      'lanyard echo token --scheme service-account -c sa.json',
      'lanyard echo token --scheme id-token --json',
      'curl -H "Authorization: Bearer $(lanyard echo token --scheme service-account -c sa.json)" "$URL/auth/info/vendorjwt"',
    ],
    SIGNED_IN_EXITS,
  );
}

/** `echo key` and its set, status and delete. */
function key(echo: Command, ctx: Context): void {
  const cmd = echo
    .command('key')
    .description('manage the API key of the echo API (OS keychain, or a 0600 file with LANYARD_INSECURE_STORAGE=1; LANYARD_API_KEY wins)');
  commandGroup(
    cmd,
    ctx,
    [keySet, keyStatus, keyDelete],
    ['printf %s "$API_KEY" | lanyard echo key set', 'lanyard echo key status --json', 'lanyard echo key delete'],
  );
}

function keySet(key: Command, ctx: Context): void {
  examples(
    key
      .command('set')
      .description("store the API key read from stdin (asked for without echo at a terminal) for the profile's echo API")
      .action(runs(ctx, async (ctx, opts: EchoKeyOptions) => (await keyModule()).runEchoKeySet(ctx, opts))),
    ['printf %s "$API_KEY" | lanyard echo key set', 'lanyard echo key set < key.txt'],
    LOCAL_EXITS,
  );
}

function keyStatus(key: Command, ctx: Context): void {
  examples(
    withJson(key.command('status').description('show where the API key comes from (masked); exit 4 when there is none')).action(
      runs(ctx, async (ctx) => (await keyModule()).runEchoKeyStatus(ctx)),
    ),
    ['lanyard echo key status', 'lanyard echo key status --json'],
    [0, 1, 2, [4, 'no API key'], 130, 143],
  );
}

function keyDelete(key: Command, ctx: Context): void {
  examples(
    key
      .command('delete')
      .description("delete the stored API key of the profile's echo API")
      .action(runs(ctx, async (ctx, opts: EchoKeyOptions) => (await keyModule()).runEchoKeyDelete(ctx, opts))),
    ['lanyard echo key delete'],
    LOCAL_EXITS,
  );
}
