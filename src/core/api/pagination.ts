/** Next-page discovery for `lanyard api --paginate`, one rule per service. */

/** The `rel="next"` target of an RFC 8288 Link header, if any. */
export function nextFromLinkHeader(link: string | undefined): string | undefined {
  if (!link) return undefined;
  for (const part of link.split(/,(?=\s*<)/)) {
    const m = /^\s*<([^>]*)>\s*(.*)$/.exec(part);
    if (!m) continue;
    const params = m[2]!.split(';').map((p) => p.trim());
    if (params.some((p) => /^rel\s*=\s*"?([^"]*)"?$/i.exec(p)?.[1]?.split(/\s+/).includes('next'))) return m[1];
  }
  return undefined;
}

/** The `nextLink` of a service-health page (`{value, nextLink}`). */
export function nextFromNextLink(body: unknown): string | undefined {
  const n = (body as { nextLink?: unknown })?.nextLink;
  return typeof n === 'string' && n ? n : undefined;
}

/**
 * Mailbox listing: the next `start` is the last id of the page; the server
 * includes `start` itself, so the caller drops the first item of later pages.
 */
export function lastMailboxId(body: unknown): string | undefined {
  if (Array.isArray(body)) return body.length ? String(body[body.length - 1]) : undefined;
  if (body && typeof body === 'object') {
    const keys = Object.keys(body);
    return keys.length ? keys[keys.length - 1] : undefined;
  }
  return undefined;
}

/** The items of a page, for merging pages into one array. */
export function pageItems(body: unknown): unknown[] {
  if (Array.isArray(body)) return body;
  if (body && typeof body === 'object') {
    const b = body as Record<string, unknown>;
    if (Array.isArray(b.value)) return b.value;
    if (Array.isArray(b.items)) return b.items;
    return Object.entries(b).map(([id, v]) => (v && typeof v === 'object' && !Array.isArray(v) ? { id, ...(v as object) } : { id, value: v }));
  }
  return [body];
}
