/**
 * `lanyard api` writing a response body that is no terminal's: to a pipe or a
 * file the body is written as it comes, chunk by chunk, without building
 * Node's stdout stream (src/cli/commands/api/run.ts, the IO's writeOut). The
 * bytes must arrive exactly, whatever they are (not UTF-8), at the pace of a
 * slow reader, and a reader that goes away ends the command quietly.
 */
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cleanEnv } from './harness.js';

/** 6 MiB that are not text: invalid UTF-8 throughout. */
const BODY = randomBytes(6 * 1024 * 1024);
const digest = (b: Buffer) => createHash('sha256').update(b).digest('hex');

let server: Server;
let url: string;
let dir: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'lanyard-api-output-'));
  server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': BODY.length });
    // In pieces, as a network gives them.
    let off = 0;
    const more = () => {
      while (off < BODY.length) {
        const piece = BODY.subarray(off, (off += 64 * 1024));
        if (!res.write(piece)) return void res.once('drain', more);
      }
      res.end();
    };
    more();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/blob`;
});
afterAll(() => {
  server?.close();
  rmSync(dir, { recursive: true, force: true });
});

const env = () => cleanEnv({ LANYARD_CONFIG_DIR: join(dir, 'config'), LANYARD_CACHE_DIR: join(dir, 'cache') });

describe('lanyard api: the body to a pipe or a file', () => {
  it('reaches a slow pipe reader byte for byte', async () => {
    const child = spawn(process.execPath, [BIN, 'api', url], { env: env(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c));
    const chunks: Buffer[] = [];
    // A reader that pauses now and then: the command waits for it, nothing is lost or reordered.
    child.stdout.on('data', (c: Buffer) => {
      chunks.push(c);
      if (chunks.length % 16 === 0) {
        child.stdout.pause();
        setTimeout(() => child.stdout.resume(), 20);
      }
    });
    const code = await new Promise((r) => child.on('close', r));
    expect(code, stderr).toBe(0);
    const got = Buffer.concat(chunks);
    expect(got.length).toBe(BODY.length);
    expect(digest(got)).toBe(digest(BODY));
  }, 60_000);

  it('reaches a file byte for byte', async () => {
    const file = join(dir, 'out.bin');
    const fd = openSync(file, 'w');
    const child = spawn(process.execPath, [BIN, 'api', url], { env: env(), stdio: ['ignore', fd, 'pipe'] });
    closeSync(fd);
    let stderr = '';
    child.stderr?.on('data', (c: Buffer) => (stderr += c));
    expect(await new Promise((r) => child.on('close', r)), stderr).toBe(0);
    expect(digest(readFileSync(file))).toBe(digest(BODY));
  }, 60_000);

  it('ends quietly when the reader goes away (exit 0, nothing on stderr but the notice of the credential-less request)', async () => {
    const child = spawn(process.execPath, [BIN, 'api', url], { env: env(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c));
    child.stdout.once('data', () => child.stdout.destroy());
    expect(await new Promise((r) => child.on('close', r))).toBe(0);
    expect(stderr.split('\n').filter((line) => line && !line.includes('sending the request without credentials'))).toEqual([]);
  }, 60_000);
});
