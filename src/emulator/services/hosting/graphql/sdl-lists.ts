/**
 * The connections, orderings and enums of issues, labels, reactions and stars of the published schema (@octokit/graphql-schema) the query API
 * serves: names, types, nullability, defaults and descriptions as published
 * (argument descriptions left out); a test compares them with the published
 * file type by type.
 */
export const LIST_SDL = /* GraphQL */ `
type PageInfo {
  "When paginating forwards, the cursor to continue."
  endCursor: String
  "When paginating forwards, are there more items?"
  hasNextPage: Boolean!
  "When paginating backwards, are there more items?"
  hasPreviousPage: Boolean!
  "When paginating backwards, the cursor to continue."
  startCursor: String
}

"The connection type for Issue."
type IssueConnection {
  "A list of edges."
  edges: [IssueEdge]
  "A list of nodes."
  nodes: [Issue]
  "Information to aid in pagination."
  pageInfo: PageInfo!
  "Identifies the total count of items in the connection."
  totalCount: Int!
}

"An edge in a connection."
type IssueEdge {
  "A cursor for use in pagination."
  cursor: String!
  "The item at the end of the edge."
  node: Issue
}

"The connection type for IssueComment."
type IssueCommentConnection {
  "A list of edges."
  edges: [IssueCommentEdge]
  "A list of nodes."
  nodes: [IssueComment]
  "Information to aid in pagination."
  pageInfo: PageInfo!
  "Identifies the total count of items in the connection."
  totalCount: Int!
}

"An edge in a connection."
type IssueCommentEdge {
  "A cursor for use in pagination."
  cursor: String!
  "The item at the end of the edge."
  node: IssueComment
}

"The connection type for Label."
type LabelConnection {
  "A list of edges."
  edges: [LabelEdge]
  "A list of nodes."
  nodes: [Label]
  "Information to aid in pagination."
  pageInfo: PageInfo!
  "Identifies the total count of items in the connection."
  totalCount: Int!
}

"An edge in a connection."
type LabelEdge {
  "A cursor for use in pagination."
  cursor: String!
  "The item at the end of the edge."
  node: Label
}

"A list of reactions that have been left on the subject."
type ReactionConnection {
  "A list of edges."
  edges: [ReactionEdge]
  "A list of nodes."
  nodes: [Reaction]
  "Information to aid in pagination."
  pageInfo: PageInfo!
  "Identifies the total count of items in the connection."
  totalCount: Int!
  "Whether or not the authenticated user has left a reaction on the subject."
  viewerHasReacted: Boolean!
}

"An edge in a connection."
type ReactionEdge {
  "A cursor for use in pagination."
  cursor: String!
  "The item at the end of the edge."
  node: Reaction
}

"The connection type for User."
type StargazerConnection {
  "A list of edges."
  edges: [StargazerEdge]
  "A list of nodes."
  nodes: [User]
  "Information to aid in pagination."
  pageInfo: PageInfo!
  "Identifies the total count of items in the connection."
  totalCount: Int!
}

"Represents a user that's starred a repository."
type StargazerEdge {
  "A cursor for use in pagination."
  cursor: String!
  node: User!
  "Identifies when the item was starred."
  starredAt: DateTime!
}

"Ways in which lists of issues can be ordered upon return."
input IssueOrder {
  "The direction in which to order issues by the specified field."
  direction: OrderDirection!
  "The field in which to order issues by."
  field: IssueOrderField!
}

"Properties by which issue connections can be ordered."
enum IssueOrderField {
  "Order issues by comment count"
  COMMENTS
  "Order issues by creation time"
  CREATED_AT
  "Order issues by update time"
  UPDATED_AT
}

"Ways in which lists of labels can be ordered upon return."
input LabelOrder {
  "The direction in which to order labels by the specified field."
  direction: OrderDirection!
  "The field in which to order labels by."
  field: LabelOrderField!
}

"Properties by which label connections can be ordered."
enum LabelOrderField {
  "Order labels by creation time"
  CREATED_AT
  "Order labels by name"
  NAME
}

"Possible directions in which to order a list of items when provided an \`orderBy\` argument."
enum OrderDirection {
  "Specifies an ascending order for a given \`orderBy\` argument."
  ASC
  "Specifies a descending order for a given \`orderBy\` argument."
  DESC
}

"The possible states of an issue."
enum IssueState {
  "An issue that has been closed"
  CLOSED
  "An issue that is still open"
  OPEN
}

"The possible state reasons of an issue."
enum IssueStateReason {
  "An issue that has been closed as completed"
  COMPLETED
  "An issue that has been closed as a duplicate. To retrieve this value, set \`(enableDuplicate: true)\` when querying the stateReason field."
  DUPLICATE
  "An issue that has been closed as not planned"
  NOT_PLANNED
  "An issue that has been reopened"
  REOPENED
}

"The possible state reasons of a closed issue."
enum IssueClosedStateReason {
  "An issue that has been closed as completed"
  COMPLETED
  "An issue that has been closed as a duplicate"
  DUPLICATE
  "An issue that has been closed as not planned"
  NOT_PLANNED
}

"Emojis that can be attached to Issues, Pull Requests and Comments."
enum ReactionContent {
  "Represents the \`:confused:\` emoji."
  CONFUSED
  "Represents the \`:eyes:\` emoji."
  EYES
  "Represents the \`:heart:\` emoji."
  HEART
  "Represents the \`:hooray:\` emoji."
  HOORAY
  "Represents the \`:laugh:\` emoji."
  LAUGH
  "Represents the \`:rocket:\` emoji."
  ROCKET
  "Represents the \`:-1:\` emoji."
  THUMBS_DOWN
  "Represents the \`:+1:\` emoji."
  THUMBS_UP
}

"A list of users."
type UserConnection {
  "A list of edges."
  edges: [UserEdge]
  "A list of nodes."
  nodes: [User]
  "Information to aid in pagination."
  pageInfo: PageInfo!
  "Identifies the total count of items in the connection."
  totalCount: Int!
}

"Represents a user."
type UserEdge {
  "A cursor for use in pagination."
  cursor: String!
  "The item at the end of the edge."
  node: User
}
`;
