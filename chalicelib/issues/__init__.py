"""The issue tracker: issues, comments, labels, milestones, tracked times, and issue
references (``Closes #1``: ``references``, followed by ``consumers``).

Operations (``attachment_routes.py``): issueListIssueAttachments,
issueCreateIssueAttachment, issueCreateIssueAttachmentUpload,
issueConfirmIssueAttachmentUpload, issueGetIssueAttachment, issueEditIssueAttachment,
issueDeleteIssueAttachment, issueListIssueCommentAttachments,
issueCreateIssueCommentAttachment, issueCreateIssueCommentAttachmentUpload,
issueConfirmIssueCommentAttachmentUpload, issueGetIssueCommentAttachment,
issueEditIssueCommentAttachment, issueDeleteIssueCommentAttachment.
Operations (``dependency_routes.py``): issueListIssueDependencies,
issueCreateIssueDependencies, issueRemoveIssueDependencies, issueListBlocks,
issueCreateIssueBlocking, issueRemoveIssueBlocking.
Operations (``issue_template_routes.py``): repoGetIssueTemplates, repoGetIssueConfig,
repoValidateIssueConfig.
Operations (``label_template_routes.py``): listLabelTemplates, getLabelTemplateInfo.
Operations (``org_label_routes.py``): orgListLabels, orgCreateLabel, orgGetLabel,
orgEditLabel, orgDeleteLabel.
Operations (``pin_routes.py``): repoListPinnedIssues, repoNewPinAllowed, pinIssue,
unpinIssue, moveIssuePin.
Operations (``reaction_routes.py``): issueGetIssueReactions, issuePostIssueReaction,
issueDeleteIssueReaction, issueGetCommentReactions, issuePostCommentReaction,
issueDeleteCommentReaction.
Operations (``routes.py``): issueGetRepoComments, issueGetComment, issueEditComment,
issueDeleteComment, issueListIssues, issueCreateIssue, issueGetIssue, issueEditIssue,
issueDelete, issueGetComments, issueCreateComment, issueEditCommentDeprecated,
issueDeleteCommentDeprecated, issueGetLabels, issueAddLabel, issueReplaceLabels,
issueClearLabels, issueRemoveLabel, issueTrackedTimes, issueAddTime, issueResetTime,
issueDeleteTime, issueListLabels, issueCreateLabel, issueGetLabel, issueEditLabel,
issueDeleteLabel, issueGetMilestonesList, issueCreateMilestone, issueGetMilestone,
issueEditMilestone, issueDeleteMilestone.
Operations (``stopwatch_routes.py``): issueStartStopWatch, issueStopStopWatch,
issueDeleteStopWatch, userGetStopWatches, issueEditIssueDeadline.
Operations (``time_routes.py``): repoTrackedTimes, userTrackedTimes,
userCurrentTrackedTimes.

| module | what it holds |
|---|---|
| ``attachment_routes`` | Attachments of issues and comments (Forgejo's ``issue`` tag): list, upload, get, edit, delete; and, for … |
| ``attachment_store`` | Attachments of issues and comments in the table (keys of the issues in ``chalicelib.issues.store``). |
| ``attachments`` | Attachments of issues and comments (Forgejo's rules): list, upload, get, edit, delete, the presigned … |
| ``comment_store`` | Comments and tracked times of issues (keys in ``chalicelib.issues.store``). |
| ``comments`` | Comments and tracked times of issues. |
| ``consumers`` | The internal consumer that follows issue references (``issues/references.py``): commits of a push, issue … |
| ``context`` | What every issue tracker operation shares: the repository's tracker as one caller sees it (``Ctx``), the … |
| ``deadlines`` | An issue's deadline (issueEditIssueDeadline), as Forgejo sets it: writers of the issue's unit only (403 … |
| ``dependencies`` | Issue dependencies, as Forgejo has them (``routers/api/v1/repo/issue_dependency.go``): an issue (or pull … |
| ``dependency_routes`` | Issue dependencies and blocks (Forgejo's ``issue`` tag; rules in ``dependencies``). |
| ``dependency_store`` | Issue dependencies in the table: "A depends on B" (B blocks A) is one edge, kept as two items, one in … |
| ``import_store`` | Tracker records brought in by a project migration (``chalicelib.migrations``): labels, milestones, issues … |
| ``issue_forms`` | YAML read as Forgejo reads issue templates and the issue config, and the rules of an issue form's … |
| ``issue_template_routes`` | Issue templates and the issue config of a repository (Forgejo's ``repository`` tag): read from the … |
| ``issue_templates`` | Issue templates and the issue config, as Forgejo reads them from a repository … |
| ``label_template_routes`` | Label templates (Forgejo's ``miscellaneous`` tag): the sets a new repository may start with … |
| ``label_templates`` | The label sets a new repository may start with (``issue_labels`` on creation, and the … |
| ``meta`` | Labels and milestones of a repository. |
| ``models`` | The issues domain's items in the table: its models (and key layouts). |
| ``options`` | The request bodies of the issues domain, declared once: the edge checks them (``ApiRequest.option``) and … |
| ``org_label_routes`` | An organization's labels (Forgejo's ``organization`` tag and token scope): list, get, create, edit, … |
| ``org_label_store`` | An organization's labels in the table: one item per organization. |
| ``org_labels`` | An organization's labels (Forgejo's ``/orgs/{org}/labels``): list, get, create, edit, delete. They label … |
| ``pin_routes`` | Pinned issues: pin, unpin and move (Forgejo's ``issue`` tag), the pinned issues and whether one more may … |
| ``pin_store`` | Pins in the table: the repository's tracker item keeps the pinned numbers in pin order, issues … |
| ``pins`` | Pinned issues and pull requests, as Forgejo has them: a repository admin pins, unpins and moves pins (403 … |
| ``reaction_records`` | Forgejo's Reaction record (``structs.Reaction``), declared beside its one builder. |
| ``reaction_routes`` | Reactions to issues and comments (Forgejo's ``issue`` tag; rules in ``reactions``). |
| ``reaction_store`` | Reactions to issues and comments in the table. |
| ``reactions`` | Reactions to issues, pull requests and comments, as Forgejo answers them. |
| ``records`` | Issue tracker records: Label, Milestone, Issue (with PullRequestMeta), Comment and TrackedTime, field for … |
| ``reference_parser`` | Issue references in text, as Forgejo finds them: ``#N`` (or ``!N``) for the text's own repository, … |
| ``reference_store`` | References to an issue from elsewhere: a commit, another issue or pull request, a comment. Forgejo keeps … |
| ``references`` | Issue references, as Forgejo handles them (``services/issue/commit.go``, ``models/issues/issue_xref.go``, … |
| ``request`` | What every issue route and page reads from its request: the tracker as this caller sees it (with the keys … |
| ``routes`` | Issues, comments, labels, milestones and tracked times (Forgejo's ``issue`` tag). |
| ``service`` | Issues: list, create, get, edit, delete, and the labels of an issue. |
| ``stopwatch_routes`` | Stopwatches and deadlines of issues (Forgejo's ``issue`` tag) and the caller's running stopwatches … |
| ``stopwatch_store`` | Running stopwatches in the table (keys in ``chalicelib.issues.store``). |
| ``stopwatches`` | Stopwatches on issues, as Forgejo keeps them: one running stopwatch per user and issue; stopping it … |
| ``store`` | The issue tracker in the table: issues, comments, labels, milestones, tracked times. |
| ``template_files`` | A repository's issue templates and issue config, read from its default branch (Forgejo's … |
| ``time_lists`` | Lists of tracked times beyond one issue: a repository's (repoTrackedTimes, its ``user`` filter and the … |
| ``time_routes`` | Tracked times of a repository and of the caller (repoTrackedTimes, userTrackedTimes under the … |
| ``time_store`` | Tracked times by their index entries (``comment_store.new_time`` writes them): gsi1 ``RTIMES#<repo>`` … |
| ``timeline_records`` | An issue's timeline as the issues domain keeps it, read and rendered: its comments, its events … |
| ``timeline_store`` | Timeline events: what Forgejo records as typed comments on an issue when it changes (``close``, … |
| ``tracker_store`` | Changes to a repository's tracker item (``chalicelib.issues.store`` describes it). |
| ``tracking_records`` | Records of stopwatches, deadlines and pins: StopWatch, IssueDeadline and NewIssuePinsAllowed, field for … |

Registered by ``chalicelib/areas.py``; the references consumer by
``chalicelib/jobs/consumers.py``.  Pull requests are issue items (``chalicelib.pulls``).
"""

from chalicelib.faces import face

# The face: what other domains, the pages, the jobs and the CLI may use (chalicelib/faces.py).
__all__, __getattr__, __dir__ = face(__name__, {
    "ImportedAuthor":            "import_store.Author",
    "ImportedComment":           "import_store",
    "ImportedIssue":             "import_store",
    "ImportedReaction":          "import_store",
    "ensure_import_tracker":     "import_store.ensure_tracker",
    "imported_issue":            "import_store.existing",
    "imported_numbers_after":    "import_store.numbers_after",
    "import_open_totals":        "import_store.open_totals",
    "stage_imported_comments":   "import_store.stage_comments",
    "stage_imported_issue":      "import_store.stage_issue",
    "stage_imported_labels":     "import_store.stage_labels",
    "stage_imported_milestones": "import_store.stage_milestones",
    "stage_imported_reactions":  "import_store.stage_reactions",
    "stage_import_next_number":  "import_store.stage_next_number",
    "imported_comment_items":    "import_store.items_of_comments",
    "download_issue_attachment":      "attachments.download",
    "issue_attachment_link_key":      "attachments.download_link_key",
    "issue_attachment_preload_more":  "attachments.download_preload_more",
    "issue_attachment_bytes":         "attachment_store.stored_bytes",
    "time_index_keys":           "comment_store",
    "comments_of_issue":         "comment_store.comments_of",
    "create_comment":            "comments",
    "issue_comments":            "comments",
    "EVENT_TYPES":               "consumers",
    "on_event":                  "consumers",
    "wants_event":               "consumers",
    "Ctx":                       "context",
    "MAX_TITLE":                 "context",
    "PULLS_UNIT":                "context",
    "ISSUES_UNIT":               "context",
    "fresh_accounts":            "context",
    "issue_context":             "context.context",
    "parse_time":                "context",
    "value_of":                  "context",
    "with_labels":               "context",
    "Comment":                   "models",
    "Issue":                     "models",
    "CreateIssueCommentOption":  "options",
    "CreateIssueOption":         "options",
    "CreateLabelOption":         "options",
    "CreateMilestoneOption":     "options",
    "EditIssueOption":           "options",
    "ISSUE_MAXIMA":              "options",
    "IdList":                    "options",
    "IssueEditFields":           "options",
    "NameList":                  "options",
    "label_ids":                 "options",
    "names_only":                "options",
    "REACTION_EMOJI":            "reaction_records",
    "reaction_counts":           "reactions",
    "pinned_issues":             "pins.pinned",
    "comment_record":            "records.comment",
    "issue_html_url":            "records",
    "issue_record":              "records.issue",
    "ISSUE":                     "request",
    "IssueRenderer":             "request.Renderer",
    "issue_ctx_of":              "request.ctx_of",
    "issue_preload_more":        "request",
    "IssueEdit":                 "service",
    "IssueQuery":                "service",
    "create_issue":              "service",
    "edit_issue":                "service",
    "get_issue":                 "service",
    "issue_edit_events":         "service.edit_events",
    "issue_event":               "service",
    "list_issues":               "service",
    "mutate_issue":              "service.mutate",
    "stage_issue_counters":      "service.stage_counters",
    "Tracker":                   "store",
    "comment_from_snapshot":     "store",
    "copy_issue":                "store",
    "get_tracker":               "store",
    "issue_page_keys":           "context.page_keys",
    "tracker_for":               "context",
    "issue_from_snapshot":       "store",
    "issue_item":                "store.get_issue",
    "query_all_issues":          "store.query_all",
    "stage_replace_issue":       "store",
    "TimelineRenderer":          "timeline_records",
    "TIMELINE_EMPTY":            "timeline_records.EMPTY",
    "allowed_reactions":         "reactions",
    "create_label_set":          "meta",
    "label_set":                 "label_templates.labels_of",
    "issue_timeline":            "timeline_records",
    "stage_timeline_event":      "timeline_store.stage_event",
    "stage_pull_push":           "timeline_store.stage_push",
    "EditLabelOption":           "options",
    "EditMilestoneOption":       "options",
    "IssueLabelsOption":         "options",
    "replace_issue_labels":      "service.replace_labels",
    "list_labels":               "meta",
    "get_label":                 "meta",
    "create_label":              "meta",
    "edit_label":                "meta",
    "delete_label":              "meta",
    "list_milestones":           "meta",
    "find_milestone":            "meta",
    "create_milestone":          "meta",
    "edit_milestone":            "meta",
    "delete_milestone":          "meta",
})
