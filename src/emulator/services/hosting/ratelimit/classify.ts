/** Which resource family a request counts against, and what it costs in points. */
import { SecondaryLimits } from '../../../../shared/constants.js';
import type { Resource } from './callers.js';
import { getOperationAST, parse } from 'graphql';

export interface RequestClass {
  /** `rate_limit`: the overview endpoint, free of primary cost. */
  resource: Resource | 'rate_limit';
  endpoint: string;
  graphql: boolean;
}

const READ = new Set(['GET', 'HEAD', 'OPTIONS']);
/** The most tokens a query-API document may hold (the query API refuses more). */
export const MAX_QUERY_TOKENS = 15_000;
/** The largest query-API body read: over it, 413. */
export const MAX_QUERY_BODY = 1024 * 1024;

export function classifyRequest(method: string, path: string): RequestClass | undefined {
  const p = path.replace(/\/+$/, '') || '/';
  const endpoint = `${method} ${p.replace(/\/\d+(?=\/|$)/g, '/:id')}`;
  const c = (resource: RequestClass['resource'], graphql = false): RequestClass => ({ resource, endpoint, graphql });
  if (p === '/api/graphql') return c('graphql', true);
  if (/^\/[^/]+\/[^/]+\.git\/info\/lfs(\/|$)/.test(p)) return c('lfs');
  if (p !== '/api/v3' && !p.startsWith('/api/v3/')) return undefined;
  if (p === '/api/v3/rate_limit') return c('rate_limit');
  if (p === '/api/v3/search/code') return c('code_search');
  if (p.startsWith('/api/v3/search/')) return c('search');
  if (/^\/api\/v3\/enterprises\/[^/]+\/audit-log$/.test(p)) return c('audit_log');
  if (p.startsWith('/api/v3/app-manifests/')) return c('integration_manifest');
  if (p.startsWith('/api/v3/repos/') && p.endsWith('/import')) return c('source_import');
  if (/^\/api\/v3\/repos\/[^/]+\/[^/]+\/dependency-graph\/snapshots$/.test(p)) return c('dependency_snapshots');
  if (/^\/api\/v3\/repos\/[^/]+\/[^/]+\/dependency-graph\/sbom$/.test(p)) return c('dependency_sbom');
  if (/^\/api\/v3\/repos\/[^/]+\/[^/]+\/code-scanning\/sarifs$/.test(p) && method === 'POST') return c('code_scanning_upload');
  if (p.startsWith('/api/v3/scim/')) return c('scim');
  return c('core');
}

/** Points: reads 1, writes 5 (REST); query 1, mutation 5 (query API). */
export function pointsOf(method: string, operation?: QueryOperation): number {
  if (operation !== undefined) return operation === 'mutation' ? SecondaryLimits.pointsWrite : SecondaryLimits.pointsGet;
  return READ.has(method) ? SecondaryLimits.pointsGet : SecondaryLimits.pointsWrite;
}

/** Content-creating: REST writes (except the LFS batch API, a read) and query-API mutations. */
export function isContentCreating(method: string, cls: RequestClass, operation?: QueryOperation): boolean {
  if (cls.graphql) return operation === 'mutation';
  if (cls.resource === 'lfs' || cls.resource === 'rate_limit') return false;
  return !READ.has(method);
}

/** What a query API request runs, as far as the limits care: a mutation, or anything else. */
export type QueryOperation = 'mutation' | 'query';

/**
 * The operation a query API body runs: a mutation when the one its
 * `operationName` names in a document of several is one, whatever comes
 * first (a query, a fragment, comments). A body that does not parse is no
 * mutation (the query API refuses it anyway). Parsed at most once per
 * request: the caller passes the answer to pointsOf, cpuCostOf and
 * isContentCreating.
 */
export function queryOperationOf(body: string): QueryOperation {
  return body.includes('mutation') && parsesAsMutation(body) ? 'mutation' : 'query';
}

function parsesAsMutation(body: string): boolean {
  let query = body;
  let operationName: string | undefined;
  try {
    const j = JSON.parse(body) as { query?: unknown; operationName?: unknown };
    if (typeof j?.query === 'string') query = j.query;
    if (typeof j?.operationName === 'string') operationName = j.operationName;
  } catch {
    /* raw query text */
  }
  try {
    // The query API refuses a document of more tokens (see ../graphql.ts): no need to build its AST here.
    return getOperationAST(parse(query, { maxTokens: MAX_QUERY_TOKENS, noLocation: true }), operationName)?.operation === 'mutation';
  } catch {
    return false;
  }
}

/**
 * CPU time a request costs the service, in milliseconds: a deterministic
 * model (no wall clock), so the CPU-time secondary limit (90 s per 60 s)
 * trips at a known request. Reads 10 ms, writes 50 ms, searches 100 ms,
 * query-API requests 20 ms per point; `costs` (admin verb `cpu-cost`)
 * overrides by path prefix, longest first.
 */
export function cpuCostOf(method: string, path: string, cls: RequestClass, operation: QueryOperation | undefined, costs: ReadonlyMap<string, number>): number {
  let best: [string, number] | undefined;
  for (const [prefix, ms] of costs) if (path.startsWith(prefix) && (!best || prefix.length > best[0].length)) best = [prefix, ms];
  if (best) return best[1];
  if (cls.graphql) return 20 * pointsOf(method, operation);
  if (cls.resource === 'search' || cls.resource === 'code_search') return 100;
  return READ.has(method) ? 10 : 50;
}
