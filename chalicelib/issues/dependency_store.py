"""Issue dependencies in the table: "A depends on B" (B blocks A) is one edge, kept as two
items, one in each issue's repository partition, so that either issue lists its side
with one Query of its own prefix, a page at a time.

| item | pk | sk | written with |
|---|---|---|---|
| A's dependency on B | ``R#<A's repo>`` | ``DEP#<A's number, 10 digits>#<B's issue id, 15 digits>`` | the pair, in one transaction |
| B blocks A | ``R#<B's repo>`` | ``BLK#<B's number, 10 digits>#<A's issue id, 15 digits>`` | the pair, in one transaction |

**One transaction per edge change.**  Adding A -> B puts both items with
``attribute_not_exists`` (a duplicate fails: label ``dependency``), checks that the
reverse edge's ``DEP#`` item under B does not exist (label ``circular``) and that both
issues still exist with the ids read (label ``issue``), and writes the
``add_dependency`` timeline event on both issues.  Two opposite requests at once (A -> B
and B -> A) each put the item the other one checks for absence; DynamoDB serialises
transactions on the items they share, so at most one of them lands.  Removing deletes
both items on condition that they exist (label ``dependency``) with the
``remove_dependency`` events.

Issue ids are global (``store.new_issue_id``) and issue numbers are never handed out
twice in a repository, so an edge names the other issue for good.  **Deleting an issue
leaves its edges**: the lists and the close check read the other issue by key and skip
an edge whose issue is gone (or whose id no longer matches), and so do they when the
other repository was deleted.
"""
from __future__ import annotations

from typing import Iterable, Iterator

from chalicelib import clock
from chalicelib.issues.models import IssueDependency
from chalicelib.issues.store import Issue, ikeys, num_key
from chalicelib.store import unit_of_work

LABEL = "dependency"
CIRCULAR = "circular"
ISSUE_GONE = "issue"
DEPENDS_ON, BLOCKS = "DEP", "BLK"
ID_DIGITS = 15
BATCH = 100     # BatchGetItem's limit


def _prefix(side: str, number: int) -> str:
    return f"{side}#{num_key(number)}#"


def edge_key(side: str, repo_id: int, number: int, other_issue_id: int) -> tuple[str, str]:
    """The item of ``side`` (DEPENDS_ON or BLOCKS) under the issue ``repo_id``/``number``
    whose other end is the issue with id ``other_issue_id``."""
    return ikeys.partition(repo_id), f"{_prefix(side, number)}{other_issue_id:0{ID_DIGITS}d}"


def _edge(side: str, issue: Issue, other: Issue, poster_id: int, created: int) -> IssueDependency:
    return IssueDependency(
        *edge_key(side, int(issue.repo_id), int(issue.number), int(other.id)),
        repo_id=int(issue.repo_id), number=int(issue.number), issue_id=int(issue.id),
        other_repo_id=int(other.repo_id), other_number=int(other.number),
        other_issue_id=int(other.id), poster_id=poster_id, created=created)


# Reads ------------------------------------------------------------------------------------------

def read_both_ways(one: Issue, other: Issue) -> None:
    """Read the edge between the two issues, either way, in one BatchGetItem (then
    ``exists`` answers from the unit of work)."""
    unit_of_work.prefetch([
        edge_key(DEPENDS_ON, int(one.repo_id), int(one.number), int(other.id)),
        edge_key(DEPENDS_ON, int(other.repo_id), int(other.number), int(one.id))])


def exists(blocked: Issue, blocker: Issue, *, consistent: bool = False) -> bool:
    key = edge_key(DEPENDS_ON, int(blocked.repo_id), int(blocked.number), int(blocker.id))
    return unit_of_work.get(IssueDependency, key, consistent=consistent) is not None


def edges(side: str, repo_id: int, number: int, *, limit: int | None = None) -> list[IssueDependency]:
    """The issue's edges of one side in the order of the other issue's id, the first
    ``limit`` of them (None: all, DynamoDB's pages as needed)."""
    kwargs = {"limit": limit, "page_size": limit} if limit else {}
    return list(IssueDependency.query(
        ikeys.partition(repo_id), IssueDependency.sk.startswith(_prefix(side, number)),
        **kwargs))


def issues_named(names: list[tuple[int, int, int]]) -> list[Issue | None]:
    """The issues named ``(repo id, number, issue id)``, read by key (BatchGetItem, 100
    keys a call); None where one is gone or the number now holds another issue."""
    keys = [ikeys.issue(repo_id, number) for repo_id, number, _ in names]
    for start in range(0, len(keys), BATCH):
        unit_of_work.prefetch(keys[start:start + BATCH])
    found = []
    for key, (_, _, issue_id) in zip(keys, names):
        issue = unit_of_work.get(Issue, key)
        found.append(issue if issue is not None and int(issue.id) == issue_id else None)
    return found


def other_issues(found: Iterable[IssueDependency]) -> list[tuple[IssueDependency, Issue]]:
    """Each edge with the issue at its other end; edges whose other issue is gone are
    left out."""
    found = list(found)
    issues = issues_named([(int(e.other_repo_id), int(e.other_number), int(e.other_issue_id))
                           for e in found])
    return [(edge, issue) for edge, issue in zip(found, issues) if issue is not None]


def open_blockers(issue: Issue) -> Iterator[Issue]:
    """The issues ``issue`` depends on that are still open (the close rule's read)."""
    for _, other in other_issues(edges(DEPENDS_ON, int(issue.repo_id), int(issue.number))):
        if other.is_open:
            yield other


# Staged writes ----------------------------------------------------------------------------------

def _issue_still(issue: Issue):
    return Issue.id == int(issue.id)


def stage_add(blocked: Issue, blocker: Issue, poster_id: int) -> None:
    """Stage "``blocked`` depends on ``blocker``" (see the module notes for the
    conditions)."""
    uow = unit_of_work.current()
    created = clock.seconds()
    uow.put(_edge(DEPENDS_ON, blocked, blocker, poster_id, created), label=LABEL,
            must_not_exist=True)
    uow.put(_edge(BLOCKS, blocker, blocked, poster_id, created), label=LABEL,
            must_not_exist=True)
    reverse = edge_key(DEPENDS_ON, int(blocker.repo_id), int(blocker.number), int(blocked.id))
    uow.check(IssueDependency(*reverse), IssueDependency.pk.does_not_exist(), label=CIRCULAR)
    for issue in (blocked, blocker):
        uow.check(Issue(*ikeys.issue(int(issue.repo_id), int(issue.number))),
                  _issue_still(issue), label=ISSUE_GONE)


def stage_remove(blocked: Issue, blocker: Issue) -> None:
    """Stage the removal of "``blocked`` depends on ``blocker``"; the commit fails
    (label ``dependency``) when the edge is not there."""
    uow = unit_of_work.current()
    there = IssueDependency.pk.exists()
    uow.delete(IssueDependency(*edge_key(DEPENDS_ON, int(blocked.repo_id), int(blocked.number),
                                         int(blocker.id))), label=LABEL, condition=there)
    uow.delete(IssueDependency(*edge_key(BLOCKS, int(blocker.repo_id), int(blocker.number),
                                         int(blocked.id))), label=LABEL, condition=there)
