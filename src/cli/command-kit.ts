/**
 * What every command declaration shares: the `--json`/`--ndjson` options and
 * the "Examples:" block. Command modules import this, never program.ts.
 */
import { InvalidArgumentError, type Command } from 'commander';

/** Adds the shared `--json` option (and `--ndjson` for streams) to a command, with `--jq` and `--template`. */
export function withJson(cmd: Command, opts: { ndjson?: boolean } = {}): Command {
  cmd.option('--json', 'print JSON for scripts');
  if (opts.ndjson) cmd.option('--ndjson', 'print one JSON object per line as items arrive');
  return withShaping(cmd, opts);
}

/**
 * `--jq` and `--template` (src/cli/shape/), for a command that prints JSON;
 * program.ts's preAction hook sets them up before the action runs.
 */
export function withShaping(cmd: Command, opts: { ndjson?: boolean } = {}): Command {
  const each = opts.ndjson ? ' (with --ndjson: to each item)' : '';
  cmd.option('-q, --jq <expression>', `filter the JSON with a jq expression${each}; strings print raw`);
  cmd.option('-t, --template <text>', `format the JSON with a Liquid template${each} (see docs/scripts-and-ci.md)`);
  return cmd;
}

/** Appends an "Examples:" block to a command's help. */
export function examples(cmd: Command, lines: string[]): Command {
  cmd.addHelpText('after', `\nExamples:\n${lines.map((l) => `  $ ${l}`).join('\n')}\n`);
  return cmd;
}

/**
 * How Lanyard identifies itself to a protocol server's authorization server,
 * beyond `--client-id` and `--client-credentials`: declared alike on
 * `protocol request` and `auth login --server`.
 */
export function withProtocolClientOptions(cmd: Command): Command {
  return cmd
    .option('--client-key <file>', 'PEM private key of the --client-id client (private_key_jwt client authentication)')
    .option('--client-metadata-url <url>', "HTTPS URL of Lanyard's client ID metadata document, used where the server accepts one")
    .option('--idp-token-endpoint <url>', "cross-app access: your identity provider's token endpoint (ID token from LANYARD_ID_TOKEN or stdin)")
    .option('--idp-client-id <id>', 'cross-app access: the client id at your identity provider')
    .option(
      '--workload-token-file <file>',
      "workload identity: a file holding the platform's JWT for the authorization server (JWT-bearer grant, with --client-id; or LANYARD_WORKLOAD_TOKEN)",
    )
    .option(
      '--dpop',
      'ask for DPoP-bound tokens (RFC 9449) even where the authorization server does not advertise them (default: when it does; LANYARD_DPOP=1|0)',
    )
    .option('--no-dpop', 'never ask for DPoP-bound tokens')
    .option('--resource <url>', "identity providers that deviate: send this RFC 8707 resource instead of the server's")
    .option('--no-resource', 'identity providers that deviate: send no resource parameter')
    .option('--auth-param <name=value>', 'identity providers that deviate: add this parameter to the authorization request (repeatable)', collectParam, {})
    .option('--authorization-endpoint <url>', 'identity providers that deviate: use this authorization endpoint instead of the discovered one')
    .option('--token-endpoint <url>', 'identity providers that deviate: use this token endpoint instead of the discovered one');
}

/** `--auth-param name=value`, repeatable, into one record. */
function collectParam(v: string, prev: Record<string, string>): Record<string, string> {
  const i = v.indexOf('=');
  if (i < 1) throw new InvalidArgumentError('expected name=value');
  return { ...prev, [v.slice(0, i)]: v.slice(i + 1) };
}
