/**
 * The query API (`POST /api/graphql`): answers come from the reference
 * GraphQL executor (`graphql`) over a schema that follows the code host's
 * published one for what the emulator serves — `viewer`, `user`,
 * `repository` (with its issues, labels and stars), `node`, `rateLimit`, and
 * the common mutations on issues, comments, labels, reactions and stars,
 * with the published names, types and nullability. So an answer holds
 * exactly the fields the query selects, aliases and fragments and variables
 * work, and a query for a field the schema lacks is refused the way any
 * GraphQL server refuses it. Issues and the rest are the REST API's own.
 *
 * Errors keep the service's shape: HTTP 200 with `errors` (a resource not
 * found is `type: NOT_FOUND` with its field null); a body that is no JSON is
 * a 400. The rate limiter counts one point and the secondary limits (a
 * mutation: 5 points and content-creating) before the query runs; a query
 * whose connections cost more is charged the rest here, by the published
 * rule (see ./graphql/connections.ts), and `rateLimit` reports that cost and
 * the primary budget the limiter's headers carry.
 */
import { execute, GraphQLError, type GraphQLFormattedError, parse, type Token, validate, type DocumentNode } from 'graphql';
import type { EmuRequest, EmuResponse, Router } from '../../router.js';
import { type Caller, primaryMessage } from './ratelimit/callers.js';
import { apiTime } from './repository.js';
import { queryApiSchema } from './graphql/schema.js';
import { found, QueryObjects, type QueryApiContext } from './graphql/objects.js';
import { mutationsFor } from './graphql/mutations.js';
import { search } from './graphql/search.js';
import { QUERY_API_RULES } from './graphql/validation.js';
import { costOf, missingScopes, type QueryCost } from './graphql/connections.js';
import { tokenOfRequest } from './scopes.js';
import { CHARGE } from './ratelimit/types.js';
import { MAX_QUERY_BODY, MAX_QUERY_TOKENS } from './ratelimit/classify.js';
import { apiError } from './errors.js';

export { queryApiSchema } from './graphql/schema.js';
export type { QueryApiContext } from './graphql/objects.js';

const DOCS = 'https://docs.example.com/graphql';

/** An error the service types (`NOT_FOUND`, `FORBIDDEN`), with the field it concerns null. */
const typed = (type: string, message: string) => new GraphQLError(message, { extensions: { type } });

/** The service's error shape: `type` beside the message when it has one, no `extensions` otherwise. */
function formatError(e: GraphQLError): GraphQLFormattedError & { type?: string } {
  const { extensions, ...rest } = e.toJSON();
  const type = extensions?.type;
  return typeof type === 'string' ? { type, ...rest } : rest;
}

/** Tokens kept in the cache, all entries together (each entry keeps its AST and its token list). */
const CACHE_TOKENS = 400_000;
/** Errors an answer reports for a document that does not parse or validate. */
const MAX_ERRORS = 50;

type Checked = { doc: DocumentNode } | { errors: Array<GraphQLFormattedError & { type?: string }> };

/** A query's AST and validation, or its errors (at most MAX_ERRORS); anything the parser throws is a syntax error. */
function checkDocument(source: string): { checked: Checked; tokens: number } {
  let doc: DocumentNode;
  try {
    doc = parse(source, { maxTokens: MAX_QUERY_TOKENS });
  } catch (e) {
    // A nesting too deep for the parser's stack throws a RangeError, not a GraphQLError.
    const error = e instanceof GraphQLError ? e : new GraphQLError('Syntax Error: the document is nested too deeply.');
    return { checked: { errors: [formatError(error)] }, tokens: 1 };
  }
  let tokens = 0;
  for (let t: Token | null | undefined = doc.loc?.startToken; t; t = t.next) tokens++;
  let invalid: readonly GraphQLError[];
  try {
    invalid = validate(queryApiSchema, doc, QUERY_API_RULES, { maxErrors: MAX_ERRORS });
  } catch (e) {
    invalid = [e instanceof GraphQLError ? e : new GraphQLError('Validation error: the document is nested too deeply.')];
  }
  return { checked: invalid.length ? { errors: invalid.slice(0, MAX_ERRORS).map(formatError) } : { doc }, tokens };
}

/**
 * Documents parsed and validated against the schema, by their text: a
 * script or an agent sends the same query many times, and parsing and
 * validating cost more than running it. The most recently used are kept,
 * up to 256 texts and CACHE_TOKENS tokens in all (an AST keeps its tokens).
 */
class CheckedDocuments {
  readonly #kept = new Map<string, { checked: Checked; tokens: number }>();
  #tokens = 0;

  check(source: string): Checked {
    const hit = this.#kept.get(source);
    if (hit) {
      // Most recently used last: the oldest goes first when full.
      this.#kept.delete(source);
      this.#kept.set(source, hit);
      return hit.checked;
    }
    const entry = checkDocument(source);
    if (source.length <= 20_000 && entry.tokens <= CACHE_TOKENS / 16) {
      while (this.#kept.size >= 256 || (this.#kept.size && this.#tokens + entry.tokens > CACHE_TOKENS)) {
        const [oldest, e] = this.#kept.entries().next().value!;
        this.#kept.delete(oldest);
        this.#tokens -= e.tokens;
      }
      this.#kept.set(source, entry);
      this.#tokens += entry.tokens;
    }
    return entry.checked;
  }
}

/** The root value of one request: the query's fields and the mutations. */
function rootFor(req: EmuRequest, ctx: QueryApiContext, limits: Record<string, string>, cost: QueryCost) {
  const o = new QueryObjects(req, ctx);
  return {
    ...mutationsFor(o),
    viewer: () => {
      const u = o.viewer ? ctx.state.users.get(o.viewer) : undefined;
      if (!u) throw typed('FORBIDDEN', 'Resource not accessible by integration');
      return o.user(u);
    },
    user: ({ login }: { login: string }) => o.user(found(ctx.state.users.get(login), `Could not resolve to a User with the login of '${login}'.`)),
    repository: ({ owner, name }: { owner: string; name: string }) =>
      found(o.repo(ctx.repos.get(owner, name)), `Could not resolve to a Repository with the name '${owner}/${name}'.`),
    search: (a: Parameters<typeof search>[1]) => search(o, a),
    node: ({ id }: { id: string }) => found(o.node(id), `Could not resolve to a node with the global id of '${id}'`),
    // The primary budget as the rate limiter's headers give it after this request's cost.
    rateLimit: () => ({
      cost: cost.cost,
      nodeCount: cost.nodeCount,
      limit: Number(limits['x-ratelimit-limit']),
      remaining: Number(limits['x-ratelimit-remaining']),
      used: Number(limits['x-ratelimit-used']),
      resetAt: apiTime(Number(limits['x-ratelimit-reset']) * 1000),
    }),
  };
}

/** The request's body, or the answer already sent for one that is not a query. */
async function readQuery(req: EmuRequest, res: EmuResponse) {
  let body: { query?: unknown; variables?: unknown; operationName?: unknown };
  let text: string;
  try {
    text = await req.text(MAX_QUERY_BODY);
  } catch {
    res.json(413, apiError(413, 'Request body too large', undefined, DOCS));
    return undefined;
  }
  try {
    body = JSON.parse(text) as typeof body;
    if (!body || typeof body !== 'object' || Array.isArray(body)) throw new Error('not an object');
  } catch {
    res.json(400, apiError(400, 'Problems parsing JSON', undefined, DOCS));
    return undefined;
  }
  if (typeof body.query !== 'string' || !body.query.trim()) {
    res.json(200, { errors: [{ message: 'A query attribute must be specified and must be a string.' }] });
    return undefined;
  }
  const variables =
    body.variables && typeof body.variables === 'object' && !Array.isArray(body.variables) ? (body.variables as Record<string, unknown>) : undefined;
  return { source: body.query, variables, operationName: typeof body.operationName === 'string' ? body.operationName : undefined };
}

/** `POST /api/graphql`: `{query, variables?, operationName?}` parsed, validated, costed and run by the executor. */
export function registerQueryApi(router: Router, ctx: QueryApiContext): void {
  const documents = new CheckedDocuments();
  router.post('/api/graphql', async (req, res) => {
    const caller = req.locals.rateLimitCaller as Caller | undefined;
    if (!caller || caller.kind === 'anonymous') return res.json(401, apiError(401, 'This endpoint requires you to be authenticated.', undefined, DOCS));
    const q = await readQuery(req, res);
    if (!q) return;
    const checked = documents.check(q.source);
    if ('errors' in checked) return res.json(200, { errors: checked.errors });
    const doc = checked.doc;
    const token = tokenOfRequest(ctx.state, req.header('authorization'));
    const scopeError = missingScopes(doc, q.operationName, token && (token.kind === 'personal' || token.kind === 'oauth') ? token.scopes : undefined);
    if (scopeError) return res.json(200, { errors: [formatError(scopeError)] });
    const cost = costOf(queryApiSchema, doc, q.operationName, q.variables);
    if (Array.isArray(cost)) return res.json(200, { errors: cost.map(formatError) });
    // The limiter counted one point; a costlier query pays the rest, or is refused when the budget has not that much left.
    const charge = req.locals[CHARGE] as ((points: number) => boolean) | undefined;
    if (cost.cost > 1 && charge && !charge(cost.cost - 1)) {
      return res.json(200, { errors: [{ type: 'RATE_LIMITED', message: primaryMessage(caller) }] });
    }
    const result = await execute({
      schema: queryApiSchema,
      document: doc,
      rootValue: rootFor(req, ctx, res.extraHeaders as Record<string, string>, cost),
      variableValues: q.variables,
      operationName: q.operationName,
    });
    const answer: Record<string, unknown> = {};
    if (result.data !== undefined) answer.data = result.data;
    if (result.errors?.length) answer.errors = result.errors.map(formatError);
    res.json(200, answer);
  });
}
