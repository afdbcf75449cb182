/** `lanyard … | head`: a reader that goes away ends the command quietly (exit 0, nothing on stderr). */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { BIN, cleanEnv } from './harness.js';

function runWithClosedStdout(args: string[]): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [BIN, ...args], { env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  // The reader is gone before the first write: every write fails with EPIPE.
  child.stdout.destroy();
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stderr })));
}

describe('closed stdout pipe', () => {
  for (const args of [['--version'], ['completion', 'fish'], ['config', 'list', '--keys', '--json']]) {
    it(`lanyard ${args.join(' ')} stops without an EPIPE error or a stack trace`, async () => {
      const r = await runWithClosedStdout(args);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
    });
  }
});
