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
