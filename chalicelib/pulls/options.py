"""The request bodies of the pull requests domain, declared once: the edge checks them
(``ApiRequest.option``, ``merge_option``) and ``/swagger.v1.json`` publishes them
(``http.options``).

A pull request's title, head and base are required by the rules, not by Forgejo's
description: a null or blank one reaches the rule, which answers "Required"."""
from __future__ import annotations

from typing import Any, ClassVar, Literal, Mapping, get_args

from chalicelib.errors import InvalidInput
from chalicelib.http import input_rules
from chalicelib.http.options import UNSET, DateTime, Int64, Option, UnsetType, decode, go_field
from chalicelib.issues import (ISSUE_MAXIMA, IdList, IssueEditFields, NameList, label_ids,
                               names_only)

# Forgejo's merge styles (MergePullRequestForm.Do), in its order.
MergeStyle = Literal["merge", "rebase", "rebase-merge", "squash", "fast-forward-only",
                     "manually-merged"]
MERGE_STYLES: tuple[str, ...] = get_args(MergeStyle)


class CreatePullRequestOption(Option):
    """repoCreatePullRequest (and the browser's compare page)."""
    max_lengths: ClassVar[Mapping[str, int]] = dict(ISSUE_MAXIMA, head=512, base=255)
    single_line: ClassVar[frozenset[str]] = frozenset({"title", "head", "base", "assignee", "assignees",
                                                       "reviewers", "team_reviewers"})

    head: str | None | UnsetType = UNSET
    base: str | None | UnsetType = UNSET
    title: str | None | UnsetType = UNSET
    body: str | None | UnsetType = UNSET
    assignee: str | None | UnsetType = UNSET
    assignees: NameList | None | UnsetType = UNSET
    milestone: Int64 | None | UnsetType = UNSET
    labels: IdList | None | UnsetType = UNSET
    due_date: DateTime | None | UnsetType = UNSET
    # Later Forgejo releases ask for these reviews when the pull request is opened (the
    # reviews domain's rules, in the same transaction); the version this API describes
    # does not publish them yet.
    unpublished_fields: ClassVar[frozenset[str]] = frozenset({"reviewers", "team_reviewers"})
    reviewers: NameList | None | UnsetType = UNSET
    team_reviewers: NameList | None | UnsetType = UNSET

    def __post_init__(self) -> None:
        label_ids(self.labels)
        self.assignees = names_only(self.assignees)
        self.reviewers = names_only(self.reviewers)
        self.team_reviewers = names_only(self.team_reviewers)


class EditPullRequestOption(IssueEditFields, kw_only=True):
    """repoEditPullRequest: what is left out (or null) stays as it is; a null milestone
    removes it.  The state stays a text so the rule answers with its own message."""
    max_lengths: ClassVar[Mapping[str, int]] = dict(ISSUE_MAXIMA, base=255)
    single_line: ClassVar[frozenset[str]] = frozenset({"title", "base", "assignee", "assignees", "state"})
    published = True

    base: str | None | UnsetType = UNSET
    labels: IdList | None | UnsetType = UNSET
    allow_maintainer_edit: bool | None | UnsetType = UNSET

    def __post_init__(self) -> None:
        super().__post_init__()
        label_ids(self.labels)


class MergePullRequestOption(Option):
    """repoMergePullRequest (and the merge form of a pull request's page).  The field
    names are Forgejo's Go names (its form has no JSON names for them)."""
    max_lengths: ClassVar[Mapping[str, int]] = {"do": 32, "mergetitlefield": 255, "mergemessagefield": input_rules.BODY_MAX,
                       "mergecommitid": 64, "head_commit_id": 64}
    single_line: ClassVar[frozenset[str]] = frozenset({"do", "mergetitlefield", "mergecommitid", "head_commit_id"})

    Do: MergeStyle
    MergeTitleField: str | None | UnsetType = UNSET
    MergeMessageField: str | None | UnsetType = UNSET
    MergeCommitID: str | None | UnsetType = UNSET
    head_commit_id: str | None | UnsetType = UNSET
    force_merge: bool | None | UnsetType = UNSET
    merge_when_checks_succeed: bool | None | UnsetType = UNSET
    delete_branch_after_merge: bool | None | UnsetType = UNSET


# Gitea's clients send the Go-named fields in snake case too; the Go name wins when both
# are sent (and not null).
_MERGE_ALIASES = {"do": "Do", "merge_title_field": "MergeTitleField",
                  "merge_message_field": "MergeMessageField",
                  "merge_commit_id": "MergeCommitID"}


def merge_option(body: dict[str, Any]) -> MergePullRequestOption:
    """repoMergePullRequest's body as a MergePullRequestOption.  The style is checked
    first, and one text refuses it whether it was left out, null or unknown: the list of
    styles.  A wrong field sent by its snake-case name is named as sent
    ("[MergeTitleField]", where the Go name gives "[Mergetitlefield]")."""
    fields = dict(body)
    sent_as: dict[str, str] = {}
    for alias, name in _MERGE_ALIASES.items():
        if fields.get(name) is None and fields.get(alias) is not None:
            fields[name] = fields[alias]
            sent_as[go_field(name)] = go_field(alias)
    if fields.get("Do") is None:
        raise InvalidInput(f"[Do]: must be one of {', '.join(MERGE_STYLES)}")
    try:
        # The decoder reports the first wrong field it meets: the style, as Forgejo does.
        return decode(MergePullRequestOption, {"Do": fields.pop("Do"), **fields})
    except InvalidInput as refused:
        label, _, rest = refused.message.partition("]: ")
        if label[1:] in sent_as:
            raise InvalidInput(f"[{sent_as[label[1:]]}]: {rest}") from None
        raise
