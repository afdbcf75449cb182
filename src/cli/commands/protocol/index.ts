/** `lanyard protocol`: call context-protocol servers (JSON-RPC over HTTP, OAuth 2.1). */
import { Command, Option } from 'commander';
import { Protocol } from '../../../shared/constants.js';
import type { Context } from '../../context.js';
import { commandGroup, examples, withJson, withProtocolClientOptions, runs, LOCAL_EXITS, SIGNED_IN_EXITS } from '../../command-kit.js';
import type { ProtocolBridgeOptions, ProtocolRequestOptions } from './options.js';
import { paged } from '../../output/pager.js';

/** The group's line in `lanyard --help` (program.ts lists groups without declaring them): one line, what it does. */
export const summary = 'call context-protocol servers; bridge them to stdio';

/** Its own help's description: the detail. */
const description = 'call context-protocol servers (OAuth 2.1 with discovery, registration, PKCE)';

const BRIDGE_HELP = `
stdout carries only JSON-RPC messages; every notice (the sign-in URL, errors,
--debug traces) goes to stderr, which hosts show in their logs. Tokens are kept
in the OS keychain (else the 0600 credentials file) and refreshed; bridges
started together for one server share one sign-in and one refresh.
Servers of every revision Lanyard speaks: a stateless 2026-07-28 server
(found with server/discover) is spoken to without a session while the host
keeps its initialize; the server's input requests go to the host. A host
that speaks 2026-07-28 itself (server/discover or _meta, no initialize) is
passed through as it is, input_required included; to a server that needs the
handshake its server/discover is answered method-not-found (it falls back).

Host configuration (e.g. claude_desktop_config.json, .cursor/mcp.json):
  {
    "mcpServers": {
      "tools": {
        "command": "lanyard",
        "args": ["protocol", "bridge", "https://tools.example.com/mcp"]
      }
    }
  }
`;

export function protocolCommand(ctx: Context): Command {
  return commandGroup(
    new Command('protocol').summary(summary).description(description),
    ctx,
    [request, bridge, forget],
    [
      'lanyard protocol request https://tools.example.com/mcp',
      'lanyard --profile emulator protocol request --method tools/list --json',
      'lanyard auth login --server https://tools.example.com/mcp',
    ],
  );
}

function request(protocol: Command, ctx: Context): void {
  examples(
    paged(
      withJson(
        withProtocolClientOptions(
          protocol
            .command('request')
            .description('send one JSON-RPC request (after initialize); signs in when the server answers 401')
            .argument('[server-url]', "the protocol server, e.g. https://tools.example.com/mcp (default: the profile's protocol.serverUrl)")
            .option('-m, --method <name>', 'JSON-RPC method', 'initialize')
            .option('--params <json>', 'JSON-RPC params (a JSON object or array)')
            .option('-s, --scopes <scopes>', 'space-separated scopes to request if sign-in is needed')
            .option('--client-id <id>', 'pre-registered client id (servers without registration)')
            .option('--client-credentials', 'sign in with the client-credentials grant (secret from LANYARD_CLIENT_SECRET or stdin)'),
        )
          .option('--elicitation <mode>', 'answer server questions: prompt (default on a terminal), decline (default elsewhere), defaults')
          .option('--no-browser', 'print the authorization URL instead of opening a browser')
          .option('--timeout <duration>', 'give up waiting for the browser after this long (default: 5m)')
          .addOption(
            new Option(
              '--protocol-version <revision>',
              'speak this protocol revision instead of choosing one (a stateless one, or the one initialize offers)',
            ).choices([...Protocol.statelessRevisions, ...Protocol.revisions]),
          ),
      ),
    ).action(
      runs(ctx, async (ctx, url: string | undefined, opts: ProtocolRequestOptions) => (await import('./request.js')).runProtocolRequest(ctx, url, opts)),
    ),
    [
      'lanyard protocol request https://tools.example.com/mcp',
      'lanyard --profile emulator protocol request --method tools/list',
      'lanyard protocol request https://tools.example.com/mcp --method tools/list --json',
      `lanyard protocol request http://127.0.0.1:8080/mcp --method tools/call --params '{"name":"echo","arguments":{"text":"hi"}}'`,
    ],
    SIGNED_IN_EXITS,
  );
}

function bridge(protocol: Command, ctx: Context): void {
  examples(
    withProtocolClientOptions(
      protocol
        .command('bridge')
        .description("a remote protocol server as a host's local (stdio) server: JSON-RPC lines on stdin/stdout, signs in when needed")
        .argument('<server-url>', 'the protocol server, e.g. https://tools.example.com/mcp')
        .option('-s, --scopes <scopes>', 'space-separated scopes to request if sign-in is needed')
        .option('--client-id <id>', 'pre-registered client id (servers without registration)')
        .option('--client-credentials', 'sign in with the client-credentials grant (secret from LANYARD_CLIENT_SECRET)'),
    )
      .option('--no-browser', 'print the authorization URL on stderr instead of opening a browser')
      .option('--timeout <duration>', 'give up waiting for the browser after this long (default: 5m)')
      .option('--sign-in-wait <duration>', 'answer a host request with an error when a sign-in keeps it waiting this long (default: 45s)')
      .addHelpText('after', BRIDGE_HELP)
      .action(runs(ctx, async (ctx, url: string, opts: ProtocolBridgeOptions) => (await import('./bridge.js')).runProtocolBridge(ctx, url, opts))),
    [
      'lanyard protocol bridge https://tools.example.com/mcp',
      'lanyard protocol bridge https://tools.example.com/mcp --client-id ctx-cli --scopes "tools:read tools:call"',
    ],
    [[0, 'the host closed stdin or stopped the bridge (Ctrl-C, SIGTERM)'], 1, 2, 4],
  );
}

function forget(protocol: Command, ctx: Context): void {
  examples(
    protocol
      .command('forget')
      .description("forget a server's tokens and Lanyard's registration at its authorization server (the next call registers again)")
      .argument('<server-url>', 'the protocol server, e.g. https://tools.example.com/mcp')
      .action(runs(ctx, async (ctx, url: string) => (await import('./forget.js')).runProtocolForget(ctx, url))),
    ['lanyard protocol forget https://tools.example.com/mcp'],
    LOCAL_EXITS,
  );
}
