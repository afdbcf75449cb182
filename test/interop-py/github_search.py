"""PyGithub's search_issues against the emulator's REST GET /search/issues:
the matches and their count, PyGithub's own paging over Link headers, an
issue's fields as its Issue class reads them, and a refused query."""
import json
import sys

from github import Auth, Github, GithubException

cfg = json.loads(sys.argv[1])
g = Github(base_url=cfg["api"], auth=Auth.Token(cfg["token"]), retry=None, per_page=2)
out = {}
repo = g.get_repo("mona/hello-world")
for n in range(1, 6):
    repo.create_issue(title=f"Paged crash {n}", labels=["bug"] if n % 2 else [])

found = g.search_issues("crash label:bug", sort="created", order="asc")
out["total"] = found.totalCount
out["titles"] = [i.title for i in found]
first = found[0]
out["first"] = {"number": first.number, "state": first.state, "user": first.user.login, "labels": [label.name for label in first.labels], "repository": first.repository.full_name}
out["me"] = sorted(i.title for i in g.search_issues("", author="@me", label="bug", state="open"))

try:
    list(g.search_issues("a OR b OR c OR d OR e OR f OR g"))
    out["refused"] = None
except GithubException as e:
    out["refused"] = {"status": e.status, "message": e.data["errors"][0]["message"]}
print(json.dumps(out))
