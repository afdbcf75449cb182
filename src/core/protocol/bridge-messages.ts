/** The messages the bridge (bridge.ts) reads and makes itself: which revision a host speaks, an initialize answer, a one-line reason. */
import { AuthRequiredError, HttpError, LanyardError } from '../errors.js';
import { Protocol } from '../../shared/constants.js';
import type { JsonRpcRequestWire } from '../../shared/protocol.js';

/** A request of a host that speaks 2026-07-28 itself: `server/discover`, or `_meta` naming a protocol version (no revision with the handshake has that key). */
export function speaksStateless(m: JsonRpcRequestWire): boolean {
  if (m.method === 'server/discover') return true;
  const meta = (m.params as { _meta?: unknown } | undefined)?._meta;
  return !!meta && typeof meta === 'object' && typeof (meta as Record<string, unknown>)[Protocol.meta.protocolVersion] === 'string';
}

export function isClientInfo(v: unknown): v is { name: string; version: string } {
  return !!v && typeof v === 'object' && typeof (v as { name?: unknown }).name === 'string' && typeof (v as { version?: unknown }).version === 'string';
}

/**
 * The host's `initialize` answered from a stateless server's discovery: the
 * revision the host asked for when Lanyard speaks it (else Lanyard's newest
 * with the handshake), the server's capabilities, identity and instructions.
 */
export function initializeAnswer(discovered: unknown, asked: unknown): Record<string, unknown> {
  const d = (discovered ?? {}) as { capabilities?: unknown; instructions?: unknown; _meta?: Record<string, unknown> };
  const serverInfo = d._meta?.['io.modelcontextprotocol/serverInfo'];
  return {
    protocolVersion: (Protocol.revisions as readonly unknown[]).includes(asked) ? asked : Protocol.revisions[0],
    capabilities: d.capabilities && typeof d.capabilities === 'object' ? d.capabilities : {},
    serverInfo: isClientInfo(serverInfo) ? serverInfo : { name: 'lanyard-bridge', version: '0' },
    ...(typeof d.instructions === 'string' ? { instructions: d.instructions } : {}),
  };
}

/** A one-line reason for the host and the log (no stack, no body beyond the error's own message). */
export function messageOf(err: unknown, serverUrl: string): string {
  if (err instanceof AuthRequiredError) return `${err.message}${err.hint ? ` (${err.hint})` : ''}`;
  if (err instanceof HttpError) return `${serverUrl} answered HTTP ${err.status}`;
  if (err instanceof LanyardError) return err.message;
  return err instanceof Error ? err.message : String(err);
}
