/** `lanyard protocol bridge URL`: a host's stdio server that is a remote protocol server (core/protocol/bridge.ts does the work). */
import { setFlagsFromString } from 'node:v8';
import type { Context } from '../../context.js';
import { parseServerUrl } from '../../../core/protocol/endpoints.js';
import { runBridge } from '../../../core/protocol/bridge.js';
import { adviceFor } from '../../errors/hints.js';
import { ExitStatus } from '../../errors/exit.js';
import { ExitCode } from '../../../shared/exit-codes.js';
import { parseDuration } from '../../option-parse.js';
import { protocolAuthExtras, protocolDeps } from '../../services/protocol/wiring.js';
import type { ProtocolBridgeOptions } from './options.js';

/**
 * A bridge lives as long as the host and relays an agent's steady stream of small messages. Its live heap stays
 * at 7-10 MiB after a full collection over 10,000 calls (no per-call object is kept), but two parts of V8 grew
 * the resident set by 25-40 MiB over the first thousand calls and kept it (docs/bridge.md, "Memory"):
 * - the young generation doubles each time enough objects have survived scavenges since it last grew (the
 *   message in flight during each one adds up), from a 1 MiB semi-space to 16 MiB (Node 20) or 32 MiB (24, 26):
 *   held at its first size, a scavenge comes every ~12 calls instead of ~40, ~0.1 ms a call in all;
 * - Maglev, the mid-tier compiler (on by default since Node 22), compiles the relay's ~150 hot functions in one
 *   burst after a few hundred calls: 12-15 MiB of compiler zones at once, which the C allocator keeps. Without
 *   it the hot functions go from the baseline tier to TurboFan, no slower here (bench/bridge.mjs).
 * Set before the first message, so neither has grown yet (Node 20.19 and later know both flags).
 */
function boundBridgeMemory(): void {
  for (const flag of ['--semi-space-growth-factor=1', '--no-maglev']) {
    try {
      setFlagsFromString(flag);
    } catch {
      // A runtime that refuses flags once started: the memory grows as before, nothing else changes.
    }
  }
}

export async function runProtocolBridge(ctx: Context, url: string, o: ProtocolBridgeOptions): Promise<void> {
  parseServerUrl(url);
  boundBridgeMemory();
  const signInWaitMs = parseDuration(o.signInWait ?? '45s', '--sign-in-wait');
  const [deps, auth] = await Promise.all([protocolDeps(ctx, { ...o, stdinIsMessages: true }), protocolAuthExtras(o, ctx.env, ctx.signal)]);
  // A signal from the host ends the bridge as stdin's end does (a sign-in under way is finished); a second one exits at once (main.ts).
  const { createInterface } = await import('node:readline');
  const rl = createInterface({ input: ctx.io.stdin, crlfDelay: Number.POSITIVE_INFINITY, terminal: false });
  try {
    await runBridge(
      {
        ...deps,
        signal: undefined,
        // The library names what the reader can do; the command says it as a Lanyard command line.
        notify: (line, remedy) => {
          const advice = remedy && adviceFor(remedy);
          deps.notify?.(advice ? `${line} (${advice})` : line);
        },
      },
      {
        serverUrl: url,
        scopes: o.scopes,
        clientId: o.clientId,
        clientCredentials: o.clientCredentials,
        clientInfo: { name: 'lanyard', version: ctx.version },
        auth,
        signInWaitMs,
      },
      // JSON.stringify escapes every control character: one message, one line.
      { lines: rl, send: (m) => ctx.io.out(JSON.stringify(m)), stop: ctx.signal },
    );
  } finally {
    rl.close();
    ctx.io.stdin.destroy();
  }
  // The host stopping the bridge (SIGTERM) is its normal end: exit 0, not 130.
  if (ctx.signal.aborted) throw new ExitStatus(ExitCode.Ok);
}
