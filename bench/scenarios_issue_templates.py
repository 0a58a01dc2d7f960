"""Issue template and issue config scenarios for bench/aws_calls.py (imported there): a
repository of alice's with two templates and a config in ``.gitea/ISSUE_TEMPLATE``,
committed once through the contents API (set-up: not counted)."""
from __future__ import annotations

import base64

from scene import Req

FILES = {
    ".gitea/ISSUE_TEMPLATE/bug.md": "---\nname: Bug\nabout: Report a bug\nlabels: bug\n---\n"
                                    "What happened?\n",
    ".gitea/ISSUE_TEMPLATE/feature.yaml": "name: Feature\nabout: Ask\nbody:\n"
                                          "- type: input\n  id: what\n"
                                          "  attributes: {label: What}\n",
    ".gitea/ISSUE_TEMPLATE/config.yaml": "blank_issues_enabled: false\ncontact_links:\n"
                                         "- {name: Forum, url: 'https://forum.example.org', "
                                         "about: Questions}\n",
}


def templates_repo(s) -> str:
    """alice's repository with the templates on its default branch (made once)."""
    def make() -> str:
        name = s.new_repo(auto_init=True)
        s.must("POST", f"/repos/alice/{name}/contents", "token", {"files": [
            {"operation": "create", "path": path,
             "content": base64.b64encode(text.encode()).decode()}
            for path, text in FILES.items()]})
        return f"/repos/alice/{name}"
    return s.once("issue_templates_repo", make)


def scenarios() -> dict:
    """operationId -> scenario, as in aws_calls.SCENARIOS."""
    return {
        "repoGetIssueTemplates": lambda s: [Req("GET", f"{templates_repo(s)}/issue_templates")],
        "repoGetIssueConfig": lambda s: [Req("GET", f"{templates_repo(s)}/issue_config")],
        "repoValidateIssueConfig": lambda s: [
            Req("GET", f"{templates_repo(s)}/issue_config/validate")],
    }


# As a raw file read (repoGetRawFile: 4): the repository and the caller's access (two
# batches), the refs and the pool's pack list (two Queries); the trees on the way and
# the files come from the pack, never one read each.
BUDGETS = {
    ("repoGetIssueTemplates", "anon"): 4,
    ("repoGetIssueConfig", "anon"): 4,
    ("repoValidateIssueConfig", "anon"): 4,
}
