/** `lanyard protocol request`: one JSON-RPC call, signing in on the way when needed. */
import type { Context } from '../../context.js';
import { ConfigError, LanyardError } from '../../../core/errors.js';
import { parseServerUrl } from '../../../core/protocol/endpoints.js';
import { callProtocolServer } from '../../../core/protocol/session.js';
import { sanitize } from '../../output/output.js';
import { UsageError } from '../../errors/usage-error.js';
import { exitCodeFor } from '../../errors/exit.js';
import type { ProtocolRequestOptions } from './options.js';
import { protocolAuthExtras, protocolDeps } from '../../services/protocol/wiring.js';

export async function runProtocolRequest(ctx: Context, url: string | undefined, o: ProtocolRequestOptions): Promise<void> {
  const serverUrl = url ?? (await ctx.profile()).settings['protocol.serverUrl'];
  if (!serverUrl) {
    throw new ConfigError('no protocol server given and the profile has no protocol.serverUrl', {
      hint: 'pass the server URL, or run `lanyard config set protocol.serverUrl https://…/mcp`',
    });
  }
  parseServerUrl(serverUrl);
  const method = o.method === undefined ? 'initialize' : o.method.trim();
  if (!method || /[\s\u0000-\u001f\u007f]/.test(method)) throw new UsageError(`--method: ${JSON.stringify(o.method)} is not a method name (e.g. tools/list)`);
  let params: unknown;
  if (o.params !== undefined) {
    try {
      params = JSON.parse(o.params);
    } catch {
      throw new UsageError('--params must be JSON (an object or an array)');
    }
    if (!params || typeof params !== 'object') throw new UsageError('--params must be a JSON object or array');
  }
  const deps = await protocolDeps(ctx, o);
  const r = await callProtocolServer(deps, {
    serverUrl,
    method,
    params,
    scopes: o.scopes,
    clientId: o.clientId,
    clientCredentials: o.clientCredentials,
    clientInfo: { name: 'lanyard', version: ctx.version },
    revision: o.protocolVersion,
    auth: await protocolAuthExtras(o, ctx.env, ctx.signal),
  });
  if (ctx.debug && r.sessionId) ctx.io.err(`* session ${r.sessionId}`);
  const err = r.response.error;
  const failure = err && new LanyardError('rpc_error', `${method} failed: server error ${err.code}: ${sanitize(String(err.message))}`);
  // Said before the response is written: a reader that stops early (`| head`) still sees the failure's status.
  if (failure) ctx.exitWith(exitCodeFor(failure));
  // A program gets the whole JSON-RPC response, an error too (then the exit status); a person the result.
  ctx.output.document(r.response, (response) => {
    if (response.error) return;
    if (method === 'initialize') printInitialize(ctx, response.result, r.sessionId, r.revision);
    else ctx.output.document(response.result ?? null);
  });
  if (failure) throw failure;
}

/** The answer to initialize, or in a stateless revision to server/discover (serverInfo in _meta, no session). */
function printInitialize(ctx: Context, result: unknown, sessionId: string | undefined, revision: string | undefined): void {
  const raw = (result ?? {}) as Record<string, unknown> & { _meta?: Record<string, unknown> };
  const r = {
    ...raw,
    protocolVersion: raw.protocolVersion ?? revision,
    serverInfo: raw.serverInfo ?? raw._meta?.['io.modelcontextprotocol/serverInfo'],
  } as {
    protocolVersion?: string;
    serverInfo?: { name?: string; version?: string };
    capabilities?: Record<string, unknown>;
    instructions?: string;
  };
  const lines = [
    `server:       ${sanitize(`${r.serverInfo?.name ?? '?'} ${r.serverInfo?.version ?? ''}`.trim())}`,
    `protocol:     ${sanitize(String(r.protocolVersion ?? '?'))}`,
    `capabilities: ${
      Object.keys(r.capabilities ?? {})
        .map(sanitize)
        .join(', ') || '(none)'
    }`,
  ];
  if (sessionId) lines.push(`session:      ${sanitize(sessionId)}`);
  if (r.instructions) lines.push(`instructions: ${sanitize(r.instructions)}`);
  ctx.io.out(lines.join('\n'));
}
