/**
 * Issues, comments, labels and reactions: the interfaces and objects of the published schema (@octokit/graphql-schema) the query API
 * serves: names, types, nullability, defaults and descriptions as published
 * (argument descriptions left out); a test compares them with the published
 * file type by type.
 */
/** The fields an issue and a pull request share, with the same descriptions (the published ones). */
export const ISSUE_LIKE_FIELDS = `
  "A list of Users assigned to this object."
  assignees(after: String, before: String, first: Int, last: Int): UserConnection!
  "The actor who authored the comment."
  author: Actor
  "Author's association with the subject of the comment."
  authorAssociation: CommentAuthorAssociation!
  "Identifies the date and time when the object was closed."
  closedAt: DateTime
  "Identifies the date and time when the object was created."
  createdAt: DateTime!
  "A list of labels associated with the object."
  labels(after: String, before: String, first: Int, last: Int, orderBy: LabelOrder = {field: CREATED_AT, direction: ASC}): LabelConnection
  "A list of reactions grouped by content left on the subject."
  reactionGroups: [ReactionGroup!]
  "A list of Reactions left on the Issue."
  reactions(after: String, before: String, content: ReactionContent, first: Int, last: Int): ReactionConnection!
  "The repository associated with this node."
  repository: Repository!
  "Identifies the date and time when the object was last updated."
  updatedAt: DateTime!
  "Indicates if the object can be closed by the viewer."
  viewerCanClose: Boolean!
  "Indicates if the viewer can edit labels for this object."
  viewerCanLabel: Boolean!
  "Can user react to this subject"
  viewerCanReact: Boolean!
  "Indicates if the object can be reopened by the viewer."
  viewerCanReopen: Boolean!
  "Did the viewer author this comment."
  viewerDidAuthor: Boolean!`;

export const ISSUE_SDL = /* GraphQL */ `
"An object that can have users assigned to it."
interface Assignable {
  "A list of Users assigned to this object."
  assignees(after: String, before: String, first: Int, last: Int): UserConnection!
}

"An object that can have labels assigned to it."
interface Labelable {
  "A list of labels associated with the object."
  labels(after: String, before: String, first: Int, last: Int, orderBy: LabelOrder = {field: CREATED_AT, direction: ASC}): LabelConnection
  "Indicates if the viewer can edit labels for this object."
  viewerCanLabel: Boolean!
}

"Represents a subject that can be reacted on."
interface Reactable {
  "Identifies the primary key from the database."
  databaseId: Int
  "The Node ID of the Reactable object"
  id: ID!
  "A list of reactions grouped by content left on the subject."
  reactionGroups: [ReactionGroup!]
  "A list of Reactions left on the Issue."
  reactions(after: String, before: String, content: ReactionContent, first: Int, last: Int): ReactionConnection!
  "Can user react to this subject"
  viewerCanReact: Boolean!
}

"An object that can be closed"
interface Closable {
  "Indicates if the object is closed (definition of closed may depend on type)"
  closed: Boolean!
  "Identifies the date and time when the object was closed."
  closedAt: DateTime
  "Indicates if the object can be closed by the viewer."
  viewerCanClose: Boolean!
  "Indicates if the object can be reopened by the viewer."
  viewerCanReopen: Boolean!
}

"Things that can be starred."
interface Starrable {
  "The Node ID of the Starrable object"
  id: ID!
  "Returns a count of how many stargazers there are on this object"
  stargazerCount: Int!
  "A list of users who have starred this starrable."
  stargazers(after: String, before: String, first: Int, last: Int): StargazerConnection!
  "Returns a boolean indicating whether the viewing user has starred this starrable."
  viewerHasStarred: Boolean!
}

"Represents a type that can be retrieved by a URL."
interface UniformResourceLocatable {
  "The HTML path to this resource."
  resourcePath: URI!
  "The URL to this resource."
  url: URI!
}

"An Issue is a place to discuss ideas, enhancements, tasks, and bugs for a project."
type Issue implements Assignable & Closable & Labelable & Node & Reactable & UniformResourceLocatable {
  "Identifies the body of the issue."
  body: String!
  "Indicates if the object is closed (definition of closed may depend on type)"
  closed: Boolean!
  "A list of comments associated with the Issue."
  comments(after: String, before: String, first: Int, last: Int): IssueCommentConnection!
  "Identifies the primary key from the database."
  databaseId: Int
  "The Node ID of the Issue object"
  id: ID!
  "Identifies the milestone associated with the issue."
  milestone: Milestone
  "Identifies the issue number."
  number: Int!
  "List of project cards associated with this issue."
  projectCards(after: String, archivedStates: [ProjectCardArchivedState] = [ARCHIVED, NOT_ARCHIVED], before: String, first: Int, last: Int): ProjectCardConnection!
  "The HTTP path for this issue"
  resourcePath: URI!
  "Identifies the state of the issue."
  state: IssueState!
  "Identifies the reason for the issue state."
  stateReason(enableDuplicate: Boolean = false): IssueStateReason
  "Identifies the issue title."
  title: String!
  "The HTTP URL for this issue"
  url: URI!
  "Check if the current viewer can update this object."
  viewerCanUpdate: Boolean!
${ISSUE_LIKE_FIELDS}
}

"Represents a comment on an Issue."
type IssueComment implements Node & Reactable {
  "The actor who authored the comment."
  author: Actor
  "Author's association with the subject of the comment."
  authorAssociation: CommentAuthorAssociation!
  "The body as Markdown."
  body: String!
  "Identifies the date and time when the object was created."
  createdAt: DateTime!
  "Identifies the primary key from the database."
  databaseId: Int
  "The Node ID of the IssueComment object"
  id: ID!
  "Check if this comment was edited and includes an edit with the creation data"
  includesCreatedEdit: Boolean!
  "Identifies the issue associated with the comment."
  issue: Issue!
  "Returns whether or not a comment has been minimized."
  isMinimized: Boolean!
  "Returns why the comment was minimized. One of \`abuse\`, \`off-topic\`, \`outdated\`, \`resolved\`, \`duplicate\` and \`spam\`. Note that the case and formatting of these values differs from the inputs to the \`MinimizeComment\` mutation."
  minimizedReason: String
  "A list of reactions grouped by content left on the subject."
  reactionGroups: [ReactionGroup!]
  "A list of Reactions left on the Issue."
  reactions(after: String, before: String, content: ReactionContent, first: Int, last: Int): ReactionConnection!
  "The HTTP path for this issue comment"
  resourcePath: URI!
  "Identifies the date and time when the object was last updated."
  updatedAt: DateTime!
  "The HTTP URL for this issue comment"
  url: URI!
  "Check if the current viewer can delete this object."
  viewerCanDelete: Boolean!
  "Can user react to this subject"
  viewerCanReact: Boolean!
  "Check if the current viewer can update this object."
  viewerCanUpdate: Boolean!
  "Did the viewer author this comment."
  viewerDidAuthor: Boolean!
}

"A label for categorizing Issues, Pull Requests, Milestones, or Discussions with a given Repository."
type Label implements Node {
  "Identifies the label color."
  color: String!
  "Identifies the date and time when the label was created."
  createdAt: DateTime
  "A brief description of this label."
  description: String
  "The Node ID of the Label object"
  id: ID!
  "Indicates whether or not this is a default label."
  isDefault: Boolean!
  "Identifies the label name."
  name: String!
  "The HTTP path for this label."
  resourcePath: URI!
  "Identifies the date and time when the label was last updated."
  updatedAt: DateTime
  "The HTTP URL for this label."
  url: URI!
}

"An emoji reaction to a particular piece of content."
type Reaction implements Node {
  "Identifies the emoji reaction."
  content: ReactionContent!
  "Identifies the date and time when the object was created."
  createdAt: DateTime!
  "Identifies the primary key from the database."
  databaseId: Int
  "The Node ID of the Reaction object"
  id: ID!
  "The reactable piece of content"
  reactable: Reactable!
  "Identifies the user who created this reaction."
  user: User
}

"A group of emoji reactions to a particular piece of content."
type ReactionGroup {
  "Identifies the emoji reaction."
  content: ReactionContent!
  "Identifies when the reaction was created."
  createdAt: DateTime
  "Reactors to the reaction subject with the emotion represented by this reaction group."
  reactors(after: String, before: String, first: Int, last: Int): ReactorConnection!
  "The subject that was reacted to."
  subject: Reactable!
  "Users who have reacted to the reaction subject with the emotion represented by this reaction group"
  users(after: String, before: String, first: Int, last: Int): ReactingUserConnection! @deprecated(reason: "Reactors can now be mannequins, bots, and organizations. Use the \`reactors\` field instead. Removal on 2021-10-01 UTC.")
  "Whether or not the authenticated user has left a reaction on the subject."
  viewerHasReacted: Boolean!
}

"Information about pagination in a connection."
`;
