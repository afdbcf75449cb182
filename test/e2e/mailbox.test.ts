/**
 * Mailbox end to end: the built CLI against the emulated mail store over
 * HTTP on 127.0.0.1 — the emulator profile, the store's deflate on the wire,
 * a deflated transfer inflated to stdout (--debug headers), a message piped
 * in on stdin, Ctrl-C. Every operation, state transition, part numbering,
 * safe file names, paging and validation is tested on the run functions in
 * test/unit/cli/mailbox/commands.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inflateRawSync } from 'node:zlib';
import { startWorld, type World } from './harness.js';

let world: World;
let api: string;
let dir: string;

const mb = (args: string[], o?: Parameters<World['run']>[1]) => world.run(['--profile', 'emulator', 'mailbox', ...args], o);
const ok = async (args: string[], o?: Parameters<World['run']>[1]) => {
  const r = await mb(args, o);
  expect(r.stderr, `stderr of ${args.join(' ')}`).not.toMatch(/at .*\.js:\d+/);
  expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
  return r;
};

const simple = (subject: string, body = 'hello') =>
  `From: Test <test@example.net>\r\nTo: alice@example.com\r\nSubject: ${subject}\r\nDate: Thu, 05 Nov 2026 12:00:00 +0000\r\n\r\n${body}\r\n`;

beforeAll(async () => {
  world = await startWorld();
  api = `${world.url}/rest/v2/example.com/alice/mailbox`;
  dir = await mkdtemp(join(tmpdir(), 'lanyard-mbx-'));
});
afterAll(async () => {
  await world?.stop();
});

describe('emulator profile and seeded mailbox', () => {
  it('registers mailbox.baseUrl/domain/user and lists the seed newest first', async () => {
    const info = (await (await fetch(`${world.url}/_emulator/info`)).json()) as { mailbox: { profile: Record<string, string> } };
    expect(info.mailbox.profile).toEqual({ 'mailbox.baseUrl': world.url, 'mailbox.domain': 'example.com', 'mailbox.user': 'alice' });
    const r = await ok(['list', '--json', '--metadata']);
    const list = JSON.parse(r.stdout) as Array<{ id: string; subject: string; date: string; labels: number[] }>;
    expect(list.map((m) => m.subject)).toEqual(['Réunion demain', 'Quarterly report', 'Welcome to Lanyard']);
    expect(list[1]!.date).toBe('2026-11-03T09:30:00.000+0000');
    for (const m of list) expect(m.labels).toContain(0);
  });
});

describe('raw, deflate and url', () => {
  const big = Array.from({ length: 4000 }, (_, i) => `line ${i} ${'lorem ipsum dolor '.repeat(4)}`).join('\r\n');
  let id: string;
  let file: string;

  beforeAll(async () => {
    await world.admin('mailbox/config', { compressThreshold: 1024 });
    file = join(dir, 'big.eml');
    await writeFile(file, simple('Big one', big));
    id = (await ok(['store', file])).stdout.trim();
  });
  afterAll(async () => {
    await world.admin('mailbox/config', { compressThreshold: 32768 });
  });

  it('the store keeps it deflated and sends raw RFC 1951 only to clients that accept deflate', async () => {
    const original = await readFile(file);
    const compressed = await fetch(`${api}/message/${id}/raw`, { headers: { 'accept-encoding': 'deflate' } });
    expect(compressed.headers.get('content-encoding')).toBe('deflate');
    await compressed.body?.cancel();
    // fetch would inflate on its own; read the wire bytes with node:http instead.
    const { request } = await import('node:http');
    const wire = await new Promise<Buffer>((resolve, reject) => {
      request(`${api}/message/${id}/raw`, { agent: false, headers: { 'accept-encoding': 'deflate' } }, (res) => {
        expect(res.headers['transfer-encoding']).toBe('chunked');
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve(Buffer.concat(chunks)));
      })
        .on('error', reject)
        .end();
    });
    expect(wire.length).toBeLessThan(original.length / 4);
    expect(inflateRawSync(wire)).toEqual(original);
    const plain = await new Promise<{ enc?: string; body: Buffer }>((resolve, reject) => {
      request(`${api}/message/${id}/raw`, { agent: false }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ enc: res.headers['content-encoding'], body: Buffer.concat(chunks) }));
      })
        .on('error', reject)
        .end();
    });
    expect(plain.enc).toBeUndefined();
    expect(plain.body).toEqual(original);
  });

  it('mailbox raw inflates on the fly to stdout and to a file', async () => {
    const original = await readFile(file, 'utf8');
    const dbg = await world.run(['--debug', '--profile', 'emulator', 'mailbox', 'raw', id]);
    expect(dbg.code).toBe(0);
    expect(dbg.stderr).toMatch(/> accept-encoding: deflate/);
    expect(dbg.stderr).toMatch(/< content-encoding: deflate/);
    expect(dbg.stdout).toBe(original);
    const out = join(dir, 'raw-out.eml');
    await ok(['raw', id, '--output', out]);
    expect(await readFile(out, 'utf8')).toBe(original);
    expect((await mb(['raw', id, '--output', out])).code).toBe(2);
  });

  it('Ctrl-C while waiting for the server exits 130', async () => {
    await world.admin('faults', { type: 'latency', latencyMs: 8000, path: `/rest/v2/example.com/alice/mailbox/message/${id}/raw`, count: 1 });
    const r = await mb(['raw', id], { onSpawn: (child) => void setTimeout(() => child.kill('SIGINT'), 1500) });
    expect(r.code).toBe(130);
    expect(r.stdout).toBe('');
  });

  it('small messages stay uncompressed even when deflate is accepted', async () => {
    const small = (await ok(['store', '-'], { input: simple('small') })).stdout.trim();
    const res = await fetch(`${api}/message/${small}/raw`, { headers: { 'accept-encoding': 'deflate' } });
    expect(res.headers.get('content-encoding')).toBeNull();
    expect((await ok(['raw', small])).stdout).toBe(simple('small'));
  });
});
