"""Branch and tag protection: the rules, what they allow a push or a merge, and the
API that edits them.

Operations (``routes.py``): repoListBranchProtection, repoCreateBranchProtection,
repoGetBranchProtection, repoEditBranchProtection, repoDeleteBranchProtection,
repoListTagProtection, repoCreateTagProtection, repoGetTagProtection,
repoEditTagProtection, repoDeleteTagProtection.

| module | what it holds |
|---|---|
| ``gate`` | What a push may do to protected refs: Forgejo's pre-receive rules … |
| ``models`` | The protection domain's items in the table: its models (and key layouts). |
| ``options`` | The request bodies of the protection domain, declared once: the edge checks them (``ApiRequest.option``) … |
| ``records`` | Branch and tag protection rules -> Forgejo's BranchProtection and TagProtection records, field for field … |
| ``routes`` | Branch and tag protection (Forgejo's ``repository`` tag): list, create, get, edit, delete a repository's … |
| ``rules`` | Branch and tag protection rules as plain data, and what they allow (no I/O). |
| ``service`` | Branch and tag protection: list, get, create, edit, delete (Forgejo's ``routers/api/v1/repo/branch.go`` … |
| ``store`` | Branch and tag protection in the table: one item per repository. |

Registered by ``chalicelib/areas.py``.  Ref moves (``contents.pushes``) ask ``gate``;
branch records (``contents.branch_records``) and the merge gate read ``rules``.
"""

from chalicelib.faces import face

# The face: what other domains, the pages, the jobs and the CLI may use (chalicelib/faces.py).
__all__, __getattr__, __dir__ = face(__name__, {
    "has_rules":                     "gate",
    "protection_push_refusal":       "gate.push_refusal",
    "protection_refusal":            "gate.refusal",
    "pusher_of":                     "gate",
    "CreateBranchProtectionOption":  "options",
    "CreateTagProtectionOption":     "options",
    "branch_fields":                 "records",
    "branch_protection_record":      "records.branch_protection",
    "tag_protection_record":         "records.tag_protection",
    "BranchRule":                    "rules",
    "BranchGuard":                   "service",
    "Pusher":                        "service",
    "branch_guard":                  "service",
    "create_branch_rule":            "service",
    "create_tag_rule":               "service",
    "delete_branch_rule":            "service",
    "delete_tag_rule":               "service",
    "list_branch_rules":             "service",
    "list_tag_rules":                "service",
    "names_for":                     "service",
    "protection_preload_more_keys":  "service.preload_more_keys",
    "protection_key":                "store",
    "protection_of":                 "store.get",
})
