/** Human rendering of mailbox messages. */
import type { MailboxAddress, MailboxMetadata } from '../../../shared/mailbox.js';
import type { MessageView } from '../../../core/mailbox/client.js';
import type { Column } from '../../output/output.js';
import type { IO } from '../../io.js';
import { renderTable, sanitize } from '../../output/output.js';
import { fmtBytes } from './common.js';

export interface MessageRow {
  id: string;
  meta: MailboxMetadata;
}

export function formatAddresses(list: MailboxAddress[] | undefined): string {
  return (list ?? []).map((a) => (a.name ? `${a.name} <${a.address}>` : a.address)).join(', ');
}

/** `2026-11-03T09:30:00.000+0000` → `2026-11-03 09:30`. */
export function shortDate(d: string | undefined): string {
  if (!d) return '';
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})/.exec(d);
  return m ? `${m[1]} ${m[2]}` : d;
}

/**
 * The id (what `mailbox get` takes) is never cut. On a narrow terminal `from`
 * and `subject` are cut first, then size, markers, labels and date are left
 * out in that order (80 columns keep id, from and subject).
 */
export const messageColumns: ReadonlyArray<Column<MessageRow>> = [
  { header: 'id', value: (r) => r.id },
  { header: 'date', value: (r) => shortDate(r.meta.date), raw: (r) => r.meta.date ?? '', optional: true, shrink: 1 },
  { header: 'from', value: (r) => (r.meta.from?.[0] ? r.meta.from[0].name || r.meta.from[0].address : ''), flexible: true, shrink: 2 },
  { header: 'subject', value: (r) => r.meta.subject ?? '', flexible: true, min: 20 },
  { header: 'labels', value: (r) => (r.meta.labels ?? []).join(','), optional: true, shrink: 2 },
  { header: 'markers', value: (r) => (r.meta.markers ?? []).map((m) => m.toLowerCase()).join(','), optional: true, shrink: 3 },
  {
    header: 'size',
    value: (r) => (r.meta.size !== undefined ? fmtBytes(r.meta.size) : ''),
    raw: (r) => (r.meta.size !== undefined ? String(r.meta.size) : ''),
    align: 'right',
    optional: true,
    shrink: 4,
  },
];

/** Orders IMAP part numbers: 1 < 1.2 < 1.10 < 2 (JSON objects put "2" before "1.2"). */
export function compareImap(a: string, b: string): number {
  const x = a.split('.').map(Number);
  const y = b.split('.').map(Number);
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const d = (x[i] ?? -1) - (y[i] ?? -1);
    if (d) return d;
  }
  return 0;
}

export function renderMessage(io: IO, v: MessageView): void {
  const m = v.message;
  const line = (k: string, val: string | undefined) => {
    if (val) io.out(`${k.padEnd(9)}${sanitize(val)}`);
  };
  line('Id:', v.id);
  line('From:', formatAddresses(m.from));
  line('To:', formatAddresses(m.to));
  line('Cc:', formatAddresses(m.cc));
  line('Subject:', m.subject);
  line('Date:', m.date);
  line('Labels:', (m.labels ?? []).join(', '));
  line('Markers:', (m.markers ?? []).join(', '));
  line('Size:', m.size !== undefined ? `${fmtBytes(m.size)} (${m.size} bytes)` : undefined);
  if (v.prev !== undefined || v.next !== undefined) {
    line('Prev:', v.prev ?? '(none)');
    line('Next:', v.next ?? '(none)');
  }
  const parts = Object.entries(m.parts ?? {}).sort(([a], [b]) => compareImap(a, b));
  if (parts.length) {
    io.out('');
    renderTable(
      io,
      parts.map(([id, p]) => ({ id, ...p })),
      [
        { header: 'part', value: (p) => p.id },
        { header: 'type', value: (p) => p.mimeType },
        { header: 'size', value: (p) => fmtBytes(p.size), raw: (p) => String(p.size), align: 'right' },
        { header: 'file name', value: (p) => p.fileName, flexible: true },
      ],
    );
  }
  const body = m.textBody ?? (m.htmlBody !== undefined ? '(HTML body only; see --json for htmlBody)' : undefined);
  io.out('');
  // On a terminal the IO shows its controls in caret notation (CRLF stays a line end); a pipe gets the text as sent.
  if (body !== undefined) io.out(body);
  else io.out('(no pre-parsed body on this server; use `lanyard mailbox raw` or `part`)');
}
