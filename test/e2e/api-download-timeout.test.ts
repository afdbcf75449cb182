/**
 * `lanyard api` writing a large body out over a slow link, on the live
 * clock: `--timeout` bounds the wait for the answer and each silence of its
 * body, not the body's length (as curl's and the code host's CLI's
 * downloads). A body that trickles for longer than the deadline, never
 * silent for it, arrives whole; one that goes silent ends with one line,
 * exit 1. Time the CLI spends blocked on its own output (a reader that
 * stops reading: `| less`) is no silence of the server's. The built CLI
 * against servers on 127.0.0.1.
 */
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChildProcess } from 'node:child_process';
import { runCli } from './harness.js';

/** The deadline given with --timeout, and the trickle: a chunk every 200 ms for 3× the deadline. */
const TIMEOUT_S = 2;
const TOKEN = 'lyp_download_e2e_token_000000000000000000001';
const CHUNK_EVERY_MS = 200;
const CHUNKS = (3 * TIMEOUT_S * 1000) / CHUNK_EVERY_MS;
const chunkOf = (i: number) => `${String(i).padStart(4, '0')}:${'z'.repeat(4096)}\n`;
const WHOLE = Array.from({ length: CHUNKS }, (_, i) => chunkOf(i)).join('');
/** A prompt server's body: far more than a pipe and the socket buffers hold, sent at once. */
const PROMPT = Buffer.alloc(8 * 1024 * 1024, 'p');
let dir: string;
let server: Server;
let url: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lanyard-download-'));
  server = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'application/octet-stream' });
    res.flushHeaders();
    // /prompt: the whole body at once (as fast as it is read); /prompt-then-silent: the same, then nothing (the connection stays open).
    if (req.url === '/api/prompt') return void res.end(PROMPT);
    if (req.url === '/api/prompt-then-silent') return void res.write(PROMPT);
    let i = 0;
    // /stall: two chunks, then nothing (the connection stays open).
    const last = req.url === '/api/stall' ? 2 : CHUNKS;
    const t = setInterval(() => {
      if (i < last) res.write(chunkOf(i++));
      if (i === CHUNKS) {
        clearInterval(t);
        res.end();
      }
    }, CHUNK_EVERY_MS);
    res.on('close', () => clearInterval(t));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const r = await runCli(['config', 'set', 'hosting.apiUrl', `${url}/api`], { env: { LANYARD_CONFIG_DIR: dir } });
  expect(r.code, r.stderr).toBe(0);
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  await rm(dir, { recursive: true, force: true });
});

const run = (path: string) =>
  runCli(['api', path, '--timeout', `${TIMEOUT_S}s`], { env: { LANYARD_CONFIG_DIR: dir, LANYARD_TOKEN: TOKEN }, timeoutMs: 60_000 });
const sha = (s: string) => createHash('sha256').update(s).digest('hex');

describe('lanyard api --timeout on a body written out as it comes', () => {
  it('a body trickling for 3× the deadline, never silent for it, arrives whole (exit 0)', async () => {
    const started = Date.now();
    const r = await run('/archive.tgz');
    expect(r.code, r.stderr).toBe(0);
    expect(Date.now() - started).toBeGreaterThan(TIMEOUT_S * 1000);
    expect(sha(r.stdout)).toBe(sha(WHOLE));
    expect(r.stderr).not.toMatch(/stalled|deadline/);
  });

  it('a body that goes silent for the deadline ends with one line on stderr, exit 1', async () => {
    const r = await run('/stall');
    expect(r.code).toBe(1);
    expect(r.stdout).toBe(chunkOf(0) + chunkOf(1));
    expect(r.stderr).toBe(`GET ${url}/api/stall: the answer stalled: no data for ${TIMEOUT_S} s\n`);
  });
});

/**
 * A reader that stops reading: at the first bytes it pauses (the pipe fills,
 * the CLI blocks writing to it) for `pauseMs`, then reads on. Resolves with
 * when it read on. The child's stdout is a socket pair (as a program that
 * spawns Lanyard gives it): its writes wait for 'drain' with the event loop
 * running — the case the old bound failed; a shell's blocking pipe freezes
 * the process instead, and the read after the write restarts the bound.
 */
function pausingReader(pauseMs: number): { onSpawn: (child: ChildProcess) => void; resumedAt: Promise<number> } {
  let resumed!: (at: number) => void;
  const resumedAt = new Promise<number>((r) => (resumed = r));
  return {
    resumedAt,
    onSpawn: (child) => {
      child.stdout!.once('data', () => {
        child.stdout!.pause();
        setTimeout(() => {
          resumed(Date.now());
          child.stdout!.resume();
        }, pauseMs);
      });
    },
  };
}

describe('lanyard api --timeout with a reader that stops reading (| less)', () => {
  const BOUND_S = 1;
  const PAUSE_MS = 3 * BOUND_S * 1000;
  const runPaused = (path: string, reader: ReturnType<typeof pausingReader>) =>
    runCli(['api', path, '--timeout', `${BOUND_S}s`], {
      env: { LANYARD_CONFIG_DIR: dir, LANYARD_TOKEN: TOKEN },
      timeoutMs: 60_000,
      onSpawn: reader.onSpawn,
    });

  it('a prompt server and a reader pausing 3× the bound: the body arrives whole (exit 0)', async () => {
    const reader = pausingReader(PAUSE_MS);
    const started = Date.now();
    const r = await runPaused('/prompt', reader);
    expect(r.stderr).not.toMatch(/stalled|deadline/);
    expect(r.code, r.stderr).toBe(0);
    expect((await reader.resumedAt) - started).toBeGreaterThanOrEqual(PAUSE_MS);
    expect(r.stdout.length).toBe(PROMPT.length);
    expect(sha(r.stdout)).toBe(sha(PROMPT.toString()));
  });

  it('a server silent after its prompt part still fails at the bound, counted from when the reader reads on', async () => {
    const reader = pausingReader(PAUSE_MS);
    const r = await runPaused('/prompt-then-silent', reader);
    const ended = Date.now();
    expect(r.code).toBe(1);
    expect(r.stdout.length).toBe(PROMPT.length);
    expect(r.stderr).toBe(`GET ${url}/api/prompt-then-silent: the answer stalled: no data for ${BOUND_S} s\n`);
    // Not at once when the reader comes back (its pause is no silence of the server's), nor never.
    const afterResume = ended - (await reader.resumedAt);
    expect(afterResume).toBeGreaterThanOrEqual(BOUND_S * 1000 * 0.9);
    expect(afterResume).toBeLessThan(BOUND_S * 1000 + 15_000);
  });
});
