/**
 * `lanyard auth`: one group for every service's sign-in. Hosting is the
 * default; `--server URL` selects a context-protocol server (protocol module),
 * `--health` the service-health API (health module).
 */
import { Command, Option } from 'commander';
import type { Context } from '../../context.js';
import { commandGroup, examples, withJson, withProtocolClientOptions, runs, LOCAL_EXITS, SIGNED_IN_EXITS } from '../../command-kit.js';
import type {
  AuthLoginOptions,
  AuthDeviceOptions,
  AuthTokenOptions,
  AuthTokenCreateOptions,
  AuthStatusOptions,
  AuthSetupGitOptions,
  AuthLogoutOptions,
  AuthSwitchOptions,
  AuthRefreshOptions,
} from './options.js';

/** The group's line in `lanyard --help` (program.ts lists groups without declaring them): one line, what it does. */
export const summary = 'sign in to the services and manage tokens';

/** Its own help's description: the detail. */
const description = 'sign in to the hosting service, context-protocol servers and the health API; manage tokens';

/** The hosting commands' run module (loaded when one of them runs). */
const hosting = () => import('./run.js');
const git = () => import('./git.js');

export function authCommand(ctx: Context): Command {
  const subcommands = [device, login, token, status, refresh, switchAccount, logout, gitCredential, setupGit];
  return commandGroup(new Command('auth').summary(summary).description(description), ctx, subcommands, [
    'lanyard auth device',
    'echo "$TOKEN" | lanyard auth token --with-token',
    'lanyard auth login --server https://tools.example.com/mcp',
    'lanyard auth login --health',
    'lanyard auth status --json',
    'lanyard auth switch --user mona',
    'lanyard auth refresh --scopes read:org',
    'lanyard auth logout --user mona',
  ]);
}

/** `auth device`: the hosting device flow. */
function device(auth: Command, ctx: Context): void {
  examples(
    auth
      .command('device')
      .description('sign in to the hosting service with the device flow (the default interactive path)')
      .option('-s, --scopes <scopes>', 'space-separated scopes to request')
      .option('--no-browser', 'do not open a browser; just print the code and URL')
      .option('--insecure-storage', 'store the token in a 0600 file instead of the OS keychain')
      .addHelpText(
        'after',
        // One paragraph: the help wraps it to its width (output/help-wrap.ts).
        '\nWithout a terminal (ssh without -t, CI) it still runs: the code and URL go to stderr (in CI also a ' +
          '{"event":"device_code"} line), it polls until approved (exit 0), denied or expired (exit 4); ' +
          'Ctrl-C exits 130, SIGTERM 143, nothing stored. LANYARD_PROMPT_DISABLED=1 refuses it (exit 4).',
      )
      .action(runs(ctx, async (ctx, opts: AuthDeviceOptions) => (await hosting()).runAuthDevice(ctx, opts))),
    ['lanyard auth device', 'lanyard auth device --scopes "repo read:org" --no-browser', 'ssh build-host lanyard auth device'],
    SIGNED_IN_EXITS,
  );
}

/** `auth login`: the hosting web flow, a protocol server (`--server`) or the health API (`--health`). */
function login(auth: Command, ctx: Context): void {
  examples(
    withProtocolClientOptions(
      auth
        .command('login')
        .description('sign in with the web flow in a browser (hosting), or to a protocol server (--server) or the health API (--health)')
        .option('-s, --scopes <scopes>', 'space-separated scopes to request')
        .option('--no-browser', 'print the URL instead of opening a browser')
        .option('--login <user>', 'suggest an account to sign in with (hosting)')
        .option('--no-signup', 'do not offer sign-up during the flow (hosting)')
        .option('--select-account', 'force the account picker (hosting)')
        .option('--timeout <duration>', 'give up waiting for the browser after this long (default: 5m)')
        .option('--insecure-storage', 'store tokens in a 0600 file instead of the OS keychain')
        .option('--server <url>', 'sign in to this context-protocol server')
        .option('--client-id <id>', 'pre-registered client id (protocol servers without registration)')
        .option('--client-credentials', 'client-credentials grant, no browser (protocol servers; secret from LANYARD_CLIENT_SECRET or stdin)'),
    )
      .addOption(
        new Option(
          '--device',
          "protocol servers: the device authorization grant (a code to enter on another device), where the server's authorization server offers it",
        ).conflicts(['clientCredentials']),
      )
      .addOption(new Option('--health', 'sign in to the service-health API (implicit flow)').conflicts(['server']))
      .action(runs(ctx, (ctx, opts: AuthLoginOptions) => runLogin(ctx, opts))),
    [
      'LANYARD_CLIENT_SECRET="$CLIENT_SECRET" lanyard auth login',
      'lanyard auth login --server https://tools.example.com/mcp',
      'ssh build-host lanyard auth login --server https://tools.example.com/mcp --device',
      'lanyard auth login --server https://tools.example.com/mcp --client-id ci-bot --client-key ci-bot.pem --client-credentials',
      'lanyard auth login --health',
    ],
    SIGNED_IN_EXITS,
  );
}

/** The options of `auth login` that only a protocol server's sign-in reads. */
const PROTOCOL_ONLY = [
  'clientKey',
  'clientMetadataUrl',
  'idpTokenEndpoint',
  'idpClientId',
  'workloadTokenFile',
  'dpop',
  'device',
  'resource',
  'authorizationEndpoint',
  'tokenEndpoint',
] as const;

async function runLogin(ctx: Context, opts: AuthLoginOptions): Promise<void> {
  if (opts.server) return (await import('./protocol.js')).runProtocolLogin(ctx, opts);
  const given = PROTOCOL_ONLY.find((k) => opts[k] !== undefined);
  if (given) {
    const flag = `--${given.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
    throw new (await import('../../errors/usage-error.js')).UsageError(`${flag} applies to protocol servers (--server)`);
  }
  if (opts.health) return (await import('./health.js')).runHealthLogin(ctx, opts);
  return (await hosting()).runAuthLogin(ctx, opts);
}

/** `auth token` (print or store a token) and its `auth token create`. */
function token(auth: Command, ctx: Context): void {
  const cmd = auth
    .command('token')
    .description('print the active token (for $(lanyard auth token)); --with-token stores one read from stdin')
    .option('--with-token', 'read a token from stdin (asked for without echo at a terminal), validate it and store it (hosting)')
    .option('-u, --user <login>', 'the token of this stored hosting account instead of the active one')
    .addOption(
      new Option('--hostname <host>', "the token of this host's stored account, as `auth status` shows the host (default: the profile's API host)").conflicts([
        'withToken',
      ]),
    )
    .addOption(new Option('--server <url>', 'the token of this context-protocol server').conflicts(['user', 'hostname']))
    .addOption(new Option('--health', 'the service-health token').conflicts(['user', 'hostname']))
    .option('--insecure-storage', 'store in a 0600 file instead of the OS keychain')
    .action(
      runs(ctx, async (ctx, opts: AuthTokenOptions) => {
        if (opts.server) return (await import('./protocol.js')).runProtocolToken(ctx, opts);
        if (opts.health) return (await import('./health.js')).runHealthToken(ctx, opts);
        return (await hosting()).runAuthToken(ctx, opts);
      }),
    );
  examples(
    cmd,
    [
      'export TOKEN=$(lanyard auth token)',
      'export TOKEN=$(lanyard auth token --user mona)',
      'lanyard auth token --hostname github.example.com',
      'echo "$MY_TOKEN" | lanyard auth token --with-token',
      'lanyard auth token create --user mona --scopes repo --note ci',
    ],
    SIGNED_IN_EXITS,
  );
  tokenCreate(cmd, ctx);
}

/** `auth token create`: a personal access token with Basic authentication. */
function tokenCreate(token: Command, ctx: Context): void {
  examples(
    token
      .command('create')
      .description('create a personal access token with Basic authentication (non-web flow); password from a hidden prompt or stdin')
      .option('-u, --user <login>', 'the account (required)')
      .option('-s, --scopes <scopes>', 'space-separated scopes')
      .option('--note <text>', 'what the token is for')
      .option('--insecure-storage', 'store in a 0600 file instead of the OS keychain')
      // commander gives `--user` and `--insecure-storage` to `token` (which has them too) wherever they stand.
      .action(
        runs(ctx, async (ctx, opts: Partial<AuthTokenCreateOptions>) => {
          const parent = token.opts<AuthTokenOptions>();
          const user = opts.user ?? parent.user;
          if (!user) throw new (await import('../../errors/usage-error.js')).UsageError("required option '-u, --user <login>' not specified");
          return (await hosting()).runAuthTokenCreate(ctx, { ...opts, user, insecureStorage: opts.insecureStorage || parent.insecureStorage });
        }),
      ),
    ['lanyard auth token create --user mona --scopes "repo gist" --note laptop', 'printf %s "$PASSWORD" | lanyard auth token create --user mona'],
    SIGNED_IN_EXITS,
  );
}

function status(auth: Command, ctx: Context): void {
  examples(
    withJson(
      auth
        .command('status')
        .description('show every account and server Lanyard can authenticate as; exit 4 when none is valid (3 or 1 when it could not be checked)'),
    )
      .option('--show-token', 'print tokens in full instead of masked')
      .option(
        '--expires-within <duration>',
        'exit 4 when a credential in use here expires (or is invalid) within this long, e.g. 7d or 12h; 3 or 1 when it could not be checked; else 0',
      )
      // Its own module, not run.js: that one loads every sign-in flow, which `auth status` never runs.
      .action(runs(ctx, async (ctx, opts: AuthStatusOptions) => (await import('./status.js')).runAuthStatus(ctx, opts))),
    ['lanyard auth status', 'lanyard auth status --json', 'lanyard auth status --expires-within 30m'],
    [0, 1, 2, [4, 'no valid credential, or one in use expires within --expires-within'], 130, 143],
  );
}

function refresh(auth: Command, ctx: Context): void {
  examples(
    auth
      .command('refresh')
      .description(
        'sign the account in use in again (device flow; --web: the browser) with its scopes plus --scopes, replacing its token in place — also an expired one',
      )
      .option('-s, --scopes <scopes>', 'scopes to add to those the token has (space- or comma-separated)')
      .option('-u, --user <login>', 'the stored account to refresh (default: the one in use here)')
      .option('--web', 'use the web flow in a browser (needs LANYARD_CLIENT_SECRET) instead of the device flow')
      .option('--no-browser', 'do not open a browser; just print the code or URL')
      .option('--timeout <duration>', 'with --web: give up waiting for the browser after this long (default: 5m)')
      .addHelpText('after', '\nWithout a terminal it runs as `auth device` does (code and URL on stderr); LANYARD_PROMPT_DISABLED=1 refuses it (exit 4).')
      .action(runs(ctx, async (ctx, opts: AuthRefreshOptions) => (await import('./refresh.js')).runAuthRefresh(ctx, opts))),
    ['lanyard auth refresh', 'lanyard auth refresh --scopes "read:org workflow"', 'printf %s "$CLIENT_SECRET" | lanyard auth refresh --user mona --web'],
    SIGNED_IN_EXITS,
  );
}

function switchAccount(auth: Command, ctx: Context): void {
  examples(
    auth
      .command('switch')
      .description('make another stored hosting account the active one (with two, the other; with more, --user or a prompt)')
      .option('--hostname <host>', "the host whose accounts to switch, as `auth status` shows it (default: the profile's API host)")
      .option('-u, --user <login>', 'the account to make active')
      .option('--dir <dir>', 'bind the --user account to this directory (commands run in it or below use it; symlinks resolved) instead of making it active')
      .action(runs(ctx, async (ctx, opts: AuthSwitchOptions) => (await import('./switch.js')).runAuthSwitch(ctx, opts))),
    ['lanyard auth switch', 'lanyard auth switch --user mona', 'lanyard auth switch --user mona-work --dir ~/src/work'],
    LOCAL_EXITS,
  );
}

function logout(auth: Command, ctx: Context): void {
  examples(
    auth
      .command('logout')
      .description('delete a stored token (hosting by default) and show where to revoke the grant')
      .option('-u, --user <login>', 'hosting account to sign out (default: the only one; with several, a prompt); its directory bindings go too')
      .addOption(new Option('--dir <dir>', "remove this directory's hosting account binding (the token stays stored)").conflicts(['server', 'health']))
      .option('--server <url>', 'forget the tokens of this context-protocol server')
      .option('--health', 'forget the service-health token')
      .action(
        runs(ctx, async (ctx, opts: AuthLogoutOptions) => {
          if (opts.server) return (await import('./protocol.js')).runProtocolLogout(ctx, opts);
          if (opts.health) return (await import('./health.js')).runHealthLogout(ctx, opts);
          return (await hosting()).runAuthLogout(ctx, opts);
        }),
      ),
    ['lanyard auth logout', 'lanyard auth logout --dir ~/src/work', 'lanyard auth logout --server https://tools.example.com/mcp'],
    LOCAL_EXITS,
  );
}

function gitCredential(auth: Command, ctx: Context): void {
  examples(
    auth
      .command('git-credential')
      .description("git's credential helper for the hosting service's web host (set up by `lanyard auth setup-git`)")
      .argument('<operation>', 'get, store or erase (git passes it)')
      .action(runs(ctx, async (ctx, operation: string) => (await git()).runGitCredential(ctx, operation))),
    ["printf 'protocol=https\\nhost=github.com\\n\\n' | lanyard auth git-credential get"],
    LOCAL_EXITS,
  );
}

function setupGit(auth: Command, ctx: Context): void {
  examples(
    auth
      .command('setup-git')
      .description('configure git to use Lanyard as the credential helper of the hosting web host (credential.<url>.helper)')
      .option('--hostname <host>', "the host to configure (default: the host of the profile's hosting.webUrl)")
      .action(runs(ctx, async (ctx, opts: AuthSetupGitOptions) => (await git()).runSetupGit(ctx, opts))),
    ['lanyard auth setup-git', 'lanyard --profile work auth setup-git --hostname git.example.com'],
    LOCAL_EXITS,
  );
}
