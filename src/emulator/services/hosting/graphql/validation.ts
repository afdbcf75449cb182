/**
 * The validation rules the query API applies: the specification's, except
 * that two fields of one response name in object types that can never both
 * apply (`... on Issue { state } ... on PullRequest { state }`) may return
 * different types. The service accepts that, and the code host's own CLI
 * relies on it: every `gh issue` command that names a number spreads the
 * same fields on `Issue` and `PullRequest`, whose `state` enums differ.
 */
import {
  type ASTVisitor,
  type FieldNode,
  type GraphQLCompositeType,
  type GraphQLError,
  isObjectType,
  OverlappingFieldsCanBeMergedRule,
  specifiedRules,
  type ValidationContext,
  type ValidationRule,
  visitInParallel,
} from 'graphql';

/** Whether an overlap error is only two leaf fields of different types in two distinct object types. */
function exclusiveTypeConflict(e: GraphQLError, parents: ReadonlyMap<FieldNode, GraphQLCompositeType | undefined>): boolean {
  if (!/ conflict because they return conflicting types /.test(e.message) || e.nodes?.length !== 2) return false;
  const [a, b] = e.nodes.map((n) => parents.get(n as FieldNode));
  return !!a && !!b && isObjectType(a) && isObjectType(b) && a !== b;
}

/** OverlappingFieldsCanBeMerged, its errors held to the end of the document and those of mutually exclusive object types dropped. */
function overlappingFieldsAsServed(context: ValidationContext): ASTVisitor {
  const parents = new Map<FieldNode, GraphQLCompositeType | undefined>();
  const held: GraphQLError[] = [];
  const holding = Object.create(context, { reportError: { value: (e: GraphQLError) => held.push(e) } }) as ValidationContext;
  return visitInParallel([
    OverlappingFieldsCanBeMergedRule(holding),
    {
      Field: { enter: (node) => void parents.set(node, context.getParentType() ?? undefined) },
      Document: {
        leave: () => {
          for (const e of held) if (!exclusiveTypeConflict(e, parents)) context.reportError(e);
        },
      },
    },
  ]);
}

export const QUERY_API_RULES: readonly ValidationRule[] = specifiedRules.map((r) => (r === OverlappingFieldsCanBeMergedRule ? overlappingFieldsAsServed : r));
