/**
 * Table cells are measured in terminal columns, not UTF-16 code units: wide
 * (CJK) characters and emoji take 2, combining marks 0, and a cell is cut at
 * a grapheme boundary (never half a surrogate pair or an emoji sequence).
 * The widths are checked against string-width (an independent measure, the
 * one ora uses), and the mailbox list against 80 columns.
 */
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { renderTable, type Column } from '../../../src/cli/output/output.js';
import { cutToWidth, displayWidth, padToWidth } from '../../../src/cli/output/text-width.js';
import { messageColumns, type MessageRow } from '../../../src/cli/commands/mailbox/render.js';
import { createTestIO } from '../../fakes/io.js';

const SAMPLES = [
  'plain',
  '山田太郎😀😀😀',
  'ab😀😀😀😀😀',
  'Fre\u0301de\u0301ric',
  '👍🏽 ok',
  '🇯🇵 flag',
  '👨‍👩‍👧 family',
  '会議の準備について📅　全員参加してください',
  'ｆｕｌｌ',
  'Ωmega…',
  '❤️ love',
  '1️⃣ one',
  'ｶﾞ',
  '한국어',
  'Z\u0324\u0354\u0367\u0311',
  '',
];

describe('display width', () => {
  it.each(SAMPLES)('%j measures as string-width does', (s) => {
    expect(displayWidth(s)).toBe(stringWidth(s));
  });

  it.each(SAMPLES)('%j is cut at every width without splitting a character, within the width', (s) => {
    for (let w = 1; w <= displayWidth(s) + 1; w++) {
      const cut = cutToWidth(s, w);
      expect(stringWidth(cut)).toBeLessThanOrEqual(w);
      expect(cut).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]|\ufffd/);
      expect(stringWidth(padToWidth(s, w))).toBe(w);
      // What is kept is a prefix of whole clusters.
      if (cut !== s) expect(s.startsWith(cut.slice(0, -1))).toBe(true);
    }
  });
});

describe('tables with wide characters', () => {
  const cols: Column<{ a: string; b: string }>[] = [
    { header: 'name', value: (r) => r.a, flexible: true, min: 6 },
    { header: 'end', value: (r) => r.b },
  ];
  const rows = [
    { a: 'ascii name', b: '|' },
    { a: '山田太郎😀😀😀', b: '|' },
    { a: 'ab😀😀😀😀😀😀😀😀', b: '|' },
  ];

  it.each([80, 16, 12])('columns line up at %i columns (the last column starts at the same place in every row)', (width) => {
    const io = createTestIO({ tty: true, columns: width });
    renderTable(io, rows, cols);
    const lines = io.stdoutText().trimEnd().split('\n').slice(1);
    const at = lines.map((l) => stringWidth(l.slice(0, l.lastIndexOf('|'))));
    expect(new Set(at).size, lines.join('\n')).toBe(1);
    for (const l of lines) {
      expect(stringWidth(l)).toBeLessThanOrEqual(width);
      expect(l).not.toContain('\ufffd');
    }
  });
});

describe('mailbox list at 80 columns', () => {
  const row = (i: number, from: string, subject: string): MessageRow => ({
    id: `62a9d950-eb77-11f1-be94-85b2f01d1f4${i}`,
    meta: {
      date: '2026-11-28T11:00:00Z',
      from: [{ name: from, address: 'x@example.com' }],
      subject,
      labels: [0, 1],
      markers: ['\\Seen'],
      size: 1234,
    } as MessageRow['meta'],
  });
  const rows = [
    row(1, '山田太郎😀😀😀', '会議の準備について📅　全員参加してください'),
    row(2, 'Bob Example', 'Welcome to Lanyard, a long subject line that goes on'),
  ];

  it.each([80, 100, 120])('fits %i columns and keeps every id whole', (width) => {
    const io = createTestIO({ tty: true, columns: width });
    renderTable(io, rows, messageColumns);
    const text = io.stdoutText();
    for (const line of text.trimEnd().split('\n')) expect(stringWidth(line), line).toBeLessThanOrEqual(width);
    for (const r of rows) expect(text).toContain(r.id);
  });
});
