import { describe, expect, it } from 'vitest';
import { classifyRequest, isContentCreating, pointsOf, queryOperationOf } from '../../../src/emulator/services/hosting/ratelimit/classify.js';
import { WindowCounter } from '../../../src/emulator/services/hosting/ratelimit/buckets.js';

describe('request classes of the hosting rate limiter', () => {
  it('maps paths to resource families', () => {
    const r = (m: string, p: string) => classifyRequest(m, p)?.resource;
    expect(r('GET', '/api/v3/user')).toBe('core');
    expect(r('GET', '/api/v3')).toBe('core');
    expect(r('GET', '/api/v3/rate_limit')).toBe('rate_limit');
    expect(r('GET', '/api/v3/search/issues')).toBe('search');
    expect(r('GET', '/api/v3/search/code')).toBe('code_search');
    expect(r('POST', '/api/graphql')).toBe('graphql');
    expect(r('GET', '/api/v3/enterprises/acme/audit-log')).toBe('audit_log');
    expect(r('POST', '/api/v3/app-manifests/abc/conversions')).toBe('integration_manifest');
    expect(r('POST', '/api/v3/repos/o/r/code-scanning/sarifs')).toBe('code_scanning_upload');
    expect(r('POST', '/o/r.git/info/lfs/objects/batch')).toBe('lfs');
    expect(r('GET', '/login/oauth/authorize')).toBeUndefined();
    expect(r('GET', '/api/v30/user')).toBeUndefined();
    expect(classifyRequest('GET', '/api/v3/repos/o/r/issues/42')?.endpoint).toBe('GET /api/v3/repos/o/r/issues/:id');
  });

  it('points: reads 1, writes 5; query 1, mutation 5', () => {
    expect(pointsOf('GET')).toBe(1);
    expect(pointsOf('HEAD')).toBe(1);
    expect(pointsOf('DELETE')).toBe(5);
    expect(pointsOf('POST', queryOperationOf('{"query":"{ viewer { login } }"}'))).toBe(1);
    expect(pointsOf('POST', queryOperationOf('{"query":"mutation { addStar(input: {}) { clientMutationId } }"}'))).toBe(5);
    expect(pointsOf('POST', queryOperationOf('{"query":"# a comment\\nmutation M { x }"}'))).toBe(5);
  });

  it('content-creating: REST writes and mutations; not the LFS batch API or queries', () => {
    const c = (m: string, p: string, body?: string) => isContentCreating(m, classifyRequest(m, p)!, body === undefined ? undefined : queryOperationOf(body));
    expect(c('POST', '/api/v3/user/repos')).toBe(true);
    expect(c('GET', '/api/v3/user/repos')).toBe(false);
    expect(c('POST', '/o/r.git/info/lfs/objects/batch')).toBe(false);
    expect(c('POST', '/api/graphql', '{"query":"query { viewer { login } }"}')).toBe(false);
    expect(c('POST', '/api/graphql', '{"query":"mutation { createIssue { id } }"}')).toBe(true);
    // The operation the body runs decides: operationName picks it; a fragment or a query before it hides nothing.
    const doc = 'query Look { viewer { login } } mutation Make { addStar(input: {starrableId: \\"x\\"}) { clientMutationId } }';
    expect(c('POST', '/api/graphql', `{"query":"${doc}","operationName":"Make"}`)).toBe(true);
    expect(c('POST', '/api/graphql', `{"query":"${doc}","operationName":"Look"}`)).toBe(false);
    expect(c('POST', '/api/graphql', '{"query":"fragment F on Issue { id } mutation { closeIssue(input: {}) { issue { ...F } } }"}')).toBe(true);
    expect(c('POST', '/api/graphql', '{"query":"query { search(query: \\"mutation\\") { issueCount } }"}')).toBe(false);
    expect(pointsOf('POST', queryOperationOf(`{"query":"${doc}","operationName":"Make"}`))).toBe(5);
  });

  it('a window counter refuses beyond its limit until the window passes', () => {
    const w = new WindowCounter(60_000);
    expect(w.take(0, 5, 6)).toBe(true);
    expect(w.take(1000, 5, 6)).toBe(false);
    expect(w.secondsLeft(1000)).toBe(59);
    expect(w.take(60_000, 5, 6)).toBe(true);
  });
});
