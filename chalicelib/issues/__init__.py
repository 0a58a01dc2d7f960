"""The issue tracker: issues, comments, labels, milestones, tracked times, and issue
references (``Closes #1``: ``references``, followed by ``consumers``).

Operations (``routes.py``): issueGetRepoComments, issueGetComment, issueEditComment,
issueDeleteComment, issueListIssues, issueCreateIssue, issueGetIssue, issueEditIssue,
issueDelete, issueGetComments, issueCreateComment, issueEditCommentDeprecated,
issueDeleteCommentDeprecated, issueGetLabels, issueAddLabel, issueReplaceLabels,
issueClearLabels, issueRemoveLabel, issueTrackedTimes, issueAddTime, issueResetTime,
issueDeleteTime, issueListLabels, issueCreateLabel, issueGetLabel, issueEditLabel,
issueDeleteLabel, issueGetMilestonesList, issueCreateMilestone, issueGetMilestone,
issueEditMilestone, issueDeleteMilestone.

| module | what it holds |
|---|---|
| ``comment_store`` | Comments and tracked times of issues (keys in ``chalicelib.issues.store``). |
| ``comments`` | Comments and tracked times of issues. |
| ``consumers`` | The internal consumer that follows issue references (``issues/references.py``): commits of a push, issue … |
| ``context`` | What every issue tracker operation shares: the repository's tracker as one caller sees it (``Ctx``), the … |
| ``meta`` | Labels and milestones of a repository. |
| ``models`` | The issues domain's items in the table: its models (and key layouts). |
| ``options`` | The request bodies of the issues domain, declared once: the edge checks them (``ApiRequest.option``) and … |
| ``records`` | Issue tracker records: Label, Milestone, Issue (with PullRequestMeta), Comment and TrackedTime, field for … |
| ``reference_parser`` | Issue references in text, as Forgejo finds them: ``#N`` (or ``!N``) for the text's own repository, … |
| ``reference_store`` | References to an issue from elsewhere: a commit, another issue or pull request, a comment. Forgejo keeps … |
| ``references`` | Issue references, as Forgejo handles them (``services/issue/commit.go``, ``models/issues/issue_xref.go``, … |
| ``request`` | What every issue route and page reads from its request: the tracker as this caller sees it (with the keys … |
| ``routes`` | Issues, comments, labels, milestones and tracked times (Forgejo's ``issue`` tag). |
| ``service`` | Issues: list, create, get, edit, delete, and the labels of an issue. |
| ``store`` | The issue tracker in the table: issues, comments, labels, milestones, tracked times. |
| ``tracker_store`` | Changes to a repository's tracker item (``chalicelib.issues.store`` describes it). |

Registered by ``chalicelib/areas.py``; the references consumer by
``chalicelib/jobs/consumers.py``.  Pull requests are issue items (``chalicelib.pulls``).
"""

from chalicelib.faces import face

# The face: what other domains, the pages, the jobs and the CLI may use (chalicelib/faces.py).
__all__, __getattr__, __dir__ = face(__name__, {
    "create_comment":            "comments",
    "issue_comments":            "comments",
    "EVENT_TYPES":               "consumers",
    "on_event":                  "consumers",
    "wants_event":               "consumers",
    "Ctx":                       "context",
    "MAX_TITLE":                 "context",
    "PULLS_UNIT":                "context",
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
    "issue_from_snapshot":       "store",
    "issue_item":                "store.get_issue",
    "query_all_issues":          "store.query_all",
    "stage_replace_issue":       "store",
})
