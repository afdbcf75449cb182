/** Next-page discovery for `lanyard api --paginate`, one rule per service, and the bounds of following them. */
import { LanyardError } from '../errors.js';
import { redactUrl } from '../http/redact.js';
import type { ServiceName } from '../errors.js';

/** Pages in a row without a single item after which pagination stops. */
export const MAX_EMPTY_PAGES = 10;

/**
 * What a next-page link may be: on the first page's origin (the credential
 * belongs to it; a server cannot send it elsewhere with a Link or a
 * nextLink), not a page fetched before (a loop), and not the
 * MAX_EMPTY_PAGES-th page in a row without items.
 */
export class PageGuard {
  readonly #origin: string;
  readonly #fetched = new Set<string>();
  #empty: number;

  /** `emptyPages`: pages in a row without items so far (a resumed run carries the count over). */
  constructor(firstUrl: string, o: { emptyPages?: number } = {}) {
    const u = new URL(firstUrl);
    this.#origin = u.origin;
    this.#fetched.add(u.toString());
    this.#empty = o.emptyPages ?? 0;
  }

  /** Pages in a row without items, up to the last one checked. */
  get emptyPages(): number {
    return this.#empty;
  }

  /** Why a saved next-page URL (a resumed run's) may not be fetched, or undefined. */
  check(url: string): string | undefined {
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      return 'the saved next-page link is not a valid URL';
    }
    if (u.origin !== this.#origin) return `the saved next page is on another origin (${u.origin}) than the first page`;
    this.#fetched.add(u.toString());
    return undefined;
  }

  /**
   * The next page's URL (`link` resolved against the page it came from), or
   * why it is not followed (one line). `items`: how many the current page had.
   */
  next(link: string, current: string, items: number): URL | string {
    let u: URL;
    try {
      u = new URL(link, current);
    } catch {
      return `the next-page link is not a valid URL`;
    }
    if (u.origin !== this.#origin) return `the next page is on another origin (${u.origin}); not followed, as credentials go only to the origin they belong to`;
    const key = u.toString();
    if (this.#fetched.has(key)) return `the next-page link repeats a page already fetched (${redactUrl(key)}); stopped`;
    this.#empty = items > 0 ? 0 : this.#empty + 1;
    if (this.#empty >= MAX_EMPTY_PAGES) return `${MAX_EMPTY_PAGES} pages in a row without items; stopped`;
    this.#fetched.add(key);
    return u;
  }
}

/** Which rule finds a service's next page. */
/** Every service pages (its own way). */
export type PagedService = ServiceName;

/** One page as the server answered it. */
export interface FetchedPage {
  headers: Record<string, string | undefined>;
  body: unknown;
}

/**
 * The page fetcher of `lanyard api --paginate`: fetches a page by URL, takes
 * its items (mailbox pages after the first drop the repeated start item),
 * finds the next page by the service's rule and checks it with a
 * {@link PageGuard} (an error with the guard's reason when refused).
 */
export function apiPager(o: { service: PagedService; firstUrl: string; get: (url: string) => Promise<FetchedPage>; emptyPages?: number }) {
  const guard = new PageGuard(o.firstUrl, { emptyPages: o.emptyPages });
  let mailboxStart: string | undefined;
  return {
    guard,
    async fetch(url: string): Promise<{ items: unknown[]; next?: string; emptyPages: number }> {
      const { headers, body } = await o.get(url);
      let items = pageItems(body);
      if (o.service === 'mailbox' && url !== o.firstUrl && items.length) items = items.slice(1);
      let next: string | undefined;
      if (o.service === 'health') next = nextFromNextLink(body);
      else if (o.service === 'mailbox') {
        const last = lastMailboxId(body);
        if (last && last !== (mailboxStart ?? new URL(url).searchParams.get('start')) && items.length) {
          mailboxStart = last;
          const u = new URL(o.firstUrl);
          u.searchParams.set('start', last);
          next = u.toString();
        }
      } else next = nextFromLinkHeader(headers.link);
      if (next === undefined) return { items, emptyPages: guard.emptyPages };
      const checked = guard.next(next, url, items.length);
      if (typeof checked === 'string') throw new LanyardError('protocol_error', `--paginate: ${checked}`);
      return { items, next: checked.toString(), emptyPages: guard.emptyPages };
    },
  };
}

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
