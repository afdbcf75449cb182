"""PyGithub drives the emulator's query API mutations through its requester's
graphql_named_mutation (which names the input type `<Mutation>Input!` by the
service's convention), and reads what they made through its REST classes;
an issue PyGithub opens over REST is then changed by mutations."""
import json
import sys

from github import Auth, Github, GithubException

cfg = json.loads(sys.argv[1])
g = Github(base_url=cfg["api"], auth=Auth.Token(cfg["token"]), retry=None)
out = {}
repo = g.get_repo("mona/hello-world")

_, made = g.requester.graphql_named_mutation(
    mutation_name="createIssue",
    mutation_input={"repositoryId": repo.node_id, "title": "From PyGithub", "body": "via GraphQL", "clientMutationId": "py-1"},
    output_schema="clientMutationId issue { id number }",
)
out["clientMutationId"] = made["clientMutationId"]
issue = repo.get_issue(made["issue"]["number"])
out["rest"] = {"title": issue.title, "body": issue.body, "node_id_matches": issue.node_id == made["issue"]["id"], "state": issue.state}

g.requester.graphql_named_mutation("addComment", {"subjectId": issue.node_id, "body": "A comment"}, "commentEdge { node { id } }")
out["comments"] = [c.body for c in issue.get_comments()]

bug = repo.get_label("bug")
g.requester.graphql_named_mutation("addLabelsToLabelable", {"labelableId": issue.node_id, "labelIds": [bug.node_id]}, "clientMutationId")
g.requester.graphql_named_mutation("closeIssue", {"issueId": issue.node_id, "stateReason": "NOT_PLANNED"}, "issue { state }")
issue = repo.get_issue(issue.number)
out["after"] = {"labels": [label.name for label in issue.labels], "state": issue.state, "state_reason": issue.state_reason}

# An issue PyGithub opens over REST, reacted to by a mutation and read back over REST.
opened = repo.create_issue(title="Opened over REST")
g.requester.graphql_named_mutation("addReaction", {"subjectId": opened.node_id, "content": "HOORAY"}, "reaction { content }")
out["reactions"] = [r.content for r in opened.get_reactions()]

# A mutation the caller may not run: PyGithub raises; the service's FORBIDDEN is in the errors.
other = Github(base_url=cfg["api"], auth=Auth.Token(cfg["otherToken"]), retry=None)
try:
    other.requester.graphql_named_mutation("reopenIssue", {"issueId": issue.node_id}, "issue { state }")
    out["forbidden"] = None
except GithubException as e:
    out["forbidden"] = [err.get("type") for err in e.data.get("errors", [])]
print(json.dumps(out))
