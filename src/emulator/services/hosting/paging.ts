/**
 * REST paging as the service does it: `per_page` (default 30, at most 100)
 * and `page`, with a `Link` header (`next`, `last`, `first`, `prev`) that
 * keeps the request's other query parameters.
 */
import type { EmuRequest } from '../../router.js';

/** The page a request asks for: `per_page` (default 30, at most 100) and `page` (from 1). */
export function pageOf(req: EmuRequest): { perPage: number; page: number } {
  const perPage = Math.min(100, Math.max(1, Number.parseInt(req.query.get('per_page') ?? '30', 10) || 30));
  const page = Math.max(1, Number.parseInt(req.query.get('page') ?? '1', 10) || 1);
  return { perPage, page };
}

export function paged<T>(req: EmuRequest, base: string, all: readonly T[]): { items: T[]; headers: Record<string, string> } {
  const { perPage, page } = pageOf(req);
  const last = Math.max(1, Math.ceil(all.length / perPage));
  const link = (p: number, rel: string) => {
    const u = new URL(`${base}${req.path}`);
    for (const [k, v] of req.query) if (k !== 'page') u.searchParams.set(k, v);
    u.searchParams.set('page', String(p));
    return `<${u}>; rel="${rel}"`;
  };
  const links: string[] = [];
  if (page < last) links.push(link(page + 1, 'next'), link(last, 'last'));
  if (page > 1) links.push(link(1, 'first'), link(page - 1, 'prev'));
  return { items: all.slice((page - 1) * perPage, page * perPage), headers: links.length ? { link: links.join(', ') } : {} };
}
