/**
 * The validation rules the query API applies: the specification's, except
 * that two fields of one response name in object types that can never both
 * apply (`... on Issue { state } ... on PullRequest { state }`) may return
 * different types. The service accepts that, and the code host's own CLI
 * relies on it: every `gh issue` command that names a number spreads the
 * same fields on `Issue` and `PullRequest`, whose `state` enums differ.
 *
 * Each error is decided as it is reported, so `validate`'s `maxErrors` still
 * aborts a document of many conflicts early: the parent type of every field
 * is known before the rule runs (one walk of the document with its types).
 */
import {
  type ASTVisitor,
  type FieldNode,
  type GraphQLCompositeType,
  type GraphQLError,
  isObjectType,
  OverlappingFieldsCanBeMergedRule,
  specifiedRules,
  TypeInfo,
  type ValidationContext,
  type ValidationRule,
  visit,
  visitWithTypeInfo,
} from 'graphql';

type Parents = ReadonlyMap<FieldNode, GraphQLCompositeType | undefined>;

/** Whether an overlap error is only two fields of different types in two distinct object types. */
function exclusiveTypeConflict(e: GraphQLError, parents: Parents): boolean {
  if (e.nodes?.length !== 2 || !/ conflict because they return conflicting types /.test(e.message)) return false;
  const [a, b] = e.nodes.map((n) => parents.get(n as FieldNode));
  return !!a && !!b && isObjectType(a) && isObjectType(b) && a !== b;
}

/** The parent type of every field of a document, fragments included. */
function parentsOf(context: ValidationContext): Parents {
  const parents = new Map<FieldNode, GraphQLCompositeType | undefined>();
  const types = new TypeInfo(context.getSchema());
  visit(context.getDocument(), visitWithTypeInfo(types, { Field: (node) => void parents.set(node, types.getParentType() ?? undefined) }));
  return parents;
}

/** OverlappingFieldsCanBeMerged without the errors of mutually exclusive object types; every other error reported at once. */
function overlappingFieldsAsServed(context: ValidationContext): ASTVisitor {
  let parents: Parents | undefined;
  const filtering = Object.create(context, {
    reportError: {
      value: (e: GraphQLError) => {
        parents ??= parentsOf(context);
        if (!exclusiveTypeConflict(e, parents)) context.reportError(e);
      },
    },
  }) as ValidationContext;
  return OverlappingFieldsCanBeMergedRule(filtering);
}

export const QUERY_API_RULES: readonly ValidationRule[] = specifiedRules.map((r) => (r === OverlappingFieldsCanBeMergedRule ? overlappingFieldsAsServed : r));
