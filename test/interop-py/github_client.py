"""PyGithub against the emulator's hosting API: repositories and their
permissions, a new repository, the list, the query API, a conditional read."""
import json
import sys

from github import Auth, Github, GithubException

cfg = json.loads(sys.argv[1])
g = Github(base_url=cfg["api"], auth=Auth.Token(cfg["token"]), retry=None)
out = {}

repo = g.get_repo("mona/hello-world")
out["permissions"] = {"push": repo.permissions.push, "admin": repo.permissions.admin, "pull": repo.permissions.pull}
out["allow_squash_merge"] = repo.allow_squash_merge
out["delete_branch_on_merge"] = repo.delete_branch_on_merge

me = g.get_user()
out["login"] = me.login
created = me.create_repo("from-pygithub", private=True, description="made by PyGithub")
out["created"] = {"full_name": created.full_name, "private": created.private, "push": created.permissions.push}
out["listed"] = sorted([r.name, r.permissions.push] for r in me.get_repos())

other = Github(base_url=cfg["api"], auth=Auth.Token(cfg["otherToken"]), retry=None).get_repo("mona/hello-world")
out["other"] = {"push": other.permissions.push, "pull": other.permissions.pull}

# The query API through PyGithub's requester: exactly the selected fields; NOT_FOUND is its UnknownObjectException.
_, data = g.requester.graphql_query("query { rateLimit { limit remaining } viewer { login } }", {})
out["graphql"] = data
try:
    g.requester.graphql_query("query($o: String!, $n: String!) { repository(owner: $o, name: $n) { id } }", {"o": "mona", "n": "nope"})
    out["notFound"] = None
except GithubException as e:
    out["notFound"] = e.status

# A conditional read with the ETag PyGithub kept: unchanged (304).
out["changed"] = repo.update()
print(json.dumps(out))
