/**
 * The request journal's bounds (#38 item 2, #42 item 6): a bounded number of
 * entries, a bounded size in bytes, a large body kept truncated with a marker
 * (redacted before it is cut), and memory that stays flat however many
 * requests pass.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { JOURNAL_LIMITS, Journal, type JournalRecord, type TruncatedBody } from '../../../src/emulator/journal.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const MiB = 2 ** 20;

function record(i: number, o: Partial<JournalRecord> = {}): JournalRecord {
  return {
    time: 1_700_000_000_000 + i,
    service: 'hosting',
    ip: '127.0.0.1',
    method: 'GET',
    path: `/api/v3/repos/mona/r${i}`,
    query: '',
    headers: { host: '127.0.0.1:1', authorization: 'token lyp_secret_0123', 'user-agent': 'test' },
    status: 200,
    durationMs: 1,
    ...o,
  };
}

/** A JSON body of about `bytes` bytes with a secret in it. */
function bigJson(bytes: number): Buffer {
  return Buffer.from(JSON.stringify({ access_token: 'lyp_secret_0123', name: 'x', filler: 'y'.repeat(bytes) }));
}

describe('the request journal', () => {
  it('keeps the newest maxEntries entries, in order, and reads them with since, service and limit', () => {
    const j = new Journal({ maxEntries: 10 });
    for (let i = 1; i <= 25; i++) j.add(record(i, i % 2 ? {} : { service: 'echo' }));
    const all = j.list();
    expect(all.map((e) => e.seq)).toEqual([16, 17, 18, 19, 20, 21, 22, 23, 24, 25]);
    expect(j.size.entries).toBe(10);
    expect(j.list({ since: 20 }).map((e) => e.seq)).toEqual([21, 22, 23, 24, 25]);
    expect(j.list({ service: 'echo', limit: 2 }).map((e) => e.seq)).toEqual([16, 18]);
    expect(all[0]).toMatchObject({ path: '/api/v3/repos/mona/r16', caller: { ip: '127.0.0.1', auth: 'token', userAgent: 'test' } });
    expect(all[0]!.headers.authorization).toBe('token [redacted]');
    expect(all[0]!.time).toBe(new Date(1_700_000_000_016).toISOString());
  });

  it('300 requests of 1 MiB do not hold 300 MiB: bodies cut to maxBodyBytes with a marker, redacted first', () => {
    gc();
    const before = process.memoryUsage();
    const j = new Journal();
    for (let i = 0; i < 300; i++) j.add(record(i, { method: 'POST', headers: { 'content-type': 'application/json' }, body: bigJson(MiB) }));
    gc();
    const after = process.memoryUsage();
    const held = after.heapUsed + after.arrayBuffers - (before.heapUsed + before.arrayBuffers);
    expect(held).toBeLessThan(JOURNAL_LIMITS.maxBytes + 8 * MiB);
    expect(j.size.bytes).toBeLessThanOrEqual(JOURNAL_LIMITS.maxBytes);
    const body = j.list().at(-1)!.body as TruncatedBody;
    expect(body).toMatchObject({ truncated: true, bytes: bigJson(MiB).length, contentType: 'application/json' });
    expect(Buffer.byteLength(body.preview)).toBeLessThanOrEqual(JOURNAL_LIMITS.maxBodyBytes);
    expect(body.preview.startsWith('{"access_token":"[redacted]","name":"x","filler":"yyy')).toBe(true);
    expect(JSON.stringify(j.list())).not.toContain('lyp_secret_0123');
  });

  it('a form body is cut the same way; another type keeps its size only; a small body is kept whole', () => {
    const j = new Journal({ maxBodyBytes: 100 });
    const form = Buffer.from(new URLSearchParams({ client_secret: 's3cret', note: 'n'.repeat(500) }).toString());
    j.add(record(1, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form }));
    j.add(record(2, { method: 'POST', headers: { 'content-type': 'application/octet-stream' }, body: Buffer.alloc(500) }));
    j.add(record(3, { method: 'POST', headers: { 'content-type': 'application/json' }, body: Buffer.from('{"password":"p","a":1}') }));
    const [f, bin, small] = j.list();
    expect(f!.body).toMatchObject({ truncated: true, bytes: form.length, preview: `client_secret=%5Bredacted%5D&note=${'n'.repeat(66)}` });
    expect(bin!.body).toEqual({ bytes: 500, contentType: 'application/octet-stream' });
    expect(small!.body).toEqual({ password: '[redacted]', a: 1 });
  });

  it('the byte bound drops the oldest entries; limits are checked', () => {
    const j = new Journal({ maxBytes: 200_000, maxBodyBytes: 10_000 });
    for (let i = 0; i < 100; i++) j.add(record(i, { method: 'POST', headers: { 'content-type': 'application/json' }, body: bigJson(9000) }));
    expect(j.size.bytes).toBeLessThanOrEqual(200_000);
    expect(j.size.entries).toBeGreaterThan(5);
    expect(j.size.entries).toBeLessThan(15);
    expect(j.list().at(-1)!.seq).toBe(100);
    expect(() => new Journal({ maxEntries: 0 })).toThrow(/maxEntries/);
    expect(() => new Journal({ maxBytes: 1.5 })).toThrow(/maxBytes/);
  });

  it('memory stays flat: 200,000 requests hold what 10,000 hold', () => {
    const j = new Journal();
    const run = (from: number, to: number) => {
      for (let i = from; i < to; i++) j.add(record(i, { query: `?page=${i}` }));
    };
    run(0, 10_000);
    gc();
    const at10k = process.memoryUsage().heapUsed;
    run(10_000, 200_000);
    gc();
    const at200k = process.memoryUsage().heapUsed;
    expect(j.size.entries).toBe(JOURNAL_LIMITS.maxEntries);
    expect(at200k - at10k).toBeLessThan(4 * MiB);
  });

  it('a listener gets each entry as it is added, until it unsubscribes', () => {
    const j = new Journal();
    j.add(record(1));
    const seen: number[] = [];
    const off = j.subscribe((e) => seen.push(e.seq));
    j.add(record(2));
    off();
    j.add(record(3));
    expect(seen).toEqual([2]);
  });
});
