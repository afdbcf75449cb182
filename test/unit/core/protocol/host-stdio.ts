/** The host's end of a bridge's stdio in process (runBridge's ports), for the bridge's unit tests. */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Clock } from '../../../../src/core/deps.js';
import type { HttpClient } from '../../../../src/core/http/client.js';
import type { runBridge } from '../../../../src/core/protocol/bridge.js';
import { ProtocolCredentials } from '../../../../src/core/protocol/store.js';
import type { JsonRpcRequestWire, JsonRpcResponseWire } from '../../../../src/shared/protocol.js';
import { MemoryCredentialStore } from '../../../fakes/credential-store.js';

/** The host's side of stdin: lines pushed by the test, ended when it says. */
export function hostLines() {
  const queue: string[] = [];
  let wake: (() => void) | undefined;
  let ended = false;
  return {
    push(m: unknown) {
      this.raw(JSON.stringify(m));
    },
    raw(line: string) {
      queue.push(line);
      wake?.();
    },
    end() {
      ended = true;
      wake?.();
    },
    async *[Symbol.asyncIterator](): AsyncGenerator<string> {
      for (;;) {
        while (queue.length) yield queue.shift()!;
        if (ended) return;
        await new Promise<void>((r) => (wake = r));
        wake = undefined;
      }
    },
  };
}

/**
 * The protocol SDK's client transport on the host's side: what the SDK sends
 * becomes the bridge's lines; what the bridge sends goes through JSON, as it
 * would through stdout, to the SDK.
 */
export function sdkStdio() {
  const lines = hostLines();
  const transport: Transport = {
    async start() {},
    async send(m: JSONRPCMessage) {
      lines.push(m);
    },
    async close() {
      lines.end();
      transport.onclose?.();
    },
  };
  const send = (m: unknown) => queueMicrotask(() => transport.onmessage?.(JSON.parse(JSON.stringify(m)) as JSONRPCMessage));
  return { lines, send, transport };
}

/** The deps of a bridge that never signs anyone in (memory store, no browser), over `http` and `clock`. */
export function quietBridgeDeps(http: HttpClient, clock: Clock) {
  return {
    http,
    clock,
    credentials: new ProtocolCredentials(new MemoryCredentialStore()),
    loopbackTimeoutMs: 1000,
    clientSecret: async () => undefined,
    presentAuthorizationUrl: async () => undefined,
  };
}

/**
 * A bridge (`run`: runBridge) to `serverUrl` whose host has said initialize
 * (2025-06-18, the handshake) and been answered: its stdin, what it was sent,
 * its end.
 */
export async function handshakeHost(run: typeof runBridge, deps: ReturnType<typeof quietBridgeDeps> & { notify?: (line: string) => void }, serverUrl: string) {
  const lines = hostLines();
  const sent: Array<JsonRpcRequestWire | JsonRpcResponseWire> = [];
  const done = run(deps, { serverUrl, clientInfo: { name: 'lanyard', version: '0' }, signInWaitMs: 5000 }, { lines, send: (m) => void sent.push(m) });
  lines.push({
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'h', version: '1' } },
  });
  for (let i = 0; i < 1000 && !sent.some((m) => 'id' in m && m.id === 0); i++) await new Promise((r) => setTimeout(r, 5));
  return { lines, sent, done };
}
