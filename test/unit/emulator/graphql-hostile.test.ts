/**
 * Hostile queries against the query API: each is answered quickly with a
 * GraphQL error, and the emulator keeps answering.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../../src/emulator/server.js';
import { SEED } from '../../../src/emulator/services/hosting/state.js';

let emu: Emulator;
beforeAll(async () => {
  emu = await startEmulator({ port: 0 });
});
afterAll(async () => {
  await emu.close();
});

const post = async (body: string, token: string | undefined = SEED.personalToken) => {
  const started = performance.now();
  const r = await fetch(`${emu.url}/api/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body,
  });
  return { status: r.status, json: (await r.json()) as any, ms: performance.now() - started };
};
const query = (q: string) => post(JSON.stringify({ query: q }));

/** Forty fragments, each spreading the next one twice: 2^40 expansions if each spread is walked again. */
function doublingFragments(n: number, leaf: string, on = 'User'): string {
  const defs = Array.from({ length: n }, (_, i) => `fragment F${i} on ${on} { ...F${i + 1} ...F${i + 1} }`);
  return `${defs.join('\n')}\nfragment F${n} on ${on} { ${leaf} }`;
}

describe('hostile query-API requests', () => {
  it('a spread repeated in each of 40 nested fragments is costed once per fragment: answered at once, and right', async () => {
    const r = await query(`{ viewer { ...F0 } }\n${doublingFragments(40, 'login')}`);
    expect(r.status).toBe(200);
    expect(r.json.errors).toBeUndefined();
    expect(r.json.data.viewer.login).toBe(SEED.user.login);
    expect(r.ms).toBeLessThan(1000);
  });

  it('aliases on the schema cycle (Repository.owner.repository) doubling 30 levels: refused before it runs', async () => {
    const { owner, name } = { owner: SEED.user.login, name: 'hello-world' };
    const levels = Array.from(
      { length: 30 },
      (_, i) =>
        `fragment R${i} on Repository { a: owner { repository(name: "${name}") { ...R${i + 1} } } b: owner { repository(name: "${name}") { ...R${i + 1} } } }`,
    );
    const q = `{ repository(owner: "${owner}", name: "${name}") { ...R0 } }\n${levels.join('\n')}\nfragment R30 on Repository { name }`;
    const r = await query(q);
    expect(r.status).toBe(200);
    expect(r.json.data).toBeUndefined();
    expect(r.json.errors[0]).toMatchObject({ type: 'MAX_FIELD_LIMIT_EXCEEDED' });
    expect(r.ms).toBeLessThan(1000);
  });

  it('a query nested too deeply for the parser is a GraphQL error, not a 500', async () => {
    // 7,000 nested lists are 14,000 tokens: on the main thread's stack (the CLI's emulator) they overflow the
    // parser (a RangeError, which was a 500); a worker thread's larger stack parses them and validation refuses them.
    const r = await query(`{ viewer { login(x: ${'['.repeat(7_000)}${']'.repeat(7_000)}) } }`);
    expect(r.status).toBe(200);
    expect(r.json.errors[0].message).toMatch(/Syntax Error|Unknown argument/);
    // 3,000 nested inline fragments parse (12,000 tokens); whatever overflows after the parser is an error too.
    for (const depth of [1_000, 2_000, 3_000]) {
      const deep = await query(`query { viewer { ${'...on User { '.repeat(depth)}login${' }'.repeat(depth)} } }`);
      expect(deep.status).toBe(200);
    }
    expect((await query('{ viewer { login } }')).json.data.viewer.login).toBe(SEED.user.login);
  });

  it('a document of 90,000 conflicting field pairs stops at 50 errors: the CPU of the specification’s rules, not one error per pair', async () => {
    // 600 fields of one response name inside viewer, alternately login and name ("different fields"); then the same at the root, of different types.
    for (const [inner, outer] of [
      ['a: login', 'a: name'],
      ['a: __typename', 'a: viewer { login }'],
    ]) {
      const fields = Array.from({ length: 600 }, (_, i) => (i % 2 ? inner : outer)).join(' ');
      const doc = inner === 'a: login' ? `{ viewer { ${fields} } }` : `{ ${fields} }`;
      const cpu = process.cpuUsage();
      const heap = process.memoryUsage().heapUsed;
      const { status, json } = await query(doc);
      const used = process.cpuUsage(cpu);
      expect(status).toBe(200);
      expect(json.errors).toHaveLength(50);
      expect(json.errors[0].message).toMatch(/^Fields "a" conflict because /);
      // The rules of the specification take ~0.3 s of CPU here; an error built for every pair took 3 s and 200 MB more.
      expect((used.user + used.system) / 1000).toBeLessThan(1500);
      expect(process.memoryUsage().heapUsed - heap).toBeLessThan(100 * 2 ** 20);
    }
  });
  it('a document of more than 15,000 tokens is refused by the parser', async () => {
    const r = await query(`{ viewer { ${'login '.repeat(20_000)} } }`);
    expect(r.json.errors[0].message).toMatch(/Document contains more that? 15000 tokens/);
  });

  it('a body over 1 MiB is a 413 before it is parsed; an anonymous one is a 401', async () => {
    const big = JSON.stringify({ query: `mutation { ${'a: __typename '.repeat(100_000)} }` });
    expect(big.length).toBeGreaterThan(1024 * 1024);
    const r = await post(big);
    expect([r.status, r.json.message]).toEqual([413, 'Request body too large']);
    const anonymous = await post(big, '');
    expect([anonymous.status, anonymous.json]).toEqual([401, expect.anything()]);
    // Under the cap, a mutation-looking body of too many tokens is refused by the parser (and counted as a query).
    const many = await post(JSON.stringify({ query: `mutation { ${'a: __typename '.repeat(50_000)} }` }));
    expect([many.status, many.json.errors[0].message]).toEqual([200, expect.stringMatching(/15000 tokens/)]);
    expect((await query('{ viewer { login } }')).json.data.viewer.login).toBe(SEED.user.login);
  });
});
