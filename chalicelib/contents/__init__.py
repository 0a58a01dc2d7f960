"""A repository's git content: files and the contents API, commits, branches, tags, the git
data API, archives, and ``pushes``, which moves refs with everything that follows (one
write, events included).

Operations (``blob_routes.py``): GetBlobs.
Operations (``branch_routes.py``): repoCreateBranch, repoDeleteBranch, repoUpdateBranch.
Operations (``commit_routes.py``): repoGetAllCommits, repoDownloadCommitDiffOrPatch,
repoGetSingleCommit, repoCompareDiff.
Operations (``file_routes.py``): repoListBranches, repoGetBranch, repoGetRawFile,
repoGetRawFileOrLFS, repoGetEditorConfig, repoGetArchive.
Operations (``git_data_routes.py``): GetTree, GetBlob, repoListAllGitRefs,
repoListGitRefs, GetAnnotatedTag, repoGetNote.
Operations (``note_routes.py``): repoSetNote, repoRemoveNote.
Operations (``patch_routes.py``): repoApplyDiffPatch.
Operations (``routes.py``): repoGetContentsList, repoGetContents, repoCreateFile,
repoUpdateFile, repoDeleteFile, repoChangeFiles.
Operations (``tag_routes.py``): repoListTags, repoGetTag, repoCreateTag, repoDeleteTag.

| module | what it holds |
|---|---|
| ``archives`` | Source archives (.zip, .tar.gz, .bundle) of a commit, built once (by ``chalicelib.gitops.archives``) and … |
| ``authorship`` | Who a commit the service makes is by, and which names a branch may have: the two rules every writer of … |
| ``blame`` | Blame: which commit last changed each line of a file, for the blame page. |
| ``blob_routes`` | GetBlobs (Forgejo's ``repository`` tag): several blobs in one request, for the repository's readers … |
| ``blobs`` | Forgejo's GetBlobs: several blobs of a repository in one request, in the order asked (a sha asked twice … |
| ``branch_admin`` | Creating, deleting and renaming branches through the API (Forgejo's repoCreateBranch, repoDeleteBranch, … |
| ``branch_records`` | The Branch record (fj:services/convert/convert.go ToBranch), field for field. |
| ``branch_routes`` | Creating, deleting and renaming branches (Forgejo's ``repository`` tag): each one compare-and-swap of … |
| ``branch_store`` | Branch records: the head commit of each branch, ``R#<repo id>``/``BRANCH#<name>``. |
| ``branches`` | Branches, from the records kept with every ref change (no git reads). |
| ``commit_records`` | Commit, CommitVerification and ChangedFile records (fj:services/convert/git_commit.go), field for field: … |
| ``commit_routes`` | A repository's commits (Forgejo's ``repository`` tag): the commit list of a ref, one commit, one commit's … |
| ``commits`` | A repository's commits (Forgejo's ``repoGetAllCommits``, ``repoGetSingleCommit`` and … |
| ``file_routes`` | A repository's content: branches, raw and media files, .editorconfig, archives. |
| ``files`` | Reading a repository's content: resolving refs, raw and media files, .editorconfig. |
| ``git_data`` | The git data API (Forgejo's GetBlob, repoListAllGitRefs/repoListGitRefs, GetAnnotatedTag, repoGetNote): … |
| ``git_data_routes`` | The git data API (Forgejo's ``repository`` tag): a tree (paged, optionally recursive), a blob, the refs … |
| ``git_trees`` | Forgejo's GetTree: one page of a tree's entries, optionally recursive, with every blob's size. |
| ``models`` | The contents domain's items in the table: its models (and key layouts). |
| ``note_routes`` | Git notes written and removed (Forgejo's ``repository`` tag: repoSetNote, repoRemoveNote), by the … |
| ``notes`` | Git notes written and removed through the API (Forgejo's repoSetNote, repoRemoveNote); ``git_data.note`` … |
| ``options`` | The request bodies of the contents domain, declared once: the edge checks them (``ApiRequest.option``) … |
| ``patch_apply`` | repoApplyDiffPatch: a git-style unified diff applied to a branch as one commit. |
| ``patch_routes`` | repoApplyDiffPatch (Forgejo's ``repository`` tag): a unified diff applied to a branch as one commit, by … |
| ``pushes`` | Moving refs, with everything that follows from it, as one write. |
| ``records`` | Records of the contents API: ContentsResponse, FileResponse, FileDeleteResponse, FilesResponse (Forgejo's … |
| ``routes`` | The contents API (Forgejo's ``repository`` tag): read a path at a ref, and create, update or delete … |
| ``service`` | The contents API (issue 14 item 1): reading a path at a ref as Forgejo's ContentsResponse data, and … |
| ``tag_records`` | The Tag record (fj:services/convert/convert.go ToTag), field for field. |
| ``tag_routes`` | A repository's git tags (Forgejo's ``repository`` tag): list, get, create, delete (services/tags). Tag … |
| ``tags`` | A repository's git tags (Forgejo's repoListTags, repoGetTag, repoCreateTag, repoDeleteTag). |

Registered by ``chalicelib/areas.py``.  Ref moves of every writer (contents API, merges,
releases, new repositories, git push) go through ``pushes``.
"""

from chalicelib.faces import face

# The face: what other domains, the pages, the jobs and the CLI may use (chalicelib/faces.py).
__all__, __getattr__, __dir__ = face(__name__, {
    "forget_repo_archives":  "archives.forget_repo",
    "blame_file":            "blame.blame",
    "BlameTooLarge":         "blame.TooLarge",
    "BLAME_LIMITS":          "blame.LIMITS",
    "identity":              "authorship",
    "validate_branch_name":  "authorship",
    "branch_record":         "branch_records.branch",
    "branch_info":           "branch_store.get",
    "branch_infos":          "branch_store.list_branches",
    "branch_key":            "branch_store.key",
    "copy_branch_record":    "branch_store.copy_record",
    "new_branch_record":     "branch_store.new_record",
    "stage_delete_branch":   "branch_store.stage_delete",
    "stage_put_branch":      "branch_store.stage_put",
    "branch_usernames_for":  "branches.usernames_for",
    "list_branches":         "branches",
    "changed_file_record":   "commit_records.changed_file",
    "commit_record":         "commit_records.commit",
    "CommitQuery":           "commits",
    "commit_diff_or_patch":  "commits.diff_or_patch",
    "compare":               "commits",
    "count_commits":         "commits",
    "get_commit":            "commits",
    "linked_accounts":       "commits",
    "list_commits":          "commits",
    "patch_mail":            "commits",
    "stats_and_files":       "commits",
    "RawFile":               "files",
    "as_raw":                "files",
    "download_headers":      "files",
    "lfs_file":              "files",
    "media_of":              "files",
    "open_git":              "files",
    "resolve_ref":           "files.resolve",
    "Guard":                 "pushes",
    "HEADS":                 "pushes",
    "RefChange":             "pushes",
    "TRANSACTION_LIMIT":     "pushes",
    "Update":                "pushes",
    "ZERO":                  "pushes",
    "apply_ref_updates":     "pushes",
    "commit_fields":         "pushes",
    "commit_ref_changes":    "pushes.commit",
    "prepare_ref_changes":   "pushes.prepare",
    "prepare_unguarded_ref_changes": "pushes.prepare_unguarded",
    "push_event_fields":     "pushes.event_fields",
    "repo_snapshot":         "pushes",
    "require_ref_writer":    "pushes",
    "change_files":          "service",
    "change_one_file":       "service.change_one",
    "get_contents":          "service",
    "list_directory":        "service",
    "tag_record":            "tag_records",
    "list_tags":             "tags",
    "ChangeFileOperation":   "options",
    "ChangeFilesOptions":    "options",
    "CreateFileOptions":     "options",
    "DeleteFileOptions":     "options",
    "UpdateFileOptions":     "options",
})
