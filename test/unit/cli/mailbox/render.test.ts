import { describe, expect, it } from 'vitest';
import { type Column, pipeRow, renderTable, sanitize } from '../../../../src/cli/output/output.js';
import { compareImap, messageColumns, renderMessage, shortDate } from '../../../../src/cli/commands/mailbox/render.js';
import { progressStage } from '../../../../src/cli/commands/mailbox/common.js';
import type { Context } from '../../../../src/cli/context.js';
import { createTestIO, type TestIO } from '../../../fakes/io.js';
import { FakeClock } from '../../../fakes/clock.js';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

const meta = {
  labels: [0, 1],
  markers: ['SEEN'],
  size: 2048,
  date: '2026-11-03T09:30:00.000+0000',
  subject: 'Quarterly\u001b[31m report',
  from: [{ address: 'carol@example.org', name: 'Carol' }],
  parts: { '2': { size: 10, fileName: 'b.csv', mimeType: 'text/csv' }, '1.2.2': { size: 70, fileName: 'logo.png', mimeType: 'image/png' } },
  textBody: 'Hello',
};

describe('mailbox rendering', () => {
  it('the TTY table has id, date, from, subject, labels, markers, size; escapes in caret notation', () => {
    const io = createTestIO({ tty: true });
    renderTable(io, [{ id: 'abc', meta }], messageColumns);
    const [head, row] = io.stdoutText().trim().split('\n');
    expect(head!.split(/\s{2,}/)).toEqual(['ID', 'DATE', 'FROM', 'SUBJECT', 'LABELS', 'MARKERS', 'SIZE']);
    expect(row).toMatch(/^abc\s+2026-11-03 09:30\s+Carol\s+Quarterly\^\[\[31m report\s+0,1\s+seen\s+2\.0 KiB$/);
  });

  it('parts are listed in IMAP order', () => {
    expect(['2', '1.10', '1.2.2', '1', '1.2'].sort(compareImap)).toEqual(['1', '1.2', '1.2.2', '1.10', '2']);
    const io = createTestIO();
    renderMessage(io, { id: 'abc', message: meta, prev: null, next: 'def' });
    const out = io.stdoutText();
    expect(out.indexOf('1.2.2\timage/png')).toBeLessThan(out.indexOf('2\ttext/csv'));
    expect(out).toMatch(/^Prev: {4}\(none\)$/m);
    expect(out).toMatch(/^Next: {4}def$/m);
    expect(shortDate(undefined)).toBe('');
  });

  async function transfer(io: TestIO, o: { total?: number; toStdout?: boolean; chunks?: number; chunkSize?: number }): Promise<string> {
    const clock = new FakeClock();
    const ctx = { io, clock } as unknown as Context;
    const chunks = Array.from({ length: o.chunks ?? 4 }, () => Buffer.alloc(o.chunkSize ?? 1024 * 1024));
    const src = Readable.from(
      (async function* () {
        for (const c of chunks) {
          clock.advance(200);
          yield c;
        }
      })(),
    );
    const stage = progressStage(ctx, { total: o.total, label: 'message', toStdout: !!o.toStdout });
    const sink = new Writable({
      write(_c, _e, cb) {
        cb();
      },
    });
    await (stage ? pipeline(src, stage, sink) : pipeline(src, sink));
    return io.stderrText();
  }

  it('the progress bar draws on stderr, throttled by the clock, and finishes with a newline', async () => {
    const err = await transfer(createTestIO({ tty: true }), { total: 4 * 1024 * 1024 });
    expect(err).toMatch(/message \[#{6}-{18}\] {2}25% 1\.0 MiB\/4\.0 MiB/);
    expect(err).toMatch(/\[#{24}\] 100% 4\.0 MiB\/4\.0 MiB .*\n$/);
  });

  it('no progress for small transfers, over data on the same terminal, or on a terminal too narrow to draw on', async () => {
    expect(await transfer(createTestIO({ tty: true }), { total: 1000, chunks: 1, chunkSize: 1000 })).toBe('');
    // Unknown size: nothing until a mebibyte has passed.
    expect(await transfer(createTestIO({ tty: true }), { chunks: 3, chunkSize: 100 * 1024 })).toBe('');
    expect(await transfer(createTestIO({ tty: true }), { total: 4 * 1024 * 1024, toStdout: true })).toBe('');
    expect(await transfer(createTestIO({ stdoutTTY: false, stderrTTY: true }), { total: 4 * 1024 * 1024, toStdout: true })).not.toBe('');
    expect(await transfer(createTestIO({ tty: true, stderrColumns: 0 }), { total: 4 * 1024 * 1024 })).toBe('');
  });

  it('a progress line never wraps: it is cut to the terminal width', async () => {
    const err = await transfer(createTestIO({ tty: true, stderrColumns: 30 }), { total: 4 * 1024 * 1024 });
    const lines = err
      .split(/\r|\n/)
      .map((l) => l.replace('\u001b[2K', ''))
      .filter(Boolean);
    expect(lines.length).toBeGreaterThan(0);
    for (const l of lines) expect(l.length).toBeLessThan(30);
  });
});

describe('pipeRow', () => {
  it('is each cell sanitized with its tabs made spaces, joined by tabs (one pass over the line gives the same text)', () => {
    const hostile = ['a\tb', ' x \t\r\n\t y ', '\u001b[31m\tred\u0007', 'c1\u0085\u009b', 'bidi\u202e\u2066', 'nul\u0000\u007f', '', 'Réunion'];
    const columns: Array<Column<string[]>> = hostile.map((_, i) => ({ header: `c${i}`, value: (r) => r[i]! }));
    const line = pipeRow(columns, hostile);
    expect(line).toBe(hostile.map((c) => sanitize(c).replace(/\t/g, ' ')).join('\t'));
    expect(line.split('\t')).toHaveLength(hostile.length);
    expect(line).not.toMatch(/[\u0000-\u0008\u000a-\u001f\u007f-\u009f]/);
  });
});
