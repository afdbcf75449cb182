"""PyGithub against the emulator's milestones: Repository.create_milestone
(a due date sent as a date alone), get_milestones (state, sort), get_milestone,
Milestone.edit and delete, and Issue.edit(milestone=…) with the counts the
milestone then shows; and the issue events those changes made
(Issue.get_events, Repository.get_issues_events and get_issues_event)."""
import json
import sys
from datetime import date

from github import Auth, Github, GithubException

cfg = json.loads(sys.argv[1])
g = Github(base_url=cfg["api"], auth=Auth.Token(cfg["token"]), retry=None)
repo = g.get_repo("mona/hello-world")
out = {}

m = repo.create_milestone("py-1", description="from PyGithub", due_on=date(2032, 3, 4))
out["created"] = [m.title, m.state, m.description, m.due_on.isoformat(), m.creator.login]
issue = repo.create_issue(title="Milestoned by PyGithub")
issue.edit(milestone=m)
out["issue_milestone"] = repo.get_issue(issue.number).milestone.title
issue.edit(state="closed")
again = repo.get_milestone(m.number)
out["counts"] = [again.open_issues, again.closed_issues]
m.edit("py-1.0", state="closed")
out["closed"] = [[x.title, x.state] for x in repo.get_milestones(state="closed")]
m.delete()
try:
    repo.get_milestone(m.number)
    out["gone"] = None
except GithubException as e:
    out["gone"] = e.status
out["issue_after_delete"] = repo.get_issue(issue.number).milestone
events = list(issue.get_events())
out["events"] = [[e.event, e.actor.login, e.milestone.title if e.milestone else None] for e in events]
latest = next(iter(repo.get_issues_events()))
out["latest"] = [latest.event, latest.issue.number == issue.number]
out["one"] = repo.get_issues_event(events[0].id).event
print(json.dumps(out))
