/**
 * The seeded mailbox (domain/user in shared/mailbox.ts): a plain message, a
 * nested multipart (mixed > alternative > related, with a content-id image
 * and attachments, one with an unsafe file name) and a quoted-printable one.
 */
import { Readable } from 'node:stream';
import { MailboxSeed } from '../../../shared/mailbox.js';
import { mailboxKey, type MailStore } from './mailstore.js';

const PNG_1PX = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

export const SEED_MESSAGES: Array<{ raw: string; labels: number[]; markers: string[] }> = [
  {
    labels: [1],
    markers: ['SEEN'],
    raw: [
      'From: Bob Example <bob@example.net>',
      'To: Alice <alice@example.com>',
      'Subject: Welcome to Lanyard',
      'Date: Mon, 02 Nov 2026 09:00:00 +0000',
      'Message-ID: <welcome@example.net>',
      'Content-Type: text/plain; charset=utf-8',
      '',
      'Hello Alice,',
      '',
      'this mailbox is served by the Lanyard emulator.',
      '',
    ].join('\r\n'),
  },
  {
    labels: [1, 2],
    markers: [],
    raw: [
      'From: "Carol Reports" <carol@example.org>',
      'To: Alice <alice@example.com>, dave@example.com',
      'Cc: Erin <erin@example.org>',
      'Subject: Quarterly report',
      'Date: Tue, 03 Nov 2026 10:30:00 +0100',
      'Message-ID: <report@example.org>',
      'MIME-Version: 1.0',
      'Content-Type: multipart/mixed; boundary="mixed-1"',
      '',
      'This is a multi-part message in MIME format.',
      '--mixed-1',
      'Content-Type: multipart/alternative; boundary="alt-1"',
      '',
      '--alt-1',
      'Content-Type: text/plain; charset=utf-8',
      '',
      'The report is attached. Logo inline in the HTML version.',
      '--alt-1',
      'Content-Type: multipart/related; boundary="rel-1"',
      '',
      '--rel-1',
      'Content-Type: text/html; charset=utf-8',
      '',
      '<p>The report is attached.</p><img src="cid:logo@lanyard.example">',
      '--rel-1',
      'Content-Type: image/png; name="logo.png"',
      'Content-Transfer-Encoding: base64',
      'Content-ID: <logo@lanyard.example>',
      'Content-Disposition: inline; filename="logo.png"',
      '',
      PNG_1PX,
      '--rel-1--',
      '--alt-1--',
      '--mixed-1',
      'Content-Type: text/csv; name="report.csv"',
      'Content-Disposition: attachment; filename="report.csv"',
      '',
      'quarter,revenue',
      'Q3,1200',
      '--mixed-1',
      'Content-Type: application/octet-stream',
      'Content-Transfer-Encoding: base64',
      'Content-Disposition: attachment; filename="../../etc/passwd"',
      '',
      Buffer.from('not really a password file\n').toString('base64'),
      '--mixed-1--',
      '',
    ].join('\r\n'),
  },
  {
    labels: [1, 3],
    markers: ['REPLIED'],
    raw: [
      'From: =?UTF-8?Q?Fr=C3=A9d=C3=A9ric?= <fred@example.fr>',
      'To: alice@example.com',
      'Subject: =?UTF-8?Q?R=C3=A9union_demain?=',
      'Date: Wed, 04 Nov 2026 08:15:00 +0000',
      'Content-Type: text/plain; charset=utf-8',
      'Content-Transfer-Encoding: quoted-printable',
      '',
      'La r=C3=A9union est =C3=A0 10 h.',
      '',
    ].join('\r\n'),
  },
];

export async function seedMailbox(store: MailStore): Promise<string[]> {
  const mb = mailboxKey(MailboxSeed.domain, MailboxSeed.user);
  const ids: string[] = [];
  for (const m of SEED_MESSAGES) {
    const rec = await store.store(mb, Readable.from([Buffer.from(m.raw)]), m.labels, m.markers);
    ids.push(rec.id);
  }
  return ids;
}
