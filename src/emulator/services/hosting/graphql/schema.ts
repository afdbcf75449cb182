/**
 * The schema the query API runs: the part of the published one the emulator
 * serves (the viewer, users, repositories with their issues, labels and
 * stars, nodes, the rate limit, and the common mutations on issues,
 * comments, labels, reactions and stars).
 */
import { buildSchema } from 'graphql';
import { ISSUE_SDL } from './sdl-issues.js';
import { LIST_SDL } from './sdl-lists.js';
import { MUTATION_SDL } from './sdl-mutations.js';
import { SEARCH_SDL } from './sdl-search.js';

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
type Repository implements Node & Starrable {
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
  "The Ref associated with the repository's default branch."
  defaultBranchRef: Ref
  "Indicates if the repository has issues feature enabled."
  hasIssuesEnabled: Boolean!
  "Indicates if the repository has wiki feature enabled."
  hasWikiEnabled: Boolean!
  "Whether or not PRs are merged with a merge commit on this repository."
  mergeCommitAllowed: Boolean!
  "The repository parent, if this is a fork."
  parent: Repository
  "Whether or not rebase-merging is enabled on this repository."
  rebaseMergeAllowed: Boolean!
  "Whether or not squash-merging is enabled on this repository."
  squashMergeAllowed: Boolean!
  "A list of users that can be assigned to issues in this repository."
  assignableUsers(after: String, before: String, first: Int, last: Int, query: String): UserConnection!
  "Returns a single issue from the current repository by number."
  issue(number: Int!): Issue
  "Returns a single issue-like object from the current repository by number."
  issueOrPullRequest(number: Int!): IssueOrPullRequest
  "A list of issues that have been opened in the repository."
  issues(after: String, before: String, filterBy: IssueFilters, first: Int, labels: [String!], last: Int, orderBy: IssueOrder, states: [IssueState!]): IssueConnection!
  "Returns a single label by name"
  label(name: String!): Label
  "A list of labels associated with the repository."
  labels(after: String, before: String, first: Int, last: Int, orderBy: LabelOrder = {field: CREATED_AT, direction: ASC}, query: String): LabelConnection
  "A list of users who have starred this starrable."
  stargazers(after: String, before: String, first: Int, last: Int): StargazerConnection!
  "Returns a boolean indicating whether the viewing user has starred this starrable."
  viewerHasStarred: Boolean!
}

"Represents a Git reference."
type Ref implements Node {
  id: ID!
  "The ref name."
  name: String!
  "The ref's prefix, such as \`refs/heads/\` or \`refs/tags/\`."
  prefix: String!
  "The repository the ref belongs to."
  repository: Repository!
}

"Ways in which to filter lists of issues."
input IssueFilters {
  "List issues assigned to given name. Pass in \`null\` for issues with no assigned user, and \`*\` for issues assigned to any user."
  assignee: String
  "List issues created by given name."
  createdBy: String
  "List issues where the list of label names exist on the issue."
  labels: [String!]
  "List issues where the given name is mentioned in the issue."
  mentioned: String
  "List issues by given milestone argument. If an string representation of an integer is passed, it should refer to a milestone by its database ID. Pass in \`null\` for issues with no milestone, and \`*\` for issues that are assigned to any milestone."
  milestone: String
  "List issues by given milestone argument. If an string representation of an integer is passed, it should refer to a milestone by its number field. Pass in \`null\` for issues with no milestone, and \`*\` for issues that are assigned to any milestone."
  milestoneNumber: String
  "List issues that have been updated at or after the given date."
  since: DateTime
  "List issues filtered by the list of states given."
  states: [IssueState!]
  "List issues subscribed to by viewer."
  viewerSubscribed: Boolean = false
}

"The query root of GitHub's GraphQL interface."
type Query {
  "Fetches an object given its ID."
  node(id: ID!): Node
  "The client's rate limit information."
  rateLimit(dryRun: Boolean = false): RateLimit
  "Lookup a given repository by the owner and repository name."
  repository(followRenames: Boolean = true, name: String!, owner: String!): Repository
  "Perform a search across resources, returning a maximum of 1,000 results."
  search(after: String, before: String, first: Int, last: Int, query: String!, type: SearchType!): SearchResultItemConnection!
  "Lookup a user by login."
  user(login: String!): User
  "The currently authenticated user."
  viewer: User!
}
`;

/** The schema the executor runs (exported for the test that compares it with the published one). */
export const queryApiSchema = buildSchema([SDL, ISSUE_SDL, LIST_SDL, MUTATION_SDL, SEARCH_SDL].join('\n'));
