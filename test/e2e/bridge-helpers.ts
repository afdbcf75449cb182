/**
 * The protocol SDK's own stdio client (`StdioClientTransport`) spawning the
 * built CLI's `protocol bridge URL`: what a desktop host does. The SDK reads
 * the bridge's stdout strictly (every line must be a JSON-RPC message; a line
 * that is not is reported through onerror, which the test collects).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
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
  /** The host's answer to an elicitation (default: accept with confirm=true); it may take its time. */
  elicit?: (params: unknown) => ElicitResult | Promise<ElicitResult>;
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

/** A host that speaks 2026-07-28 itself, scripted line by line (the protocol SDK at hand speaks only the revisions with initialize). */
export interface ScriptedHost {
  /** Sends a request and resolves to the response with its id. */
  request(id: string | number, method: string, params: Record<string, unknown>): Promise<Record<string, unknown>>;
  /** Sends a line as it is (a notification, say). */
  write(message: unknown): void;
  /** Every message the bridge wrote to stdout, parsed (a line that is not JSON fails the test in `close`). */
  readonly received: Array<Record<string, unknown>>;
  stderr(): string;
  /** Closes stdin and resolves to the exit code; throws when a stdout line was not a JSON-RPC message. */
  close(): Promise<number | null>;
}

export function scriptedHost(url: string, env: Record<string, string>, args: string[] = []): ScriptedHost {
  const child = spawn(process.execPath, [BIN, 'protocol', 'bridge', url, ...args], { env: cleanEnv(env), stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const received: Array<Record<string, unknown>> = [];
  const bad: string[] = [];
  const waiting = new Map<string | number, (m: Record<string, unknown>) => void>();
  createInterface({ input: child.stdout }).on('line', (line) => {
    let m: Record<string, unknown>;
    try {
      m = JSON.parse(line) as Record<string, unknown>;
    } catch {
      return void bad.push(line);
    }
    if (m.jsonrpc !== '2.0') bad.push(line);
    received.push(m);
    const id = m.id as string | number;
    if (!('method' in m) && waiting.has(id)) waiting.get(id)!(m);
  });
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const write = (message: unknown) => void child.stdin.write(`${JSON.stringify(message)}\n`);
  return {
    received,
    stderr: () => stderr,
    write,
    request(id, method, params) {
      const answer = new Promise<Record<string, unknown>>((r) => waiting.set(id, r));
      write({ jsonrpc: '2.0', id, method, params });
      return answer;
    },
    async close() {
      child.stdin.end();
      const code = await exited;
      if (bad.length) throw new Error(`the bridge wrote lines that are not JSON-RPC messages: ${bad.join(' | ')}`);
      return code;
    },
  };
}
