"""PyGithub labels an issue and edits a repository's labels against the
emulator: Issue.add_to_labels and set_labels (which send the array of names
itself, as the published description allows), remove_from_labels,
delete_labels, Label.edit (a rename with new_name) and Label.delete; and the
body of a 404 as PyGithub hands it over."""
import json
import sys

from github import Auth, Github, GithubException

cfg = json.loads(sys.argv[1])
g = Github(base_url=cfg["api"], auth=Auth.Token(cfg["token"]), retry=None)
repo = g.get_repo("mona/hello-world")
issue = repo.create_issue(title="Labelled by PyGithub")
out = {}


def names(labels):
    return [label.name for label in labels]


issue.add_to_labels("bug", repo.get_label("question"))
out["added"] = names(repo.get_issue(issue.number).labels)
issue.set_labels("enhancement", "documentation")
out["set"] = names(issue.get_labels())
issue.remove_from_labels("enhancement")
out["removed"] = names(issue.get_labels())
issue.add_to_labels("wontfix")
issue.delete_labels()
out["cleared"] = names(issue.get_labels())

label = repo.create_label("py", "aabbcc")
label.edit("py2", "000000", "Edited by PyGithub")
edited = repo.get_label("py2")
out["edited"] = [edited.name, edited.color, edited.description]
issue.add_to_labels("py2")
edited.delete()
out["after_delete"] = names(repo.get_issue(issue.number).labels)
try:
    repo.get_label("py2")
    out["gone"] = None
except GithubException as e:
    out["gone"] = [e.status, e.data.get("status")]
try:
    repo.get_label("bug").edit("question", "ffffff")
    out["taken"] = None
except GithubException as e:
    out["taken"] = [e.status, [err.get("code") for err in e.data.get("errors", [])]]
print(json.dumps(out))
