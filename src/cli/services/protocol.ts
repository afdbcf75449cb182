/** Wires the protocol core to the terminal: HTTP, credential store, browser, stdin secret, notices. */
import type { Context } from '../context.js';
import type { ProtocolAuthDeps } from '../../core/protocol/flow.js';
import { ProtocolCredentials } from '../../core/protocol/store.js';
import { parseDuration } from '../output.js';
import { readStdinSecret } from '../stdin.js';
import { requirePerson } from '../interactive.js';

export interface ProtocolCliOptions {
  browser?: boolean;
  timeout?: string;
}

export async function protocolDeps(ctx: Context, o: ProtocolCliOptions = {}): Promise<ProtocolAuthDeps> {
  const [http, store] = await Promise.all([ctx.http(), ctx.credentials()]);
  const timeoutMs = parseDuration(o.timeout ?? '5m', '--timeout');
  let secret: Promise<string | undefined> | undefined;
  return {
    http,
    credentials: new ProtocolCredentials(store),
    clock: ctx.clock,
    signal: ctx.signal,
    loopbackTimeoutMs: timeoutMs,
    notify: (line) => ctx.io.err(line),
    clientSecret: () => (secret ??= readClientSecret(ctx)),
    async presentAuthorizationUrl(url) {
      const server = new URL(url).searchParams.get('resource') ?? '<server-url>';
      requirePerson(
        ctx,
        'the browser sign-in to the protocol server',
        `run \`lanyard auth login --server ${server}\` once at a terminal (the token is stored and refreshed), or use \`lanyard auth login --server ${server} --client-credentials\` with LANYARD_CLIENT_SECRET`,
      );
      ctx.io.err(`Open this URL in a browser to authorize Lanyard:\n  ${url}`);
      if (o.browser === false) return;
      const opened = await (await ctx.browser()).open(url);
      if (!opened) ctx.warn('could not start a browser; open the URL above yourself');
      ctx.io.err('Waiting for the browser to come back…');
    },
  };
}

/** The client secret: LANYARD_CLIENT_SECRET, else stdin when it is not a terminal. Never argv. */
async function readClientSecret(ctx: Context): Promise<string | undefined> {
  const env = ctx.env.LANYARD_CLIENT_SECRET;
  if (env) return env;
  if (ctx.io.stdinIsTTY) return undefined;
  return (await readStdinSecret(ctx.io, 'the client secret')) || undefined;
}
