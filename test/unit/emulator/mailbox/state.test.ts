import { describe, expect, it } from 'vitest';
import { appendFileSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MailState, type MessageRecord } from '../../../../src/emulator/services/mailbox/state.js';
import { TimeUuidGenerator } from '../../../../src/emulator/services/mailbox/timeuuid.js';

const MB = 'example.com/alice';
const gen = new TimeUuidGenerator();
const rec = (labels: number[], t: number): MessageRecord => ({
  id: gen.next(t),
  labels: [0, ...labels],
  markers: [],
  deleted: false,
  size: 1,
  dateMs: t,
  object: { key: 'k', compressed: false, storedSize: 1 },
});

describe('MailState', () => {
  it('lists a label newest first or oldest first, start inclusive, with count', () => {
    const s = new MailState(mkdtempSync(join(tmpdir(), 'mbx-state-')));
    s.load();
    const t = Date.UTC(2026, 0, 1);
    const recs = Array.from({ length: 10 }, (_, i) => rec(i % 2 ? [1] : [], t + Math.floor(i / 3)));
    s.put(MB, recs);
    const ids = recs.map((r) => r.id);
    expect(s.list(MB, { label: 0, reverse: true, count: 500 }).map((r) => r.id)).toEqual([...ids].reverse());
    expect(s.list(MB, { label: 1, reverse: false, count: 500 }).map((r) => r.id)).toEqual(ids.filter((_, i) => i % 2));
    expect(s.list(MB, { label: 0, reverse: true, start: ids[5], count: 3 }).map((r) => r.id)).toEqual([ids[5], ids[4], ids[3]]);
    expect(s.list(MB, { label: 0, reverse: false, start: ids[5], count: 2 }).map((r) => r.id)).toEqual([ids[5], ids[6]]);
    // A start that is no longer there still positions the slice.
    s.delete(MB, ids[5]!);
    s.purge(MB, ids[5]!);
    expect(s.list(MB, { label: 0, reverse: true, start: ids[5], count: 2 }).map((r) => r.id)).toEqual([ids[4], ids[3]]);
    expect(s.adjacent(MB, ids[4]!, 0)).toEqual({ prev: ids[6], next: ids[3] });
    expect(s.adjacent(MB, ids[9]!, 0)).toEqual({ prev: null, next: ids[8] });
    s.close();
  });

  it('replays the journal, skipping a torn line, and compacts it on load', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mbx-journal-'));
    const a = new MailState(dir);
    a.load();
    const r1 = rec([3], Date.now());
    const r2 = rec([], Date.now());
    a.put(MB, [r1, r2]);
    a.setFlags(MB, r1.id, [0, 3, 4], ['SEEN']);
    a.delete(MB, r2.id);
    a.close();
    appendFileSync(join(dir, 'journal.ndjson'), '{"op":"flags","mb":"example.com/alice","id":"' + r1.id + '","lab');
    const b = new MailState(dir);
    expect(b.load()).toBe(true);
    expect(b.get(MB, r1.id)).toMatchObject({ labels: [0, 3, 4], markers: ['SEEN'], deleted: false });
    // A deleted message keeps its labels until the purge (listings skip it).
    expect(b.get(MB, r2.id)).toMatchObject({ labels: r2.labels, deleted: true });
    const lines = readFileSync(join(dir, 'journal.ndjson'), 'utf8').trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines.every((l) => JSON.parse(l).op === 'put')).toBe(true);
    b.close();
  });
});
