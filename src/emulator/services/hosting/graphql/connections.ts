/**
 * Connections (`first`/`last`, `after`/`before`, `edges`, `nodes`,
 * `pageInfo`, `totalCount`) and the service's published node limits and
 * primary cost, worked out from the query before it runs:
 *
 * - every connection whose `nodes` or `edges` are selected needs `first` or
 *   `last`, from 1 to 100 (one asked only for `totalCount` or `pageInfo`
 *   needs neither, as gh's own queries rely on);
 * - a call may ask for at most 500,000 nodes (each connection's size times
 *   the sizes of the connections it is inside);
 * - its cost is the number of requests its connections need (one per
 *   enclosing node), divided by 100 and rounded, at least 1 point.
 */
import {
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  GraphQLError,
  type GraphQLSchema,
  getNamedType,
  getOperationAST,
  getVariableValues,
  type GraphQLCompositeType,
  isCompositeType,
  isInterfaceType,
  isObjectType,
  type SelectionSetNode,
  valueFromAST,
} from 'graphql';

export const MAX_PAGE = 100;
export const MAX_NODES = 500_000;
/** The most fields a query may select once its fragments are expanded (aliases on the schema's cycles double per level). */
export const MAX_FIELDS = 50_000;

/** What a selection adds up to at a multiplier of 1: requests, nodes, and fields selected. */
interface Sum {
  requests: number;
  nodes: number;
  fields: number;
}

/**
 * Sums a query's selections. Each fragment is summed once (a sum scales with
 * the page sizes around it), and a spread repeated in one selection set counts
 * once, as the executor runs it once: `...F1 ...F1` forty deep is forty steps.
 */
class Tally {
  readonly errors: GraphQLError[] = [];
  readonly #done = new Map<string, Sum>();
  constructor(
    private readonly schema: GraphQLSchema,
    private readonly fragments: ReadonlyMap<string, FragmentDefinitionNode>,
    private readonly variables: Record<string, unknown> | undefined,
  ) {}

  set(sel: SelectionSetNode, parent: GraphQLCompositeType): Sum {
    const t = { requests: 0, nodes: 0, fields: 0 };
    const spread = new Set<string>();
    for (const s of sel.selections) {
      let sub: Sum | undefined;
      if (s.kind === 'Field') sub = this.field(s, parent);
      else if (s.kind === 'InlineFragment') {
        const on = s.typeCondition ? this.schema.getType(s.typeCondition.name.value) : parent;
        if (on && isCompositeType(on)) sub = this.set(s.selectionSet, on);
      } else if (!spread.has(s.name.value)) {
        spread.add(s.name.value);
        sub = this.fragment(s.name.value);
      }
      if (sub) {
        t.requests += sub.requests;
        t.nodes += sub.nodes;
        t.fields += sub.fields;
      }
    }
    return t;
  }

  fragment(name: string): Sum {
    let t = this.#done.get(name);
    if (t) return t;
    this.#done.set(name, { requests: 0, nodes: 0, fields: 0 }); // a cycle (refused by validation) adds nothing
    const f = this.fragments.get(name);
    const on = f && this.schema.getType(f.typeCondition.name.value);
    t = f && on && isCompositeType(on) ? this.set(f.selectionSet, on) : { requests: 0, nodes: 0, fields: 0 };
    this.#done.set(name, t);
    return t;
  }

  /** Whether a connection's selection asks for its `nodes` or `edges` (through fragments too). */
  selectsItems(sel: SelectionSetNode, seen = new Set<string>()): boolean {
    return sel.selections.some((s) => {
      if (s.kind === 'Field') return s.name.value === 'nodes' || s.name.value === 'edges';
      if (s.kind === 'InlineFragment') return this.selectsItems(s.selectionSet, seen);
      const f = this.fragments.get(s.name.value);
      if (!f || seen.has(f.name.value)) return false;
      seen.add(f.name.value);
      return this.selectsItems(f.selectionSet, seen);
    });
  }

  field(s: FieldNode, parent: GraphQLCompositeType): Sum {
    const def = isObjectType(parent) || isInterfaceType(parent) ? parent.getFields()[s.name.value] : undefined;
    const type = def && getNamedType(def.type);
    if (!def || !s.selectionSet || !type || !isCompositeType(type)) return { requests: 0, nodes: 0, fields: 1 };
    const connection = type.name.endsWith('Connection');
    // A connection asked only for its totalCount or pageInfo needs no page size (gh's `issues(states: OPEN) { totalCount }`).
    const size = connection ? pageSize(s, def.args, this.variables, this.errors, this.selectsItems(s.selectionSet)) : 1;
    const inner = this.set(s.selectionSet, type);
    // Its own request and page, then what each node of the page asks; its fields count once, whatever the page size.
    return {
      requests: (connection ? 1 : 0) + size * inner.requests,
      nodes: (connection ? size : 0) + size * inner.nodes,
      fields: 1 + inner.fields,
    };
  }
}

interface PageArgs {
  first?: number | null;
  last?: number | null;
  after?: string | null;
  before?: string | null;
}

const cursorOf = (index: number) => Buffer.from(`cursor:v2:${index}`).toString('base64');
function indexOf(cursor: string | null | undefined): number | undefined {
  if (!cursor) return undefined;
  const m = /^cursor:v2:(\d+)$/.exec(Buffer.from(cursor, 'base64').toString('latin1'));
  if (!m) throw new GraphQLError(`\`${cursor}\` does not appear to be a valid cursor.`, { extensions: { type: 'INVALID_CURSOR_ARGUMENTS' } });
  return Number(m[1]);
}

/** One page of `all` as a connection; `edge` adds fields an edge has besides `cursor` and `node`. */
export function connection<T, N>(all: readonly T[], args: PageArgs, node: (t: T) => N, edge: (t: T) => Record<string, unknown> = () => ({})) {
  const after = indexOf(args.after);
  const before = indexOf(args.before);
  let lo = after === undefined ? 0 : after + 1;
  let hi = before === undefined ? all.length : Math.min(before, all.length);
  if (args.first != null) hi = Math.min(hi, lo + args.first);
  if (args.last != null) lo = Math.max(lo, hi - args.last);
  const page = all.slice(lo, Math.max(lo, hi)).map((t, k) => ({ t, i: lo + k }));
  return {
    totalCount: all.length,
    // Built only when selected (a query may ask for the totalCount alone).
    nodes: () => page.map(({ t }) => node(t)),
    edges: () => page.map(({ t, i }) => ({ cursor: cursorOf(i), node: node(t), ...edge(t) })),
    pageInfo: {
      hasNextPage: hi < all.length,
      hasPreviousPage: lo > 0,
      startCursor: page.length ? cursorOf(page[0]!.i) : null,
      endCursor: page.length ? cursorOf(page[page.length - 1]!.i) : null,
    },
  };
}

/** What a query's connections add up to: its primary cost and the most nodes it may return. */
export interface QueryCost {
  cost: number;
  nodeCount: number;
}

/**
 * The cost and node count of the operation a request runs, or the errors
 * that stop it before it runs (a connection without `first`/`last`, a page
 * over 100, more than 500,000 nodes). Runs on a validated document.
 */
export function costOf(
  schema: GraphQLSchema,
  doc: DocumentNode,
  operationName: string | undefined,
  variables: Record<string, unknown> | undefined,
): QueryCost | GraphQLError[] {
  const op = getOperationAST(doc, operationName);
  if (!op) return { cost: 1, nodeCount: 0 };
  const root = op.operation === 'mutation' ? schema.getMutationType() : schema.getQueryType();
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of doc.definitions) if (d.kind === 'FragmentDefinition') fragments.set(d.name.value, d);
  // The variables as the executor will see them: defaults of the operation applied (gh's `$per_page: Int = 10`).
  const defaulted = op.variableDefinitions?.some((d) => d.defaultValue && !(variables && d.variable.name.value in variables));
  const coerced = defaulted ? getVariableValues(schema, op.variableDefinitions!, variables ?? {}, { maxErrors: 1 }) : undefined;
  const tally = new Tally(schema, fragments, coerced && 'coerced' in coerced ? coerced.coerced : variables);
  const w = root ? tally.set(op.selectionSet, root) : { requests: 0, nodes: 0, fields: 0 };
  if (tally.errors.length) return tally.errors;
  if (w.fields > MAX_FIELDS)
    return [
      new GraphQLError(
        `This query selects ${w.fields > 1e15 ? 'more than 10^15' : w.fields.toLocaleString('en-US')} fields once its fragments are expanded, which exceeds the maximum of ${MAX_FIELDS.toLocaleString('en-US')}.`,
        { extensions: { type: 'MAX_FIELD_LIMIT_EXCEEDED' } },
      ),
    ];
  if (w.nodes > MAX_NODES)
    return [
      new GraphQLError(
        `This query requests up to ${w.nodes > 1e15 ? 'more than 10^15' : w.nodes.toLocaleString('en-US')} possible nodes which exceeds the maximum limit of ${MAX_NODES.toLocaleString('en-US')}.`,
        {
          extensions: { type: 'MAX_NODE_LIMIT_EXCEEDED' },
        },
      ),
    ];
  return { cost: Math.max(1, Math.round(w.requests / 100)), nodeCount: w.nodes };
}

/** A connection field's `first` or `last` (from literals or variables), checked against the node limits. */
function pageSize(
  s: FieldNode,
  defs: ReadonlyArray<{ name: string; type: import('graphql').GraphQLInputType }>,
  variables: Record<string, unknown> | undefined,
  errors: GraphQLError[],
  boundariesRequired: boolean,
): number {
  const arg = (name: string): number | undefined => {
    const node = s.arguments?.find((a) => a.name.value === name);
    const def = defs.find((d) => d.name === name);
    if (!node || !def) return undefined;
    const v = valueFromAST(node.value, def.type, variables as { [k: string]: unknown } | undefined);
    return typeof v === 'number' ? v : undefined;
  };
  const name = s.name.value;
  const first = arg('first');
  const last = arg('last');
  const at = { nodes: [s], extensions: {} as Record<string, string> };
  if (first === undefined && last === undefined) {
    if (!boundariesRequired) return 0;
    at.extensions.type = 'MISSING_PAGINATION_BOUNDARIES';
    errors.push(new GraphQLError(`You must provide a \`first\` or \`last\` value to properly paginate the \`${name}\` connection.`, at));
    return 0;
  }
  for (const [which, n] of [['first', first] as const, ['last', last] as const]) {
    if (n === undefined) continue;
    if (n < 0 || n > MAX_PAGE) {
      at.extensions.type = 'EXCESSIVE_PAGINATION';
      errors.push(new GraphQLError(`Requesting ${n} records on the \`${name}\` connection exceeds the \`${which}\` limit of ${MAX_PAGE} records.`, at));
      return 0;
    }
  }
  return Math.max(first ?? 0, last ?? 0);
}

/**
 * The published scope rule for a classic token (personal or OAuth app): the
 * mutations on issues, comments, labels, reactions and stars need
 * `public_repo` (which `repo` includes). The error the service sends before
 * anything runs when the token lacks it, or undefined.
 */
export function missingScopes(doc: DocumentNode, operationName: string | undefined, scopes: readonly string[] | undefined): GraphQLError | undefined {
  const op = getOperationAST(doc, operationName);
  if (!scopes || op?.operation !== 'mutation' || scopes.includes('repo') || scopes.includes('public_repo')) return undefined;
  const first = op.selectionSet.selections.find((s): s is FieldNode => s.kind === 'Field' && !s.name.value.startsWith('__'));
  if (!first) return undefined;
  const granted = scopes.map((x) => `'${x}'`).join(', ');
  return new GraphQLError(
    `Your token has not been granted the required scopes to execute this query. The '${first.name.value}' field requires one of the following scopes: ['public_repo'], but your token has only been granted the: [${granted}] scopes. Please modify your token's scopes at: https://docs.example.com/settings/tokens.`,
    { nodes: [first], extensions: { type: 'INSUFFICIENT_SCOPES' } },
  );
}
