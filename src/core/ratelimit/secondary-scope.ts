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

/**
 * A query-API body whose operation is a mutation: the operation its
 * `operationName` names, or its only one (a fragment, comments or strings
 * before it change nothing). A body that cannot be read counts as one
 * (paced: the safe side), and so does a name no operation has.
 */
function isMutation(body: unknown): boolean {
  let doc: unknown = body;
  if (typeof body === 'string') {
    try {
      doc = JSON.parse(body);
    } catch {
      doc = body;
    }
  }
  let operationName: unknown;
  if (doc && typeof doc === 'object' && 'query' in doc) {
    operationName = (doc as { operationName?: unknown }).operationName;
    doc = (doc as { query: unknown }).query;
  }
  if (typeof doc !== 'string') return true;
  const ops = operationsOf(doc);
  if (typeof operationName === 'string' && operationName) {
    const named = ops.find((o) => o.name === operationName);
    return named ? named.kind === 'mutation' : true;
  }
  return ops.length === 0 || ops.some((o) => o.kind === 'mutation');
}

/** The operations of a GraphQL document (kind and name), read at the top level: comments, strings and selection sets skipped. */
function operationsOf(text: string): Array<{ kind: string; name?: string }> {
  const bare = text.replace(/"""[\s\S]*?"""|"(?:[^"\\\n]|\\.)*"|#[^\n\r]*/g, ' ');
  const ops: Array<{ kind: string; name?: string }> = [];
  let depth = 0;
  let top = '';
  for (const c of bare) {
    if (c === '{') {
      if (depth === 0) {
        const m = /\b(query|mutation|subscription|fragment)\b\s*([_A-Za-z][_0-9A-Za-z]*)?/.exec(top);
        if (!m) ops.push({ kind: 'query' });
        else if (m[1] !== 'fragment') ops.push({ kind: m[1]!, name: m[2] });
        top = '';
      }
      depth++;
    } else if (c === '}') depth = Math.max(0, depth - 1);
    else if (depth === 0) top += c;
  }
  return ops;
}
