"""The request bodies of the issues domain, declared once: the edge checks them
(``ApiRequest.option``) and ``/swagger.v1.json`` publishes them (``http.options``).

Where the old rules answered a field themselves (a required text that may also be sent
empty or null, a tracked time's 400), the declaration lets that value through and the
rule keeps its answer."""
from __future__ import annotations

from typing import Annotated, Any, ClassVar, Mapping

from chalicelib.errors import InvalidInput
from chalicelib.http import input_rules
from chalicelib.http.options import UNSET, DateTime, Int64, Meta, Option, UnsetType

# Text limits (``http.input_rules``).  A repository's labels and milestones share one
# tracker item (400 KB), so their descriptions are kept short.
ISSUE_MAXIMA = {"title": 255, "body": input_rules.BODY_MAX, "ref": 255,
                "assignee": input_rules.NAME_MAX, "assignees": input_rules.NAME_MAX,
                "labels": 50, "state": 16}
_LABEL = {"name": 50, "description": 200, "color": 16, "labels": 50}
_MILESTONE = {"title": 50, "description": 2048, "state": 16, "due_on": 64}
# A label's description is a one-line input in Forgejo; a milestone's is a text area.
_ONE_LINE_LABEL = frozenset({"name", "color", "description"})
_ONE_LINE_MILESTONE = frozenset({"title", "state"})


# Forgejo publishes the labels of IssueLabelsOption as a list of anything ("items": {}):
# ids or names, which the rule resolves (``context.resolve_labels``).
AnyList = Annotated[list[Any], Meta(extra={"items": {}})]
# Label ids, published as a list of int64.  The option checks the items itself
# (``label_ids``): a wrong item has the rules' old text, which differs from a wrong list's.
IdList = Annotated[list[Any], Meta(extra={"items": {"type": "integer", "format": "int64"}})]
# Assignees' names, published as a list of strings.  Items that are not strings are
# dropped (``names_only``), as the rules always did.
NameList = Annotated[list[Any], Meta(extra={"items": {"type": "string"}})]
# Published as an int64, checked by the rule: a time that is not a positive number of
# seconds is a 400 there, not the binding's 422.
SecondsField = Annotated[Any, Meta(extra={"type": "integer", "format": "int64"})]


def label_ids(values: list[Any] | None | UnsetType) -> None:
    """An IdList's check: "[Labels]: expected a list of integers" for an item that is
    not an integer (a value that is not a list is the kernel's "expected a list")."""
    for value in values or ():
        if isinstance(value, bool) or not isinstance(value, int):
            raise InvalidInput("[Labels]: expected a list of integers")


def names_only(values: list[Any] | None | UnsetType) -> list[str] | None | UnsetType:
    """A NameList without its items that are not strings."""
    if not values:
        return values
    return [value for value in values if isinstance(value, str)]


class CreateIssueOption(Option):
    """issueCreateIssue (and the browser's new-issue form).  A null or blank title
    reaches the rule, which answers "Required"."""
    max_lengths: ClassVar[Mapping[str, int]] = ISSUE_MAXIMA
    single_line: ClassVar[frozenset[str]] = frozenset({"title", "ref", "assignee", "assignees"})

    title: str | None
    body: str | None | UnsetType = UNSET
    ref: str | None | UnsetType = UNSET
    assignee: str | None | UnsetType = UNSET
    assignees: NameList | None | UnsetType = UNSET
    milestone: Int64 | None | UnsetType = UNSET
    labels: IdList | None | UnsetType = UNSET
    closed: bool | None | UnsetType = UNSET
    due_date: DateTime | None | UnsetType = UNSET

    def __post_init__(self) -> None:
        label_ids(self.labels)
        self.assignees = names_only(self.assignees)


class IssueEditFields(Option, kw_only=True):
    """What an EditIssueOption and the pull requests' EditPullRequestOption share: the
    fields ``service.IssueEdit.parse`` reads, so both edits follow one set of rules.
    Not a definition of its own."""
    published = False

    title: str | None | UnsetType = UNSET
    body: str | None | UnsetType = UNSET
    assignee: str | None | UnsetType = UNSET
    assignees: NameList | None | UnsetType = UNSET
    milestone: Int64 | None | UnsetType = UNSET
    state: str | None | UnsetType = UNSET
    due_date: DateTime | None | UnsetType = UNSET
    unset_due_date: bool | None | UnsetType = UNSET

    def __post_init__(self) -> None:
        self.assignees = names_only(self.assignees)


class EditIssueOption(IssueEditFields, kw_only=True):
    """issueEditIssue: what is left out (or null) stays as it is; a null milestone
    removes it.  Any state other than "closed" reopens, as Forgejo's handler reads it."""
    max_lengths: ClassVar[Mapping[str, int]] = ISSUE_MAXIMA
    single_line: ClassVar[frozenset[str]] = frozenset({"title", "ref", "assignee", "assignees", "state"})
    published = True

    ref: str | None | UnsetType = UNSET
    updated_at: DateTime | None | UnsetType = UNSET


class CreateIssueCommentOption(Option):
    """issueCreateComment (and the browser's comment form).  Null or empty reaches the
    rule, which answers "Required"."""
    max_lengths: ClassVar[Mapping[str, int]] = {"body": input_rules.BODY_MAX}
    single_line: ClassVar[frozenset[str]] = frozenset()

    body: str | None
    updated_at: DateTime | None | UnsetType = UNSET


class EditIssueCommentOption(Option):
    """issueEditComment (and its deprecated path)."""
    max_lengths: ClassVar[Mapping[str, int]] = {"body": input_rules.BODY_MAX}
    single_line: ClassVar[frozenset[str]] = frozenset()

    body: str | None
    updated_at: DateTime | None | UnsetType = UNSET


class IssueLabelsOption(Option):
    """issueAddLabel, issueReplaceLabels: label ids or names."""
    max_lengths: ClassVar[Mapping[str, int]] = _LABEL
    single_line: ClassVar[frozenset[str]] = frozenset({"labels"})

    labels: AnyList | None | UnsetType = UNSET
    updated_at: DateTime | None | UnsetType = UNSET


class IssueMeta(Option):
    """The other issue of a dependency (issueCreateIssueDependencies and the rest): its
    repository by owner and name, and its number."""
    max_lengths: ClassVar[Mapping[str, int]] = {"owner": input_rules.NAME_MAX,
                                                "repo": 100}
    single_line: ClassVar[frozenset[str]] = frozenset({"owner", "repo"})

    index: Int64 | None | UnsetType = UNSET
    owner: str | None | UnsetType = UNSET
    repo: str | None | UnsetType = UNSET


# A colour that is not a text was refused as one of the wrong form.
COLOR_TEXTS = {("Color", "type"): "[Color]: color must be #rrggbb or rrggbb"}


class CreateLabelOption(Option):
    """issueCreateLabel.  Null, blank or empty reach the rules, which answer
    "Required"; the colour's form is the rule's too."""
    max_lengths: ClassVar[Mapping[str, int]] = _LABEL
    single_line: ClassVar[frozenset[str]] = _ONE_LINE_LABEL

    texts = COLOR_TEXTS

    name: str | None
    color: str | None
    description: str | None | UnsetType = UNSET
    exclusive: bool | None | UnsetType = UNSET
    is_archived: bool | None | UnsetType = UNSET


class EditLabelOption(Option):
    """issueEditLabel: what is left out (or null) stays as it is."""
    max_lengths: ClassVar[Mapping[str, int]] = _LABEL
    single_line: ClassVar[frozenset[str]] = _ONE_LINE_LABEL

    texts = COLOR_TEXTS

    name: str | None | UnsetType = UNSET
    color: str | None | UnsetType = UNSET
    description: str | None | UnsetType = UNSET
    exclusive: bool | None | UnsetType = UNSET
    is_archived: bool | None | UnsetType = UNSET


class CreateMilestoneOption(Option):
    """issueCreateMilestone: left out (or null), the state is open."""
    max_lengths: ClassVar[Mapping[str, int]] = _MILESTONE
    single_line: ClassVar[frozenset[str]] = _ONE_LINE_MILESTONE

    title: str | None | UnsetType = UNSET
    description: str | None | UnsetType = UNSET
    due_on: DateTime | None | UnsetType = UNSET
    # Published as the enum; checked by the rule, which keeps its own text and reads an
    # empty state as open.
    state: Annotated[str, Meta(extra={"enum": ["open", "closed"]})] | None | UnsetType = UNSET


class EditMilestoneOption(Option):
    """issueEditMilestone: what is left out (or null) stays as it is, except a null
    due_on, which removes the deadline.  Any state other than "closed" reopens (Forgejo
    publishes this one without an enum)."""
    max_lengths: ClassVar[Mapping[str, int]] = _MILESTONE
    single_line: ClassVar[frozenset[str]] = _ONE_LINE_MILESTONE

    title: str | None | UnsetType = UNSET
    description: str | None | UnsetType = UNSET
    due_on: DateTime | None | UnsetType = UNSET
    state: str | None | UnsetType = UNSET


class AddTimeOption(Option):
    """issueAddTime."""
    max_lengths: ClassVar[Mapping[str, int]] = {"user_name": input_rules.NAME_MAX, "created": 64}
    single_line: ClassVar[frozenset[str]] = frozenset({"user_name", "created"})

    time: SecondsField
    created: DateTime | None | UnsetType = UNSET
    user_name: str | None | UnsetType = UNSET


class EditDeadlineOption(Option):
    """issueEditIssueDeadline: null (or left out) removes the deadline; the date counts,
    the time of day does not."""
    max_lengths: ClassVar[Mapping[str, int]] = {"due_date": 64}
    single_line: ClassVar[frozenset[str]] = frozenset({"due_date"})
    swagger_required: ClassVar[tuple[str, ...]] = ("due_date",)   # as Forgejo publishes it

    due_date: DateTime | None | UnsetType = UNSET


class EditReactionOption(Option):
    """issuePostIssueReaction, issueDeleteIssueReaction and their comment forms: one
    content, which the rule checks against the allowed reactions (a 403, not a 422)."""
    content: str | None | UnsetType = UNSET
