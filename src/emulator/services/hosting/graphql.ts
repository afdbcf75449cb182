/**
 * The query API (`POST /api/graphql`): answers come from the reference
 * GraphQL executor (`graphql`) over a schema that follows the code host's
 * published one for what the emulator serves — `viewer`, `user`,
 * `repository`, `node` and `rateLimit`, with the published names, types and
 * nullability of their fields. So an answer holds exactly the fields the
 * query selects, aliases and fragments and variables work, and a query for a
 * field the schema lacks is refused the way any GraphQL server refuses it.
 *
 * Errors keep the service's shape: HTTP 200 with `errors` (a resource not
 * found is `type: NOT_FOUND` with its field null); a body that is no JSON is
 * a 400. The points a query costs (1, a mutation 5) are counted by the rate
 * limiter before the query runs; `rateLimit` reports the primary budget the
 * limiter's headers carry for this request.
 */
import { buildSchema, GraphQLError, graphql, type GraphQLFormattedError } from 'graphql';
import type { EmulatorEnv } from '../../service.js';
import type { EmuRequest, Router } from '../../router.js';
import type { Caller } from './ratelimit/callers.js';
import type { RepoRecord, RepoStore } from './ratelimit/fixtures.js';
import { apiTime, JOINED, nodeIdOf, organizationIdOf } from './repository.js';
import type { HostingState, HostingUser } from './state.js';

const DOCS = 'https://docs.example.com/graphql';

/** The part of the published schema the emulator serves (names, types, nullability and descriptions as published). */
const SDL = /* GraphQL */ `
"An ISO-8601 encoded UTC date string."
scalar DateTime

"An RFC 3986, RFC 3987, and RFC 6570 (level 4) compliant URI string."
scalar URI

"An object with an ID."
interface Node {
  "ID of the object."
  id: ID!
}

"Represents an object which can take actions on GitHub. Typically a User or Bot."
interface Actor {
  avatarUrl(size: Int): URI!
  login: String!
  resourcePath: URI!
  url: URI!
}

"Represents an owner of a Repository."
interface RepositoryOwner {
  avatarUrl(size: Int): URI!
  id: ID!
  login: String!
  repository(followRenames: Boolean = true, name: String!): Repository
  resourcePath: URI!
  url: URI!
}

"Represents the client's rate limit."
type RateLimit {
  "The point cost for the current query counting against the rate limit."
  cost: Int!
  "The maximum number of points the client is permitted to consume in a 60 minute window."
  limit: Int!
  "The maximum number of nodes this query may return"
  nodeCount: Int!
  "The number of points remaining in the current rate limit window."
  remaining: Int!
  "The time at which the current rate limit window resets in UTC epoch seconds."
  resetAt: DateTime!
  "The number of points used in the current rate limit window."
  used: Int!
}

"A user is an individual's account on GitHub that owns repositories and can make new content."
type User implements Actor & Node & RepositoryOwner {
  avatarUrl(size: Int): URI!
  bio: String
  company: String
  createdAt: DateTime!
  databaseId: Int
  email: String!
  id: ID!
  isViewer: Boolean!
  location: String
  login: String!
  name: String
  repository(followRenames: Boolean = true, name: String!): Repository
  resourcePath: URI!
  updatedAt: DateTime!
  url: URI!
  websiteUrl: URI
}

"An account on GitHub, with one or more owners, that has repositories, members and teams."
type Organization implements Actor & Node & RepositoryOwner {
  avatarUrl(size: Int): URI!
  createdAt: DateTime!
  databaseId: Int
  id: ID!
  login: String!
  name: String
  repository(followRenames: Boolean = true, name: String!): Repository
  resourcePath: URI!
  updatedAt: DateTime!
  url: URI!
}

"The access level to a repository"
enum RepositoryPermission {
  ADMIN
  MAINTAIN
  READ
  TRIAGE
  WRITE
}

"The repository's visibility level."
enum RepositoryVisibility {
  INTERNAL
  PRIVATE
  PUBLIC
}

"A repository contains the content for a project."
type Repository implements Node {
  createdAt: DateTime!
  databaseId: Int
  description: String
  forkCount: Int!
  id: ID!
  isArchived: Boolean!
  isFork: Boolean!
  isPrivate: Boolean!
  isTemplate: Boolean!
  name: String!
  nameWithOwner: String!
  owner: RepositoryOwner!
  pushedAt: DateTime
  resourcePath: URI!
  stargazerCount: Int!
  updatedAt: DateTime!
  url: URI!
  viewerPermission: RepositoryPermission
  visibility: RepositoryVisibility!
}

"The query root of GitHub's GraphQL interface."
type Query {
  "Fetches an object given its ID."
  node(id: ID!): Node
  "The client's rate limit information."
  rateLimit(dryRun: Boolean = false): RateLimit
  "Lookup a given repository by the owner and repository name."
  repository(followRenames: Boolean = true, name: String!, owner: String!): Repository
  "Lookup a user by login."
  user(login: String!): User
  "The currently authenticated user."
  viewer: User!
}
`;

/** The schema the executor runs (exported for the test that compares it with the published one). */
export const queryApiSchema = buildSchema(SDL);

/** What the query API reads: the users, the repositories, who may see one. */
export interface QueryApiContext {
  state: HostingState;
  env: EmulatorEnv;
  repos: RepoStore;
  visible(req: EmuRequest, r: RepoRecord | undefined): boolean;
}

/** An error the service types (`NOT_FOUND`, `FORBIDDEN`), with the field it concerns null. */
const typed = (type: string, message: string) => new GraphQLError(message, { extensions: { type } });

/** The service's error shape: `type` beside the message when it has one, no `extensions` otherwise. */
function formatError(e: GraphQLError): GraphQLFormattedError & { type?: string } {
  const { extensions, ...rest } = e.toJSON();
  const type = extensions?.type;
  return typeof type === 'string' ? { type, ...rest } : rest;
}

/** The objects a query leads to (users, organizations, repositories), as one request's caller sees them. */
class QueryObjects {
  readonly base: string;
  /** The signed-in user's login, if the caller is one. */
  readonly viewer: string | undefined;

  constructor(
    readonly req: EmuRequest,
    readonly ctx: QueryApiContext,
  ) {
    this.base = ctx.env.baseUrl();
    const caller = req.locals.rateLimitCaller as Caller | undefined;
    this.viewer = caller?.kind === 'user' ? caller.login : undefined;
  }

  /** What an owner (a user or an organization) shares: its avatar, its pages, its repositories. */
  #owner(login: string) {
    return {
      login,
      avatarUrl: ({ size }: { size?: number }) => `${this.base}/avatars/${login}${size ? `?s=${size}` : ''}`,
      createdAt: JOINED,
      updatedAt: JOINED,
      url: `${this.base}/${login}`,
      resourcePath: `/${login}`,
      repository: ({ name }: { name: string }) => this.repo(this.ctx.repos.get(login, name)),
    };
  }

  user(u: HostingUser) {
    return {
      ...this.#owner(u.login),
      __typename: 'User',
      id: nodeIdOf('User', u.id),
      databaseId: u.id,
      name: u.name,
      email: u.email,
      bio: null,
      company: null,
      location: null,
      websiteUrl: null,
      isViewer: u.login === this.viewer,
    };
  }

  owner(login: string) {
    const u = this.ctx.state.users.get(login);
    if (u) return this.user(u);
    const id = organizationIdOf(login);
    return { ...this.#owner(login), __typename: 'Organization', id: nodeIdOf('Organization', id), databaseId: id, name: login };
  }

  /** A repository the caller may see, else null. */
  repo(r: RepoRecord | undefined) {
    if (!r || !this.ctx.visible(this.req, r)) return null;
    return {
      __typename: 'Repository',
      id: nodeIdOf('Repository', r.id),
      databaseId: r.id,
      name: r.name,
      nameWithOwner: `${r.owner}/${r.name}`,
      description: r.description || null,
      isPrivate: r.private,
      isFork: false,
      isArchived: false,
      isTemplate: false,
      forkCount: 0,
      stargazerCount: 0,
      visibility: r.private ? 'PRIVATE' : 'PUBLIC',
      createdAt: apiTime(r.createdAt),
      updatedAt: apiTime(r.updatedAt),
      pushedAt: apiTime(r.pushedAt),
      url: `${this.base}/${r.owner}/${r.name}`,
      resourcePath: `/${r.owner}/${r.name}`,
      owner: () => this.owner(r.owner),
      viewerPermission: this.viewer === r.owner ? 'ADMIN' : 'READ',
    };
  }

  /** `node(id)`: a user or a repository by its global id. */
  node(id: string) {
    const m = /^0\d+:(User|Repository)(\d+)$/.exec(Buffer.from(id, 'base64').toString('latin1'));
    const n = Number(m?.[2]);
    if (m?.[1] === 'User') {
      const u = [...this.ctx.state.users.values()].find((x) => x.id === n);
      return u ? this.user(u) : null;
    }
    if (m?.[1] === 'Repository') return this.repo([...this.ctx.repos.repos.values()].find((x) => x.id === n));
    return null;
  }
}

/** The root value of one request: the query's fields. */
function rootFor(req: EmuRequest, ctx: QueryApiContext, limits: Record<string, string>) {
  const o = new QueryObjects(req, ctx);
  const found = <T>(v: T | null | undefined, message: string): T => {
    if (!v) throw typed('NOT_FOUND', message);
    return v;
  };
  return {
    viewer: () => {
      const u = o.viewer ? ctx.state.users.get(o.viewer) : undefined;
      if (!u) throw typed('FORBIDDEN', 'Resource not accessible by integration');
      return o.user(u);
    },
    user: ({ login }: { login: string }) => o.user(found(ctx.state.users.get(login), `Could not resolve to a User with the login of '${login}'.`)),
    repository: ({ owner, name }: { owner: string; name: string }) =>
      found(o.repo(ctx.repos.get(owner, name)), `Could not resolve to a Repository with the name '${owner}/${name}'.`),
    node: ({ id }: { id: string }) => found(o.node(id), `Could not resolve to a node with the global id of '${id}'`),
    // The primary budget as the rate limiter's headers give it for this request (a query without connections costs 1 point).
    rateLimit: () => ({
      cost: 1,
      nodeCount: 0,
      limit: Number(limits['x-ratelimit-limit']),
      remaining: Number(limits['x-ratelimit-remaining']),
      used: Number(limits['x-ratelimit-used']),
      resetAt: apiTime(Number(limits['x-ratelimit-reset']) * 1000),
    }),
  };
}

/** `POST /api/graphql`: `{query, variables?, operationName?}` run by the executor. */
export function registerQueryApi(router: Router, ctx: QueryApiContext): void {
  router.post('/api/graphql', async (req, res) => {
    const caller = req.locals.rateLimitCaller as Caller | undefined;
    if (!caller || caller.kind === 'anonymous') return res.json(401, { message: 'This endpoint requires you to be authenticated.', documentation_url: DOCS });
    let body: { query?: unknown; variables?: unknown; operationName?: unknown };
    try {
      body = JSON.parse(await req.text()) as typeof body;
      if (!body || typeof body !== 'object' || Array.isArray(body)) throw new Error('not an object');
    } catch {
      return res.json(400, { message: 'Problems parsing JSON', documentation_url: DOCS });
    }
    if (typeof body.query !== 'string' || !body.query.trim()) {
      return res.json(200, { errors: [{ message: 'A query attribute must be specified and must be a string.' }] });
    }
    const variables =
      body.variables && typeof body.variables === 'object' && !Array.isArray(body.variables) ? (body.variables as Record<string, unknown>) : undefined;
    const result = await graphql({
      schema: queryApiSchema,
      source: body.query,
      rootValue: rootFor(req, ctx, res.extraHeaders as Record<string, string>),
      variableValues: variables,
      operationName: typeof body.operationName === 'string' ? body.operationName : undefined,
    });
    const answer: Record<string, unknown> = {};
    if (result.data !== undefined) answer.data = result.data;
    if (result.errors?.length) answer.errors = result.errors.map(formatError);
    res.json(200, answer);
  });
}
