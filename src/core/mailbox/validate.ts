/**
 * Input checks done before any mailbox request (bad input → ValidationError,
 * exit 2): message ids, labels, counts, part ids and marker names.
 */
import { Mailbox } from '../../shared/mailbox.js';
import { ValidationError } from '../errors.js';

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function validateMessageId(id: string, what = 'message id'): string {
  const t = id.trim();
  if (!UUID_RE.test(t)) throw new ValidationError(`${what}: "${id}" is not a UUID (expected 8-4-4-4-12 hex digits)`);
  return t.toLowerCase();
}

export function validateLabel(v: string | number, flag = '--label'): number {
  const s = String(v).trim();
  if (!/^\d{1,9}$/.test(s)) throw new ValidationError(`${flag}: labels are whole numbers ≥ 0, got "${v}"`);
  return Number(s);
}

export function validateCount(v: string | number): number {
  const s = String(v).trim();
  const n = /^\d+$/.test(s) ? Number(s) : NaN;
  if (!(n >= 1 && n <= Mailbox.maxCount)) throw new ValidationError(`--count: must be between 1 and ${Mailbox.maxCount}, got "${v}"`);
  return n;
}

/** Accepts `seen`, `SEEN`, …; returns the wire form (upper case). */
export function validateMarker(v: string, flag = '--marker'): string {
  const up = v.trim().toUpperCase();
  if (!(Mailbox.markers as readonly string[]).includes(up)) {
    throw new ValidationError(`${flag}: unknown marker "${v}" (one of ${Mailbox.markers.map((m) => m.toLowerCase()).join(', ')})`);
  }
  return up;
}

/** `1`, `1.2`, `2.1.3` (IMAP body-part numbering) or `<content-id>`. */
export function validatePartId(v: string): { kind: 'number' | 'content-id'; value: string } {
  const t = v.trim();
  if (/^[1-9]\d*(\.[1-9]\d*)*$/.test(t)) return { kind: 'number', value: t };
  if (/^<[^<>\s]+>$/.test(t)) return { kind: 'content-id', value: t };
  throw new ValidationError(`part id: "${v}" is neither an IMAP part number (1, 1.2, 2.1.3) nor a content id in angle brackets (<id@host>)`);
}

/** Labels to remove: label 0 cannot be removed. */
export function validateRemovableLabel(v: string | number, flag = '--remove'): number {
  const n = validateLabel(v, flag);
  if (n === Mailbox.allMailsLabel) {
    throw new ValidationError(`${flag} 0: label 0 holds every message and cannot be removed (delete the message instead)`);
  }
  return n;
}
