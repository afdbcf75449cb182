/** `lanyard api graphql`: where the query API sits beside the REST base, and how fields become its body (as gh does both). */
import { describe, expect, it } from 'vitest';
import { queryApiBody, queryApiUrl } from '../../../../src/cli/commands/api/targets.js';

describe('the query API beside the REST base', () => {
  it('a server’s /api/v3 has it at /api/graphql; a public API host at /graphql', () => {
    expect(queryApiUrl('https://ghe.example/api/v3')).toBe('https://ghe.example/api/graphql');
    expect(queryApiUrl('http://127.0.0.1:4010/api/v3/')).toBe('http://127.0.0.1:4010/api/graphql');
    expect(queryApiUrl('https://api.example.com')).toBe('https://api.example.com/graphql');
  });

  it('query and operationName stay; every other field is a variable; no variables, no key', () => {
    expect(queryApiBody({ query: 'q', operationName: 'Op', owner: 'mona', n: 3 })).toEqual({
      query: 'q',
      operationName: 'Op',
      variables: { owner: 'mona', n: 3 },
    });
    expect(queryApiBody({ query: '{ viewer { login } }' })).toEqual({ query: '{ viewer { login } }' });
  });
});
