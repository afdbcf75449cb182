/** Which requests the client paces as content-creating: REST writes, and of the query API the mutations only. */
import { describe, expect, it } from 'vitest';
import { isContentCreating } from '../../../../src/core/ratelimit/secondary-scope.js';

const gql = new URL('https://ghe.example/api/graphql');
const cc = (body: unknown) => isContentCreating('POST', gql, body);

describe('isContentCreating', () => {
  it('REST: writes except /rate_limit; reads never', () => {
    expect(isContentCreating('POST', new URL('https://api.example/user/repos'), {})).toBe(true);
    expect(isContentCreating('GET', new URL('https://api.example/user/repos'), undefined)).toBe(false);
    expect(isContentCreating('POST', new URL('https://api.example/rate_limit'), undefined)).toBe(false);
  });

  it('the query API: a query (named, anonymous, shorthand) is a read; a mutation is content-creating', () => {
    expect(cc({ query: '{ viewer { login } }' })).toBe(false);
    expect(cc({ query: 'query Q($a: Int) { viewer { login } }' })).toBe(false);
    expect(cc({ query: 'mutation { addStar(input: {starrableId: "x"}) { clientMutationId } }' })).toBe(true);
    expect(cc(JSON.stringify({ query: '  # a comment\n mutation M { addStar(input: {starrableId: "x"}) { clientMutationId } }' }))).toBe(true);
  });

  it('a fragment or a query first does not hide the mutation; operationName picks the operation', () => {
    const doc =
      'fragment F on Issue { id } query Look { viewer { login } } mutation Make($r: ID!) { createIssue(input: {repositoryId: $r, title: "query"}) { issue { ...F } } }';
    expect(cc({ query: doc, operationName: 'Make' })).toBe(true);
    expect(cc({ query: doc, operationName: 'Look' })).toBe(false);
    expect(
      cc({ query: 'query Look { viewer { login } } mutation Make { addStar(input: {starrableId: "x"}) { clientMutationId } }', operationName: 'Make' }),
    ).toBe(true);
    expect(cc({ query: 'fragment F on Issue { id } mutation { closeIssue(input: {issueId: "x"}) { issue { ...F } } }' })).toBe(true);
    // Keywords inside strings and comments are no operations.
    expect(cc({ query: 'query { search(query: "mutation {") { issueCount } } # mutation {' })).toBe(false);
  });

  it('a body it cannot read, or a name no operation has, is paced (the safe side)', () => {
    expect(cc(undefined)).toBe(true);
    expect(cc({ query: 42 })).toBe(true);
    expect(cc({ query: '{ viewer { login } }', operationName: 'Missing' })).toBe(true);
  });
});
