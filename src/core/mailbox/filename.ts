/**
 * Safe local file names for `mailbox part --output DIR`: the name from
 * Content-Disposition (RFC 6266, `filename*` preferred) reduced to a single
 * path component without separators, `..`, control or reserved characters.
 */
import { parse as parseContentDisposition } from 'content-disposition';
import { basename, resolve, sep } from 'node:path';

/** The filename parameter of a Content-Disposition header, if any. */
export function dispositionFileName(header: string | undefined): string | undefined {
  if (!header) return undefined;
  try {
    // `filename` holds the decoded `filename*` when both are present.
    return parseContentDisposition(header).parameters.filename ?? undefined;
  } catch {
    const m = /filename\s*=\s*"?([^";]+)"?/i.exec(header);
    return m?.[1];
  }
}

/** A name that is one harmless path component (or undefined when nothing usable is left). */
export function safeFileName(name: string | undefined): string | undefined {
  if (!name) return undefined;
  // Keep only the last component of either separator style.
  let n = name.split(/[\\/]/).pop() ?? '';
  // eslint-disable-next-line no-control-regex
  n = n.replace(/[\u0000-\u001f\u007f-\u009f]/g, '').replace(/[<>:"|?*]/g, '_');
  n = n.replace(/^[.\s]+/, '').replace(/[.\s]+$/, '');
  if (!n || n === '.' || n === '..') return undefined;
  if (/^(con|prn|aux|nul|com\d|lpt\d)(\..*)?$/i.test(n)) n = '_' + n;
  if (Buffer.byteLength(n) > 200) n = n.slice(0, 200);
  return basename(n);
}

/** Joins `dir` and a safe name, refusing anything that would land outside `dir`. */
export function pathInside(dir: string, name: string): string {
  const root = resolve(dir);
  const full = resolve(root, name);
  if (!full.startsWith(root + sep)) throw new Error(`refusing to write outside ${root}: ${name}`);
  return full;
}
