import { describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { parseMessageFile, streamPart, validateMime } from '../../../../src/emulator/services/mailbox/mime.js';
import { SEED_MESSAGES } from '../../../../src/emulator/services/mailbox/seed.js';

const dir = mkdtempSync(join(tmpdir(), 'mbx-mime-'));
const file = (name: string, text: string) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};
const nested = SEED_MESSAGES[1]!.raw;
const read = async (r: Readable) => {
  const c: Buffer[] = [];
  for await (const x of r) c.push(x as Buffer);
  return Buffer.concat(c);
};

describe('emulator MIME parsing', () => {
  it('metadata: addresses, subject, date, bodies, parts keyed by IMAP number', async () => {
    const m = await parseMessageFile(file('nested.eml', nested));
    expect(m.from).toEqual([{ address: 'carol@example.org', name: 'Carol Reports' }]);
    expect(m.subject).toBe('Quarterly report');
    expect(new Date(m.dateMs!).toISOString()).toBe('2026-11-03T09:30:00.000Z');
    expect(Object.keys(m.parts!).sort()).toEqual(['1.2.2', '2', '3']);
    expect(m.parts!['1.2.2']).toEqual({ size: 70, fileName: 'logo.png', mimeType: 'image/png', contentId: 'logo@lanyard.example', disposition: 'inline' });
    expect(m.textBody).toMatch(/^The report is attached/);
    expect(m.htmlBody).toMatch(/<p>The report is attached.<\/p>/);
  });

  it('streams parts of mixed > alternative > related by number and content id', async () => {
    const part = async (sel: { partId: string } | { contentId: string }) => {
      const p = await streamPart(Readable.from([Buffer.from(nested)]), sel);
      return p && { type: p.contentType, disposition: p.disposition, fileName: p.fileName, body: (await read(p.body)).toString('latin1') };
    };
    expect(await part({ partId: '1.1' })).toMatchObject({ type: 'text/plain', body: 'The report is attached. Logo inline in the HTML version.' });
    expect(await part({ partId: '1.2.1' })).toMatchObject({ type: 'text/html' });
    const png = await part({ partId: '1.2.2' });
    expect(png).toMatchObject({ type: 'image/png', disposition: 'inline', fileName: 'logo.png' });
    expect(png!.body.slice(1, 4)).toBe('PNG');
    expect(await part({ contentId: 'logo@lanyard.example' })).toEqual(png);
    expect(await part({ partId: '2' })).toMatchObject({ type: 'text/csv', disposition: 'attachment', body: 'quarter,revenue\r\nQ3,1200' });
    // Containers are not leaf parts; numbers past the end do not exist.
    expect(await part({ partId: '1' })).toBeUndefined();
    expect(await part({ partId: '1.2' })).toBeUndefined();
    expect(await part({ partId: '4' })).toBeUndefined();
    expect(await part({ contentId: 'other@x' })).toBeUndefined();
  });

  it('a single-part message has part 1, quoted-printable decoded', async () => {
    const p = await streamPart(Readable.from([Buffer.from(SEED_MESSAGES[2]!.raw)]), { partId: '1' });
    expect((await read(p!.body)).toString('utf8')).toBe('La réunion est à 10 h.\r\n');
  });

  it('validation refuses what is not a MIME message', async () => {
    await expect(validateMime(file('ok.eml', nested))).resolves.toBeUndefined();
    await expect(validateMime(file('empty.eml', ''))).rejects.toThrow(/empty/);
    await expect(validateMime(file('text.eml', 'hello world\r\n'))).rejects.toThrow(/no MIME header block/);
    await expect(validateMime(file('bad.eml', 'Subject: x\r\nnot a header\r\n\r\nbody'))).rejects.toThrow(/malformed header line/);
    await expect(validateMime(file('mp.eml', 'Content-Type: multipart/mixed\r\n\r\n--x--'))).rejects.toThrow(/without boundary/);
    await expect(
      validateMime(file('folded.eml', 'Subject: a\r\n  folded\r\nContent-Type: multipart/mixed;\r\n boundary=x\r\n\r\n--x--')),
    ).resolves.toBeUndefined();
  });
});
