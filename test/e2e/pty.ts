/** Runs the CLI on a real pseudo-terminal through test/e2e/pty-run.py (Python's pty module). */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { BIN, cleanEnv, ROOT } from './harness.js';

export interface PtyResult {
  exitCode: number | null;
  signal: number | null;
  output: string;
  modeBefore: string;
  modeAfter: string;
  sent: boolean;
  exitAfterSendMs: number | null;
  stopped: boolean;
}

export interface PtySpec {
  args: string[];
  /** The launcher to run (default: the package's bin/lanyard.js). */
  bin?: string;
  env?: Record<string, string | undefined>;
  /** Typed once the terminal shows this. */
  waitFor?: string;
  /** Bytes to type (hex), default Ctrl-C. */
  send?: string | null;
  /** More keys (hex), each typed `settle` seconds after the one before. */
  sendAfter?: string[];
  /** Instead of typing `send`, this signal goes to the command (e.g. SIGTERM). */
  signal?: NodeJS.Signals;
  settle?: number;
  cols?: number;
  rows?: number;
  background?: boolean;
  timeout?: number;
}

/** Runs the CLI on a pseudo-terminal through test/e2e/pty-run.py. */
export function runOnPty(spec: PtySpec): Promise<PtyResult> {
  const input = JSON.stringify({
    argv: [process.execPath, spec.bin ?? BIN, ...spec.args],
    env: { TERM: 'xterm-256color', ...cleanEnv(spec.env) },
    waitFor: spec.waitFor,
    send: spec.send === null ? undefined : (spec.send ?? '03'),
    sendAfter: spec.sendAfter,
    signal: spec.signal,
    settle: spec.settle ?? 0.3,
    cols: spec.cols ?? 100,
    rows: spec.rows ?? 30,
    background: spec.background ?? false,
    timeout: spec.timeout ?? 30,
  });
  return new Promise((resolve, reject) => {
    const py = spawn('python3', [join(ROOT, 'test', 'e2e', 'pty-run.py')], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    py.stdout.on('data', (c: Buffer) => (out += c.toString()));
    py.stderr.on('data', (c: Buffer) => (err += c.toString()));
    py.on('error', reject);
    py.on('close', (code) => {
      if (code !== 0) return reject(new Error(`pty-run.py exited ${code}: ${err}`));
      resolve(JSON.parse(out) as PtyResult);
    });
    py.stdin.end(input);
  });
}
