"""Pull requests: open, list, edit, check mergeability, merge in every Forgejo style
(scheduled merges too), and follow their branches (``sync``, fed by ``consumers``).

Operations (``routes.py``): repoListPullRequests, repoCreatePullRequest,
repoDownloadPullDiffOrPatch, repoGetPullRequestCommits, repoGetPullRequestFiles,
repoPullRequestIsMerged, repoMergePullRequest, repoCancelScheduledAutoMerge,
repoUpdatePullRequest, repoGetPullRequest, repoEditPullRequest,
repoGetPullRequestByBaseHead.

| module | what it holds |
|---|---|
| ``checks`` | Whether a pull request can be merged, and what it changes: Forgejo's patch check … |
| ``consumers`` | The internal consumer that keeps open pull requests in step with their branches … |
| ``merging`` | Merging a pull request: every Forgejo style, scheduled merges, and updating a pull request's head with its … |
| ``records`` | PullRequest, PRBranchInfo, ChangedFile and Commit records (fj:services/convert/pull.go). |
| ``request`` | What every pull request route and page reads from its request: the tracker as this caller sees it and the … |
| ``routes`` | Pull requests (Forgejo's ``repository`` tag, pull routes): list, open, get, edit, merge, and what a pull … |
| ``service`` | Pull requests: open, list, get, edit (merging is ``pull_merging``). |
| ``store`` | Pull requests in the table: an issue item (``is_pull``) whose ``pull`` attribute holds the pull request's … |
| ``sync`` | Keeping open pull requests in step with their branches, from the events queue. |
| ``views`` | What a pull request shows besides its record: its commits, changed files, diff and patch, and the … |

Registered by ``chalicelib/areas.py``; the consumer by ``chalicelib/jobs/consumers.py``.
"""
