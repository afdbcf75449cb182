/**
 * The protocol SDK's own stdio client (`StdioClientTransport`) spawning the
 * built CLI's `protocol bridge URL`: what a desktop host does. The SDK reads
 * the bridge's stdout strictly (every line must be a JSON-RPC message; a line
 * that is not is reported through onerror, which the test collects).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { BIN, cleanEnv } from './harness.js';

export interface HostedBridge {
  client: Client;
  transport: StdioClientTransport;
  /** Errors the SDK met reading the bridge (a stdout line that is not JSON-RPC, say). */
  errors: Error[];
  /** The bridge's stderr so far. */
  stderr(): string;
  /** Elicitations the host was asked. */
  elicitations: unknown[];
  /** Closes stdin (the host going away) and waits for the bridge to exit; its exit code. */
  close(): Promise<number | null>;
}

export interface BridgeStart {
  env: Record<string, string>;
  args?: string[];
  /** The host's answer to an elicitation (default: accept with confirm=true). */
  elicit?: (params: unknown) => ElicitResult;
}

export async function hostBridge(url: string, o: BridgeStart, connect = true): Promise<HostedBridge> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'protocol', 'bridge', url, ...(o.args ?? [])],
    env: cleanEnv(o.env),
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  const client = new Client({ name: 'bridge-host', version: '1.0.0' }, { capabilities: { elicitation: {} } });
  const errors: Error[] = [];
  client.onerror = (e) => errors.push(e);
  const elicitations: unknown[] = [];
  client.setRequestHandler(ElicitRequestSchema, async (req) => {
    elicitations.push(req.params);
    return o.elicit ? o.elicit(req.params) : { action: 'accept', content: { confirm: true } };
  });
  const hosted: HostedBridge = {
    client,
    transport,
    errors,
    elicitations,
    stderr: () => stderr,
    async close() {
      const child = (transport as unknown as { _process?: import('node:child_process').ChildProcess })._process;
      if (!child || child.exitCode !== null) return child?.exitCode ?? null;
      const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
      child.stdin?.end();
      const code = await exited;
      await client.close().catch(() => undefined);
      return code;
    },
  };
  if (connect) await client.connect(transport);
  return hosted;
}
