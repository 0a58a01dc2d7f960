"""Pull requests: open, list, edit, check mergeability, merge in every Forgejo style
(scheduled merges too), and follow their branches (``sync``, fed by ``consumers``).

Operations (``pin_routes.py``): repoListPinnedPullRequests.
Operations (``routes.py``): repoListPullRequests, repoDownloadPullDiffOrPatch,
repoGetPullRequestCommits, repoGetPullRequestFiles, repoPullRequestIsMerged,
repoMergePullRequest, repoCancelScheduledAutoMerge, repoUpdatePullRequest,
repoGetPullRequest, repoEditPullRequest, repoGetPullRequestByBaseHead,
repoGetCommitPullRequest.

| module | what it holds |
|---|---|
| ``checks`` | Whether a pull request can be merged, and what it changes: Forgejo's patch check … |
| ``consumers`` | The internal consumer that keeps open pull requests in step with their branches (``pulls/sync.py``): … |
| ``gate`` | Whether the base branch's protection rule lets a pull request be merged now (fj:services/pull/check.go … |
| ``imports`` | Pull requests brought in by a project migration (``chalicelib.migrations``): their own fields as the … |
| ``merging`` | Merging a pull request: every Forgejo style, scheduled merges, and updating a pull request's head with … |
| ``options`` | The request bodies of the pull requests domain, declared once: the edge checks them … |
| ``pin_routes`` | The pinned pull requests (repoListPinnedPullRequests): pinned through the issue pin routes, by the same … |
| ``records`` | PullRequest, PRBranchInfo, ChangedFile and Commit records (fj:services/convert/pull.go). |
| ``request`` | What every pull request route and page reads from its request: the tracker as this caller sees it and the … |
| ``routes`` | Pull requests (Forgejo's ``repository`` tag, pull routes): list, get, edit, merge, and what a pull … |
| ``service`` | Pull requests: open, list, get, edit (merging is ``pull_merging``). |
| ``store`` | Pull requests in the table: an issue item (``is_pull``) whose ``pull`` attribute holds the pull request's … |
| ``sync`` | Keeping open pull requests in step with their branches, from the events queue. |
| ``views`` | What a pull request shows besides its record: its commits, changed files, diff and patch, and the … |

Registered by ``chalicelib/areas.py``; the consumer by ``chalicelib/jobs/consumers.py``.
"""

from chalicelib.faces import face

# The face: what other domains, the pages, the jobs and the CLI may use (chalicelib/faces.py).
__all__, __getattr__, __dir__ = face(__name__, {
    "ImportedPull":                "imports",
    "imported_pull_fields":        "imports.pull_fields",
    "imported_head_ref_change":    "imports.head_ref_change",
    "stage_imported_head_ref":     "imports.stage_head_ref",
    "is_work_in_progress":         "checks",
    "EVENT_TYPES":                 "consumers",
    "on_event":                    "consumers",
    "wants_event":                 "consumers",
    "standing":                    "gate",
    "merge_pull":                  "merging",
    "CreatePullRequestOption":     "options",
    "MergePullRequestOption":      "options",
    "TEAM_DEFAULTS":               "records",
    "pull_request_record":         "records.pull_request",
    "requested_reviewers_record":  "records.requested",
    "PULL":                        "request",
    "PullRenderer":                "request",
    "pull_ctx_of":                 "request.ctx_of",
    "PullQuery":                   "service",
    "create_pull":                 "service",
    "get_pull":                    "service",
    "list_pulls":                  "service",
    "open_pull_number":            "service",
    "pull_context":                "service",
    "pull_fields_of":              "service.fields_of",
    "open_pulls_at":               "store",
    "PullFields":                  "store",
    "pull_items":                  "store.pulls",
    "set_pull_fields":             "store.set_fields",
    "pull_commits":                "views.commits",
    "pull_diff_or_patch":          "views.diff_or_patch",
    "pull_files":                  "views.files",
})
