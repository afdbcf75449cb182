/** `lanyard protocol bridge URL`: a host's stdio server that is a remote protocol server (core/protocol/bridge.ts does the work). */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
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
 * A bridge lives as long as the host, relaying an agent's steady stream of small messages: V8 lets the memory
 * of spent ones grow its young generation (to 16 MiB a semi-space) and keeps what it took. A collection every
 * 200 host lines (a few ms on a heap of ~6 MiB) keeps the resident set flat; bench/bridge.mjs measures it.
 * Best effort: a runtime that refuses --expose-gc changes nothing but memory.
 */
function collectingEvery<T>(lines: AsyncIterable<T>, every: number): AsyncIterable<T> {
  let gc: (() => void) | undefined;
  try {
    setFlagsFromString('--expose-gc');
    gc = runInNewContext('gc') as () => void;
  } catch {
    return lines;
  }
  return (async function* () {
    let n = 0;
    for await (const line of lines) {
      if (++n % every === 0) gc();
      yield line;
    }
  })();
}

export async function runProtocolBridge(ctx: Context, url: string, o: ProtocolBridgeOptions): Promise<void> {
  parseServerUrl(url);
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
      { lines: collectingEvery(rl, 200), send: (m) => ctx.io.out(JSON.stringify(m)), stop: ctx.signal },
    );
  } finally {
    rl.close();
    ctx.io.stdin.destroy();
  }
  // The host stopping the bridge (SIGTERM) is its normal end: exit 0, not 130.
  if (ctx.signal.aborted) throw new ExitStatus(ExitCode.Ok);
}
