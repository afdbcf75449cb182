/**
 * The query API (`POST /api/graphql`) is a real GraphQL server: answers come
 * from the reference executor (`graphql`) over a schema that is a part of the
 * code host's published one (@octokit/graphql-schema, pinned), so an answer
 * holds exactly the selected fields, and aliases, fragments, variables,
 * introspection and validation errors behave as in any GraphQL server.
 */
import { schema as publishedSchema } from '@octokit/graphql-schema';
import { isDeepStrictEqual } from 'node:util';
import { buildSchema, type GraphQLField, type GraphQLNamedType, isInputObjectType, isInterfaceType, isObjectType, isUnionType } from 'graphql';
import { describe, expect, it } from 'vitest';
import { queryApiSchema } from '../../src/emulator/services/hosting/graphql.js';
import { useInProcessEmulator } from './in-process-emulator.js';

const ref = useInProcessEmulator();

async function query(source: string, o: { variables?: unknown; operationName?: string; token?: string | null } = {}) {
  const token = o.token === undefined ? ref.emu.fixtures.hosting.personalToken : o.token;
  const res = await fetch(ref.emu.urls.hosting.graphql, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `bearer ${token}` } : {}) },
    body: JSON.stringify({ query: source, variables: o.variables, operationName: o.operationName }),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as { data?: Record<string, any>; errors?: Array<Record<string, any>> } };
}

describe('the query API answers exactly what is selected', () => {
  it('rateLimit { limit remaining } carries limit and remaining only, from the graphql bucket', async () => {
    const r = await query('{ rateLimit { limit remaining } }');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ data: { rateLimit: { limit: expect.any(Number), remaining: expect.any(Number) } } });
    expect(r.headers.get('x-ratelimit-resource')).toBe('graphql');
    expect(r.body.data!.rateLimit.remaining).toBe(Number(r.headers.get('x-ratelimit-remaining')));
    // Each query costs one point of the primary budget.
    const again = await query('{ rateLimit { cost used remaining resetAt nodeCount } }');
    expect(again.body.data!.rateLimit).toMatchObject({ cost: 1, nodeCount: 0, remaining: r.body.data!.rateLimit.remaining - 1 });
    expect(again.body.data!.rateLimit.resetAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });

  it('aliases, fragments, variables and the operation name; the viewer, a user, a repository and a node', async () => {
    const doc = `
      query Other { viewer { id } }
      query Mine($owner: String!, $name: String!) {
        me: viewer { login ...Who }
        repo: repository(owner: $owner, name: $name) { nameWithOwner isPrivate visibility viewerPermission owner { login ... on User { isViewer } } }
        hubot: user(login: "hubot") { login isViewer }
      }
      fragment Who on User { databaseId url }`;
    const r = await query(doc, { variables: { owner: 'mona', name: 'lanyard-notes' }, operationName: 'Mine' });
    expect(r.body.errors).toBeUndefined();
    expect(r.body.data).toEqual({
      me: { login: 'mona', databaseId: expect.any(Number), url: expect.stringMatching(/\/mona$/) },
      repo: {
        nameWithOwner: 'mona/lanyard-notes',
        isPrivate: true,
        visibility: 'PRIVATE',
        viewerPermission: 'ADMIN',
        owner: { login: 'mona', isViewer: true },
      },
      hubot: { login: 'hubot', isViewer: false },
    });
    // The query API's ids are the REST API's node_id.
    const rest = (await (await fetch(`${ref.emu.urls.hosting.api}/repos/mona/hello-world`)).json()) as { node_id: string };
    const node = await query('query($id: ID!) { node(id: $id) { __typename ... on Repository { name } } }', { variables: { id: rest.node_id } });
    expect(node.body.data).toEqual({ node: { __typename: 'Repository', name: 'hello-world' } });
  });

  it('a field the schema lacks is a validation error with no data; a missing repository is NOT_FOUND with its field null', async () => {
    const bad = await query('{ rateLimit { limit bogus } }');
    expect(bad.status).toBe(200);
    expect(bad.body.data).toBeUndefined();
    expect(bad.body.errors![0]!.message).toMatch(/Cannot query field "bogus" on type "RateLimit"/);
    expect(bad.body.errors![0]!.locations).toEqual([{ line: 1, column: 21 }]);
    const missing = await query('{ repository(owner: "mona", name: "nope") { id } viewer { login } }');
    expect(missing.body.data).toEqual({ repository: null, viewer: { login: 'mona' } });
    expect(missing.body.errors).toEqual([
      { type: 'NOT_FOUND', path: ['repository'], locations: [{ line: 1, column: 3 }], message: "Could not resolve to a Repository with the name 'mona/nope'." },
    ]);
    // Another user's private repository is not found either.
    const hubot = (await ref.emu.admin('hosting', 'issue-token', { login: 'hubot', clientId: ref.emu.fixtures.hosting.app.clientId, scopes: ['repo'] })) as {
      access_token: string;
    };
    const foreign = await query('{ repository(owner: "mona", name: "lanyard-notes") { id } }', { token: hubot.access_token });
    expect(foreign.body.errors![0]!.type).toBe('NOT_FOUND');
  });

  it('not signed in: 401; a body that is no JSON: 400; a missing query: an error', async () => {
    expect((await query('{ viewer { login } }', { token: null })).status).toBe(401);
    const res = await fetch(ref.emu.urls.hosting.graphql, {
      method: 'POST',
      headers: { authorization: `bearer ${ref.emu.fixtures.hosting.personalToken}` },
      body: '{nope',
    });
    expect(res.status).toBe(400);
    expect((await query('')).body.errors![0]!.message).toMatch(/query attribute must be specified/);
  });

  it('introspection works (clients such as code generators and gh read the schema)', async () => {
    const r = await query('{ __type(name: "RateLimit") { fields { name } } }');
    expect(r.body.data!.__type.fields.map((f: { name: string }) => f.name).sort()).toEqual(['cost', 'limit', 'nodeCount', 'remaining', 'resetAt', 'used']);
  });
});

describe('the query API’s schema is a part of the published one (@octokit/graphql-schema)', () => {
  const published = buildSchema(publishedSchema.idl, { assumeValidSDL: true }); // the published file defines one field twice;

  const fieldsOf = (t: GraphQLNamedType): Record<string, GraphQLField<unknown, unknown>> =>
    isObjectType(t) || isInterfaceType(t) ? (t.getFields() as Record<string, GraphQLField<unknown, unknown>>) : {};

  it('every type, field, argument, default, interface and enum value it serves is published with the same type and nullability', () => {
    const differ: string[] = [];
    for (const t of Object.values(queryApiSchema.getTypeMap())) {
      if (t.name.startsWith('__')) continue;
      const p = published.getType(t.name);
      if (!p) {
        differ.push(`type ${t.name} is not published`);
        continue;
      }
      if (p.constructor !== t.constructor) differ.push(`${t.name} is a ${p.constructor.name} in the published schema`);
      if ('getValues' in t && 'getValues' in p) {
        const values = new Set(p.getValues().map((v) => v.name));
        for (const v of t.getValues()) if (!values.has(v.name)) differ.push(`${t.name}.${v.name} is not published`);
      }
      if ((isObjectType(t) || isInterfaceType(t)) && (isObjectType(p) || isInterfaceType(p))) {
        const ifaces = new Set(p.getInterfaces().map((i) => i.name));
        for (const i of t.getInterfaces()) if (!ifaces.has(i.name)) differ.push(`${t.name} does not implement ${i.name} in the published schema`);
      }
      const pf = fieldsOf(p);
      for (const [name, f] of Object.entries(fieldsOf(t))) {
        const q = pf[name];
        if (!q) differ.push(`${t.name}.${name} is not published`);
        else if (String(q.type) !== String(f.type)) differ.push(`${t.name}.${name}: ${f.type}, published ${q.type}`);
        else
          for (const a of f.args) {
            const qa = q.args.find((x) => x.name === a.name);
            if (!qa) differ.push(`${t.name}.${name}(${a.name}) is not published`);
            else if (String(qa.type) !== String(a.type) || !isDeepStrictEqual(qa.defaultValue, a.defaultValue))
              differ.push(`${t.name}.${name}(${a.name}) differs`);
          }
        // A required argument of the published field must be one the emulator takes too.
        for (const qa of q?.args ?? [])
          if (String(qa.type).endsWith('!') && !f.args.some((a) => a.name === qa.name)) differ.push(`${t.name}.${name} lacks ${qa.name}`);
      }
    }
    expect(differ).toEqual([]);
  });

  it('every input it takes has the published fields, types, nullability and defaults, and no required field the published one lacks', () => {
    const differ: string[] = [];
    for (const t of Object.values(queryApiSchema.getTypeMap())) {
      if (!isInputObjectType(t)) continue;
      const p = published.getType(t.name);
      if (!isInputObjectType(p)) {
        differ.push(`input ${t.name} is not published`);
        continue;
      }
      const mine = t.getFields();
      const theirs = p.getFields();
      // An input is taken whole: a field the emulator left out would be refused in a valid mutation.
      for (const name of Object.keys(theirs)) if (!mine[name]) differ.push(`${t.name}.${name} is missing`);
      for (const [name, f] of Object.entries(mine)) {
        const q = theirs[name];
        if (!q) differ.push(`${t.name}.${name} is not published`);
        else if (String(q.type) !== String(f.type) || !isDeepStrictEqual(q.defaultValue, f.defaultValue))
          differ.push(`${t.name}.${name}: ${f.type}, published ${q.type}`);
      }
    }
    expect(differ).toEqual([]);
  });

  it('every published mutation it serves takes the published arguments and answers the published payload type', () => {
    const mine = queryApiSchema.getMutationType()!.getFields();
    const theirs = published.getMutationType()!.getFields();
    expect(Object.keys(mine).length).toBeGreaterThanOrEqual(14);
    for (const [name, f] of Object.entries(mine)) {
      expect(theirs[name], name).toBeDefined();
      expect(String(f.type), name).toBe(String(theirs[name]!.type));
      expect(
        f.args.map((a) => `${a.name}: ${a.type}`),
        name,
      ).toEqual(theirs[name]!.args.map((a) => `${a.name}: ${a.type}`));
    }
    // A union lists only members the published union has.
    const unions = Object.values(queryApiSchema.getTypeMap()).filter(isUnionType);
    expect(unions.map((u) => u.name).sort()).toEqual(['IssueOrPullRequest', 'Reactor', 'SearchResultItem']);
    for (const u of unions) {
      const p = published.getType(u.name);
      const members = new Set(isUnionType(p) ? p.getTypes().map((t) => t.name) : []);
      expect(
        u
          .getTypes()
          .filter((t) => !members.has(t.name))
          .map((t) => t.name),
        u.name,
      ).toEqual([]);
    }
  });
});
