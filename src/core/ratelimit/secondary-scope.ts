/**
 * Where the code host's secondary limits are enforced on the client side, and
 * what it counts as content-creating. The limits (at most 100 requests at
 * once, 80 content-creating requests a minute and 500 an hour) are the code
 * host's (hosting spec, "Secondary limits"): they apply to its API only.
 * Other services state no such limit; their servers' `Retry-After` is
 * honoured instead (policy.ts).
 */

/** The code host's public API root: the default where no other is configured. */
export const DEFAULT_HOSTING_API = 'https://api.github.com';

/**
 * The roots a code host's API answers under, from its REST root: the root
 * itself, and for an installation whose REST API is at `…/api/v3` the query
 * API beside it (`…/api/graphql`); the public host's query API (`/graphql`)
 * is under its root already.
 */
export function hostingApiRoots(apiUrl: string): string[] {
  let u: URL;
  try {
    u = new URL(apiUrl);
  } catch {
    return [];
  }
  const path = u.pathname.replace(/\/+$/, '');
  const roots = [`${u.origin}${path}`];
  if (/\/api\/v3$/.test(path)) roots.push(`${u.origin}${path.replace(/\/v3$/, '/graphql')}`);
  return roots;
}

/** Whether `url` is at or below one of `roots` (same origin, path at or under the root's). */
export function underRoots(url: URL, roots: readonly string[]): boolean {
  for (const r of roots) {
    const root = new URL(r);
    if (root.origin !== url.origin) continue;
    const base = root.pathname.replace(/\/+$/, '');
    if (base === '' || url.pathname === base || url.pathname.startsWith(`${base}/`)) return true;
  }
  return false;
}

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Whether the code host counts a request to its API as content-creating:
 * a write (POST, PATCH, PUT, DELETE) of the REST API except `/rate_limit`;
 * of the query API only a mutation (a query is a read, sent as a POST).
 * `body` is the request's JSON or text body, when it has one.
 */
export function isContentCreating(method: string, url: URL, body: unknown): boolean {
  if (READS.has(method)) return false;
  if (/\/graphql$/.test(url.pathname)) return isMutation(body);
  return !/\/rate_limit$/.test(url.pathname);
}

/** A query-API body whose operation is a mutation; a body that cannot be read counts as one (paced: the safe side). */
function isMutation(body: unknown): boolean {
  let query: unknown = body;
  if (typeof body === 'string') {
    try {
      query = JSON.parse(body);
    } catch {
      query = body;
    }
  }
  if (query && typeof query === 'object' && 'query' in query) query = (query as { query: unknown }).query;
  if (typeof query !== 'string') return true;
  const text = query.replace(/^\s*#.*$/gm, '');
  return !/^\s*(query\b|subscription\b|\{)/.test(text);
}
