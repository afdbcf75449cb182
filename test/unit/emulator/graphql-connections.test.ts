/** The query API's connections and its published node limits and cost, on the emulator's schema. */
import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { connection, costOf } from '../../../src/emulator/services/hosting/graphql/connections.js';
import { queryApiSchema } from '../../../src/emulator/services/hosting/graphql.js';

const items = Array.from({ length: 7 }, (_, i) => i + 1);
/** A page's nodes (built when the executor asks for them). */
const numbers = (c: { nodes: () => number[] }) => c.nodes();

describe('connection', () => {
  it('first/after walk forwards, last/before backwards, with pageInfo and cursors that round-trip', () => {
    const p1 = connection(items, { first: 3 }, (n) => n);
    expect(numbers(p1)).toEqual([1, 2, 3]);
    expect(p1.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false });
    const p2 = connection(items, { first: 3, after: p1.pageInfo.endCursor }, (n) => n);
    expect(numbers(p2)).toEqual([4, 5, 6]);
    const tail = connection(items, { last: 2 }, (n) => n);
    expect(numbers(tail)).toEqual([6, 7]);
    expect(tail.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true });
    expect(numbers(connection(items, { last: 2, before: tail.pageInfo.startCursor }, (n) => n))).toEqual([4, 5]);
    const none = connection(items, { first: 0 }, (n) => n);
    expect(none).toMatchObject({ totalCount: 7, pageInfo: { startCursor: null, endCursor: null } });
    expect(numbers(none)).toEqual([]);
    expect(
      connection(
        items,
        { first: 2 },
        (n) => n,
        (n) => ({ starredAt: `t${n}` }),
      ).edges()[1],
    ).toMatchObject({ node: 2, starredAt: 't2' });
  });

  it('a cursor it did not make is INVALID_CURSOR_ARGUMENTS', () => {
    expect(() => connection(items, { first: 1, after: 'bm9wZQ==' }, (n) => n)).toThrow(
      expect.objectContaining({ message: '`bm9wZQ==` does not appear to be a valid cursor.', extensions: { type: 'INVALID_CURSOR_ARGUMENTS' } }),
    );
  });
});

describe('costOf', () => {
  const cost = (q: string, variables?: Record<string, unknown>, operationName?: string) => costOf(queryApiSchema, parse(q), operationName, variables);

  it('no connection: 1 point, no nodes; connections through fragments and variables count', () => {
    expect(cost('{ viewer { login } }')).toEqual({ cost: 1, nodeCount: 0 });
    const q = `query($n: Int) { repository(owner: "a", name: "b") { ...R } }
      fragment R on Repository { issues(first: $n) { nodes { ... on Issue { comments(last: 100) { totalCount } } } } }`;
    // 1 request for the issues, 100 for their comments: 101 / 100 -> 1 point; 100 + 100 * 100 nodes.
    expect(cost(q, { n: 100 })).toEqual({ cost: 1, nodeCount: 10_100 });
    // 1 request for the issues, 100 for their comments, 100 for their labels: 201 -> 2 points; 100 + 100 + 100 nodes.
    const two = '{ repository(owner: "a", name: "b") { issues(first: 100) { nodes { comments(first: 1) { totalCount } labels(first: 1) { totalCount } } } } }';
    expect(cost(two)).toEqual({ cost: 2, nodeCount: 300 });
  });

  it('the operation operationName picks is the one costed; a missing or excessive page size is an error', () => {
    const doc =
      'query Small { viewer { login } } query Big { repository(owner: "a", name: "b") { issues(first: 100) { nodes { comments(first: 100) { totalCount } labels(first: 100) { totalCount } } } } }';
    expect(cost(doc, undefined, 'Big')).toEqual({ cost: 2, nodeCount: 20_100 });
    expect(cost(doc, undefined, 'Small')).toEqual({ cost: 1, nodeCount: 0 });
    const errors = cost('{ repository(owner: "a", name: "b") { issues(first: -1) { totalCount } labels { nodes { name } } } }') as Array<{ message: string }>;
    expect(errors.map((e) => e.message)).toEqual([
      'Requesting -1 records on the `issues` connection exceeds the `first` limit of 100 records.',
      'You must provide a `first` or `last` value to properly paginate the `labels` connection.',
    ]);
    // A page size from a variable's default (gh issue status: `$per_page: Int = 10`), or from the variables sent.
    const defaulted = 'query($n: Int = 10) { repository(owner: "a", name: "b") { issues(first: $n) { nodes { number } } } }';
    expect(cost(defaulted)).toEqual({ cost: 1, nodeCount: 10 });
    expect(cost(defaulted, { n: 30 })).toEqual({ cost: 1, nodeCount: 30 });
    // A connection asked only for its count needs no page size and adds a request but no nodes.
    expect(cost('{ repository(owner: "a", name: "b") { issues(states: OPEN) { totalCount } } }')).toEqual({ cost: 1, nodeCount: 0 });
    expect(cost('{ repository(owner: "a", name: "b") { labels { ...L } } } fragment L on LabelConnection { edges { cursor } }')).toEqual([
      expect.objectContaining({ message: 'You must provide a `first` or `last` value to properly paginate the `labels` connection.' }),
    ]);
  });
});
