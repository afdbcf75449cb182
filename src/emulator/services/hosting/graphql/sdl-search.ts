/**
 * What the code host's own CLI (gh) queries besides issues: `search` (its
 * `issue list --label`/`--search`), `issueOrPullRequest` (every `gh issue`
 * command that names a number) with the `PullRequest` type it spreads on,
 * milestones, classic project cards and the users of a reaction group
 * (`gh issue view`). Names, types, nullability, defaults, deprecations and
 * descriptions as published in @octokit/graphql-schema (argument
 * descriptions left out; a union lists the members the emulator serves); a
 * test compares them with the published file type by type. The emulator
 * has no pull requests, milestones or classic projects: those types exist so
 * that the queries gh sends validate as they do on the service, and their
 * fields answer null or an empty connection.
 */
import { ISSUE_LIKE_FIELDS } from './sdl-issues.js';

/** The published reason classic projects' fields are deprecated, as an SDL string. */
const PROJECTS_CLASSIC = JSON.stringify(
  'Projects (classic) is being deprecated in favor of the new Projects experience, see: https://github.blog/changelog/2024-05-23-sunset-notice-projects-classic/. Removal on 2025-04-01 UTC.',
);

/** A connection type of the published schema: its edges, nodes, pageInfo and totalCount. */
const connectionOf = (name: string, node: string) => /* GraphQL */ `
"The connection type for ${node}."
type ${name}Connection {
  "A list of edges."
  edges: [${name}Edge]
  "A list of nodes."
  nodes: [${node}]
  "Information to aid in pagination."
  pageInfo: PageInfo!
  "Identifies the total count of items in the connection."
  totalCount: Int!
}`;

export const SEARCH_SDL = /* GraphQL */ `
"Used for return value of Repository.issueOrPullRequest."
union IssueOrPullRequest = Issue | PullRequest

"The results of a search."
union SearchResultItem = Issue | Organization | PullRequest | Repository | User

"Types that can be assigned to reactions."
union Reactor = Organization | User

"Represents the individual results of a search."
enum SearchType {
  "Returns matching discussions in repositories."
  DISCUSSION
  "Returns results matching issues in repositories."
  ISSUE
  "Returns results matching repositories."
  REPOSITORY
  "Returns results matching users and organizations on GitHub."
  USER
}

"A list of results that matched against a search query. Regardless of the number of matches, a maximum of 1,000 results will be available across all types, potentially split across many pages."
type SearchResultItemConnection {
  "The total number of pieces of code that matched the search query. Regardless of the total number of matches, a maximum of 1,000 results will be available across all types."
  codeCount: Int!
  "The total number of discussions that matched the search query. Regardless of the total number of matches, a maximum of 1,000 results will be available across all types."
  discussionCount: Int!
  "A list of edges."
  edges: [SearchResultItemEdge]
  "The total number of issues that matched the search query. Regardless of the total number of matches, a maximum of 1,000 results will be available across all types."
  issueCount: Int!
  "A list of nodes."
  nodes: [SearchResultItem]
  "Information to aid in pagination."
  pageInfo: PageInfo!
  "The total number of repositories that matched the search query. Regardless of the total number of matches, a maximum of 1,000 results will be available across all types."
  repositoryCount: Int!
  "The total number of users that matched the search query. Regardless of the total number of matches, a maximum of 1,000 results will be available across all types."
  userCount: Int!
  "The total number of wiki pages that matched the search query. Regardless of the total number of matches, a maximum of 1,000 results will be available across all types."
  wikiCount: Int!
}

"An edge in a connection."
type SearchResultItemEdge {
  "A cursor for use in pagination."
  cursor: String!
  "The item at the end of the edge."
  node: SearchResultItem
}

"A comment author association with repository."
enum CommentAuthorAssociation {
  "Author has been invited to collaborate on the repository."
  COLLABORATOR
  "Author has previously committed to the repository."
  CONTRIBUTOR
  "Author has not previously committed to GitHub."
  FIRST_TIMER
  "Author has not previously committed to the repository."
  FIRST_TIME_CONTRIBUTOR
  "Author is a placeholder for an unclaimed user."
  MANNEQUIN
  "Author is a member of the organization that owns the repository."
  MEMBER
  "Author has no association with the repository."
  NONE
  "Author is the owner of the repository."
  OWNER
}

${connectionOf('ReactingUser', 'User')}

"Represents a user that's made a reaction."
type ReactingUserEdge {
  "A cursor for use in pagination."
  cursor: String!
  node: User!
  "The moment when the user made the reaction."
  reactedAt: DateTime!
}

${connectionOf('Reactor', 'Reactor')}

"Represents an author of a reaction."
type ReactorEdge {
  "A cursor for use in pagination."
  cursor: String!
  "The author of the reaction."
  node: Reactor!
  "The moment when the user made the reaction."
  reactedAt: DateTime!
}

"The possible states of a pull request."
enum PullRequestState {
  "A pull request that has been closed without being merged."
  CLOSED
  "A pull request that has been closed by being merged."
  MERGED
  "A pull request that is still open."
  OPEN
}

"A repository pull request."
type PullRequest implements Assignable & Closable & Labelable & Node & Reactable & UniformResourceLocatable {
  "The body as Markdown."
  body: String!
  "\`true\` if the pull request is closed"
  closed: Boolean!
  "A list of comments associated with the pull request."
  comments(after: String, before: String, first: Int, last: Int): IssueCommentConnection!
  "Identifies the primary key from the database."
  databaseId: Int @deprecated(reason: "\`databaseId\` will be removed because it does not support 64-bit signed integer identifiers. Use \`fullDatabaseId\` instead. Removal on 2024-07-01 UTC.")
  "The Node ID of the PullRequest object"
  id: ID!
  "Identifies if the pull request is a draft."
  isDraft: Boolean!
  "Identifies the milestone associated with the pull request."
  milestone: Milestone
  "Identifies the pull request number."
  number: Int!
  "List of project cards associated with this pull request."
  projectCards(after: String, archivedStates: [ProjectCardArchivedState] = [ARCHIVED, NOT_ARCHIVED], before: String, first: Int, last: Int): ProjectCardConnection!
  "The HTTP path for this pull request."
  resourcePath: URI!
  "Identifies the state of the pull request."
  state: PullRequestState!
  "Identifies the pull request title."
  title: String!
  "The HTTP URL for this pull request."
  url: URI!
${ISSUE_LIKE_FIELDS}
}

"The possible states of a milestone."
enum MilestoneState {
  "A milestone that has been closed."
  CLOSED
  "A milestone that is still open."
  OPEN
}

"Represents a Milestone object on a given repository."
type Milestone implements Closable & Node & UniformResourceLocatable {
  "Indicates if the object is closed (definition of closed may depend on type)"
  closed: Boolean!
  "Identifies the date and time when the object was closed."
  closedAt: DateTime
  "Identifies the date and time when the object was created."
  createdAt: DateTime!
  "Identifies the actor who created the milestone."
  creator: Actor
  "Identifies the description of the milestone."
  description: String
  "Identifies the due date of the milestone."
  dueOn: DateTime
  "The Node ID of the Milestone object"
  id: ID!
  "Identifies the number of the milestone."
  number: Int!
  "Identifies the percentage complete for the milestone"
  progressPercentage: Float!
  "The repository associated with this milestone."
  repository: Repository!
  "The HTTP path for this milestone"
  resourcePath: URI!
  "Identifies the state of the milestone."
  state: MilestoneState!
  "Identifies the title of the milestone."
  title: String!
  "Identifies the date and time when the object was last updated."
  updatedAt: DateTime!
  "The HTTP URL for this milestone"
  url: URI!
  "Indicates if the object can be closed by the viewer."
  viewerCanClose: Boolean!
  "Indicates if the object can be reopened by the viewer."
  viewerCanReopen: Boolean!
}

"The possible archived states of a project card."
enum ProjectCardArchivedState {
  "A project card that is archived"
  ARCHIVED
  "A project card that is not archived"
  NOT_ARCHIVED
}

"A card in a project."
type ProjectCard implements Node {
  "The project column this card is associated under. A card may only belong to one project column at a time. The column field will be null if the card is created in a pending state and has yet to be associated with a column. Once cards are associated with a column, they will not become pending in the future."
  column: ProjectColumn @deprecated(reason: ${PROJECTS_CLASSIC})
  "The Node ID of the ProjectCard object"
  id: ID! @deprecated(reason: ${PROJECTS_CLASSIC})
  "Whether the card is archived"
  isArchived: Boolean! @deprecated(reason: ${PROJECTS_CLASSIC})
  "The card note"
  note: String @deprecated(reason: ${PROJECTS_CLASSIC})
  "The project that contains this card."
  project: Project! @deprecated(reason: ${PROJECTS_CLASSIC})
  "The HTTP URL for this card"
  url: URI! @deprecated(reason: ${PROJECTS_CLASSIC})
}

${connectionOf('ProjectCard', 'ProjectCard')}

"An edge in a connection."
type ProjectCardEdge {
  "A cursor for use in pagination."
  cursor: String!
  "The item at the end of the edge."
  node: ProjectCard
}

"Projects manage issues, pull requests and notes within a project owner."
type Project implements Closable & Node {
  "Indicates if the object is closed (definition of closed may depend on type)"
  closed: Boolean!
  "Identifies the date and time when the object was closed."
  closedAt: DateTime
  "The Node ID of the Project object"
  id: ID! @deprecated(reason: ${PROJECTS_CLASSIC})
  "The project's name."
  name: String! @deprecated(reason: ${PROJECTS_CLASSIC})
  "The project's number."
  number: Int! @deprecated(reason: ${PROJECTS_CLASSIC})
  "The HTTP URL for this project"
  url: URI! @deprecated(reason: ${PROJECTS_CLASSIC})
  "Indicates if the object can be closed by the viewer."
  viewerCanClose: Boolean!
  "Indicates if the object can be reopened by the viewer."
  viewerCanReopen: Boolean!
}

"A column inside a project."
type ProjectColumn implements Node {
  "The Node ID of the ProjectColumn object"
  id: ID! @deprecated(reason: ${PROJECTS_CLASSIC})
  "The project column's name."
  name: String! @deprecated(reason: ${PROJECTS_CLASSIC})
  "The project that contains this column."
  project: Project! @deprecated(reason: ${PROJECTS_CLASSIC})
}
`;
