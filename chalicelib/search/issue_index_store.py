"""The issue index in the table: each issue's entries (``models.IssueEntry``) in the
lists a search reads, each issue's document, and the reads a search page makes.

Lists (``keys.issue_list``): ``all`` (every issue), ``owner`` (an account's
repositories' issues), ``poster`` / ``assignee`` / ``mentioned`` / ``review_requested``
/ ``reviewed`` (one user's), ``word`` (every issue holding a word) and ``repo_word``
(one repository's issues holding it).  A search reads the one list that narrows it most
and lets DynamoDB's filter decide the rest, newest first, a DynamoDB page at a time.

Writes replace an issue's entries as every index does (``entry_store``: the document
first, on condition of the version read).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator

from chalicelib.search import entry_store, issue_terms
from chalicelib.search.models import IssueEntry, IssueIndexDoc, keys
from chalicelib.store import unit_of_work
from chalicelib.store.table import Item

DOC = "issue search index"      # label of the document's compare-and-swap
PEOPLE_LISTS = ("assignee", "mentioned", "review_requested", "reviewed")


@dataclass(frozen=True)
class IssueFacts:
    """What the index keeps of an issue (from the issue, its comments, its repository)."""
    issue_id: int
    issue_pk: str
    repo_id: int
    repo_pk: str
    number: int
    owner_id: int
    vis: str
    closed: bool
    pull: bool
    created: int
    updated: int
    poster_id: int
    labels: frozenset[str] = frozenset()
    milestone: str = ""
    words: tuple[str, ...] = ()
    assignee: frozenset[int] = frozenset()
    mentioned: frozenset[int] = frozenset()
    review_requested: frozenset[int] = frozenset()
    reviewed: frozenset[int] = frozenset()


@dataclass(frozen=True)
class IssueFilter:
    """What a search keeps, decided by DynamoDB's filter on each entry read."""
    words: tuple[str, ...] = ()            # each must be a word of the issue
    closed: bool | None = None
    pull: bool | None = None
    visibility: tuple[str, ...] | None = None   # None: every entry (site admins)
    hidden_repos: tuple[int, ...] = ()     # hid entries the caller may see anyway
    repos: tuple[int, ...] | None = None   # only these repositories
    owner_id: int | None = None
    any_label: tuple[str, ...] = ()
    milestones: tuple[str, ...] = ()
    since: int | None = None
    before: int | None = None
    people: dict[str, int] = field(default_factory=dict)   # list name -> user id


def _sets(facts: IssueFacts) -> dict:
    return {name: set(getattr(facts, name)) or None for name in PEOPLE_LISTS}


def entries_for(facts: IssueFacts) -> list[IssueEntry]:
    """The entries an issue has: in every list it belongs to."""
    sk = issue_terms.sort_key(facts.created, facts.issue_id)
    common = dict(issue_pk=facts.issue_pk, repo_id=facts.repo_id,
                  repo_pk=facts.repo_pk, number=facts.number,
                  owner_id=facts.owner_id, vis=facts.vis, closed=facts.closed,
                  pull=facts.pull, updated=facts.updated, labels=set(facts.labels) or None,
                  milestone=facts.milestone, poster_id=facts.poster_id,
                  assignees=set(facts.assignee) or None,
                  mentioned=set(facts.mentioned) or None,
                  review_requested=set(facts.review_requested) or None,
                  reviewed=set(facts.reviewed) or None)
    lists = [keys.issue_list("all"), keys.issue_list("owner", facts.owner_id)]
    if facts.poster_id:
        lists.append(keys.issue_list("poster", facts.poster_id))
    for name in PEOPLE_LISTS:
        lists += [keys.issue_list(name, user_id) for user_id in sorted(getattr(facts, name))]
    found = [IssueEntry(pk, sk, **common) for pk in dict.fromkeys(lists)]
    words = set(facts.words) or None
    for word in facts.words:
        found.append(IssueEntry(keys.issue_list("word", word), sk, **common, words=words))
        found.append(IssueEntry(keys.issue_list("repo_word", f"{facts.repo_id}#{word}"), sk,
                                **common, words=words))
    return found


def doc_of(repo_id: int, issue_id: int) -> IssueIndexDoc | None:
    return unit_of_work.get(IssueIndexDoc, keys.issue_doc(repo_id, issue_id), consistent=True)


def docs_of_repo(repo_id: int) -> Iterator[IssueIndexDoc]:
    """Every issue document of one repository (bounded by its issues)."""
    for item in Item.query(keys.issue_docs(repo_id), consistent_read=True):
        if isinstance(item, IssueIndexDoc):
            yield item


def stage_index(facts: IssueFacts, doc: IssueIndexDoc | None) -> None:
    """The issue's entries as ``facts`` say, replacing what ``doc`` lists."""
    new = IssueIndexDoc(*keys.issue_doc(facts.repo_id, facts.issue_id), number=facts.number,
                        vis=facts.vis)
    entry_store.stage_entries(new, doc, entries_for(facts), IssueEntry, label=DOC,
                             entry_label="issue search entry")


def stage_remove(doc: IssueIndexDoc) -> None:
    """A deleted issue (or one of a deleted repository) leaves the index."""
    entry_store.stage_removal(doc, IssueEntry, label=DOC, entry_label="issue search entry")


def _all_of(parts: list):
    condition = None
    for part in parts:
        condition = part if condition is None else condition & part
    return condition


def _any_of(parts: list):
    condition = None
    for part in parts:
        condition = part if condition is None else condition | part
    return condition


def _visible(wanted: IssueFilter):
    if wanted.visibility is None:
        return None
    parts = [IssueEntry.vis.is_in(*wanted.visibility)] if wanted.visibility else []
    # DynamoDB takes at most 100 values in one IN.
    hidden = list(wanted.hidden_repos)
    parts += [IssueEntry.repo_id.is_in(*hidden[i:i + 100]) for i in range(0, len(hidden), 100)]
    return _any_of(parts) if parts else IssueEntry.vis == "-"   # nothing


def _condition(wanted: IssueFilter, read_word: str | None):
    parts = [IssueEntry.words.contains(word) for word in wanted.words if word != read_word]
    for name in ("closed", "pull"):
        value = getattr(wanted, name)
        if value is not None:
            parts.append(getattr(IssueEntry, name) == value)
    visible = _visible(wanted)
    if visible is not None:
        parts.append(visible)
    if wanted.repos is not None:
        chosen = list(wanted.repos) or [0]
        parts.append(_any_of([IssueEntry.repo_id.is_in(*chosen[i:i + 100])
                              for i in range(0, len(chosen), 100)]))
    if wanted.owner_id is not None:
        parts.append(IssueEntry.owner_id == wanted.owner_id)
    if wanted.any_label:
        parts.append(_any_of([IssueEntry.labels.contains(n) for n in wanted.any_label]))
    if wanted.milestones:
        parts.append(IssueEntry.milestone.is_in(*wanted.milestones[:100]))
    if wanted.since is not None:
        parts.append(IssueEntry.updated >= wanted.since)
    if wanted.before is not None:
        parts.append(IssueEntry.updated <= wanted.before)
    for name, user_id in sorted(wanted.people.items()):
        attribute = IssueEntry.poster_id if name == "poster" else getattr(
            IssueEntry, "assignees" if name == "assignee" else name)
        parts.append(attribute == user_id if name == "poster" else attribute.contains(user_id))
    return _all_of(parts)


def list_for(wanted: IssueFilter, *, repo_id: int | None = None) -> tuple[str, str | None]:
    """The list a search reads, and the word it stands for: a keyword's longest word
    (the repository's list of it when one repository is searched); else a person's list;
    else the owner's; else every issue's."""
    if wanted.words:
        word = wanted.words[0]
        if repo_id is not None:
            return keys.issue_list("repo_word", f"{int(repo_id)}#{word}"), word
        return keys.issue_list("word", word), word
    for name in ("poster", *PEOPLE_LISTS):
        if name in wanted.people:
            return keys.issue_list(name, wanted.people[name]), None
    if wanted.owner_id is not None:
        return keys.issue_list("owner", wanted.owner_id), None
    return keys.issue_list("all"), None


def read(wanted: IssueFilter, *, repo_id: int | None = None,
         page_size: int | None = None) -> Iterator[IssueEntry]:
    """The entries ``wanted`` keeps, newest first, read a DynamoDB page (up to 1 MB of
    entries, filtered there) at a time, as far as the caller iterates."""
    list_pk, word = list_for(wanted, repo_id=repo_id)
    for item in Item.query(list_pk, filter_condition=_condition(wanted, word),
                           scan_index_forward=False, page_size=page_size):
        if isinstance(item, IssueEntry):
            yield item
