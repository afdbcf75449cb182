"""PyGithub against the emulator's issue lock and assignees, the caller's
emails, another user's repositories and the caller's profile by scope:
Issue.lock and unlock (locked, active_lock_reason), Repository.get_assignees
and has_in_assignees, Issue.add_to_assignees and remove_from_assignees,
AuthenticatedUser.get_emails (with user:email), NamedUser.get_repos, and
AuthenticatedUser.plan (private: only with the user scope)."""
import json
import sys

from github import Auth, Github, GithubException

cfg = json.loads(sys.argv[1])
g = Github(base_url=cfg["api"], auth=Auth.Token(cfg["token"]), retry=None)
repo = g.get_repo("mona/hello-world")
issue = repo.create_issue(title="Locked by PyGithub")
out = {}

issue.lock("resolved")
again = repo.get_issue(issue.number)
out["locked"] = [again.locked, again.active_lock_reason]
issue.unlock()
again = repo.get_issue(issue.number)
out["unlocked"] = [again.locked, again.active_lock_reason]

out["assignable"] = sorted(u.login for u in repo.get_assignees())
out["has_hubot"] = repo.has_in_assignees("hubot")
out["has_nobody"] = repo.has_in_assignees("nobody-here")
issue.add_to_assignees("hubot", "mona")
out["assigned"] = [u.login for u in repo.get_issue(issue.number).assignees]
issue.remove_from_assignees("hubot")
out["unassigned"] = [u.login for u in repo.get_issue(issue.number).assignees]

out["repos"] = [r.full_name for r in g.get_user("mona").get_repos()]
out["plan_without_user_scope"] = g.get_user().plan
try:
    g.get_user().get_emails()
    out["emails_without_scope"] = None
except GithubException as e:
    out["emails_without_scope"] = e.status

scoped = Github(base_url=cfg["api"], auth=Auth.Token(cfg["userToken"]), retry=None)
out["emails"] = [[e.email, e.primary, e.verified, e.visibility] for e in scoped.get_user().get_emails()]
out["plan"] = scoped.get_user().plan.name
print(json.dumps(out))
