"""Branch and tag protection: the rules, what they allow a push or a merge, and the
API that edits them.

Operations (``routes.py``): repoListBranchProtection, repoCreateBranchProtection,
repoGetBranchProtection, repoEditBranchProtection, repoDeleteBranchProtection,
repoListTagProtection, repoCreateTagProtection, repoGetTagProtection,
repoEditTagProtection, repoDeleteTagProtection.

| module | what it holds |
|---|---|
| ``gate`` | Forgejo's pre-receive rules over the objects of a push: ``pusher_of``, ``ref_refusal``. |
| ``options`` | The request bodies (Create/Edit Branch/Tag ProtectionOption). |
| ``records`` | BranchProtection and TagProtection records (fj:services/convert/convert.go). |
| ``routes`` | The ten operations (Forgejo's ``repository`` tag), repository admins only. |
| ``rules`` | The rules as plain data and what they allow (no I/O): Pusher, BranchRule, TagRule, Protection. |
| ``service`` | Create, edit, delete: names to ids, Forgejo's checks and errors, conditional writes. |
| ``store`` | One item per repository holding every rule, written compare-and-swap on its version. |

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
