"""Keeping the issue index current: an issue is indexed again, from what it is now,
whenever an event says it (or its comments, reviews, labels, repository) changed.

Indexing reads the issue (strongly consistent), its comments (their words and
mentions), its tracker (label names, milestone title) and its repository and owner
(who may find it), and writes its entries (``issue_index_store.stage_index``): late,
repeated and out-of-order events all end in the current state.  A repository whose
visibility changed, or that was deleted, has each of its issues indexed again (bounded
by its issues, read from the index's own documents).
"""
from __future__ import annotations

from chalicelib import accounts, events, issues, pulls, repos
from chalicelib.search import entry_store, issue_index_store, issue_terms
from chalicelib.search.issue_index_store import IssueFacts
from chalicelib.search.repo_search import facts_of
from chalicelib.store import unit_of_work

REVIEWED = ("APPROVED", "REQUEST_CHANGES", "COMMENT")
# Issues of a migrated repository indexed per event (each costs a few reads and a
# write): a page stays well inside one consumer invocation.
IMPORTED_PAGE = 100


def _people_of_pull(issue) -> tuple[frozenset[int], frozenset[int]]:
    """Who is asked to review the pull request, and who has reviewed it."""
    if not issue.is_pull:
        return frozenset(), frozenset()
    fields = pulls.pull_fields_of(issue)
    requested = {int(r.get("id") or 0) for r in fields.requested_reviewers}
    reviewed = {int(v.get("reviewer_id") or 0) for v in fields.verdicts
                if v.get("state") in REVIEWED and not v.get("team_id")}
    return frozenset(requested - {0}), frozenset(reviewed - {0})


def issue_facts(issue, repo, owner) -> IssueFacts:
    """What the index keeps of one issue as it is now."""
    repo_id, number = int(issue.repo_id), int(issue.number)
    tracker = issues.tracker_for(repo_id, owner)
    comments = issues.comments_of_issue(repo_id, number)
    texts = [issue.title, issue.body, *(c.body for c in comments)]
    names = issue_terms.mentioned_names(issue.body, *(c.body for c in comments))
    mentioned = frozenset(int(a.id) for a in accounts.accounts_by_login(names).values()) \
        if names else frozenset()
    labels = frozenset(str(tracker.labels[int(i)].get("name", ""))
                       for i in issue.label_ids if int(i) in tracker.labels)
    milestone = tracker.milestones.get(int(issue.milestone_id or 0)) or {}
    requested, reviewed = _people_of_pull(issue)
    return IssueFacts(
        issue_id=int(issue.id), issue_pk=issue.pk, repo_id=repo_id, repo_pk=repo.pk,
        number=number,
        owner_id=int(repo.owner_id), vis=facts_of(repo, owner).vis,
        closed=not issue.is_open, pull=bool(issue.is_pull), created=int(issue.created),
        updated=int(issue.updated), poster_id=int(issue.poster_id or 0),
        labels=frozenset(n for n in labels if n), milestone=str(milestone.get("title") or ""),
        words=tuple(issue_terms.words(str(number), *texts)),
        assignee=frozenset(int(i) for i in issue.assignee_ids), mentioned=mentioned,
        review_requested=requested, reviewed=reviewed)


def repo_and_owner(repo_id: int):
    """The repository and its owner as they are now (None, None when either is gone)."""
    found = repos.repos_by_ids([repo_id], consistent=True)
    repo = found[0] if found else None
    owner = accounts.account_by_id(int(repo.owner_id), consistent=True) \
        if repo is not None else None
    return (repo, owner) if owner is not None else (None, None)


def index_issue(repo_id: int, number: int, issue_id: int = 0, *, place=None) -> None:
    """Bring one issue's entries to what it is now (or remove them if it, or its
    repository, is gone), retrying when another indexing of it committed first.
    ``place``: the repository and owner, when the caller has read them."""
    repo, owner = place if place is not None else repo_and_owner(repo_id)

    def index_once() -> None:
        issue = issues.issue_item(repo_id, number, consistent=True) \
            if repo is not None else None
        key_id = int(issue.id) if issue is not None else int(issue_id)
        if not key_id:
            return
        with unit_of_work.writing():
            doc = issue_index_store.doc_of(repo_id, key_id)
            if issue is None:
                if doc is not None:
                    issue_index_store.stage_remove(doc)
            else:
                issue_index_store.stage_index(issue_facts(issue, repo, owner), doc)

    entry_store.until_current(issue_index_store.DOC, index_once, f"issue {repo_id}#{number}")


def index_repo_issues(repo_id: int, *, only_if_moved: bool = True) -> None:
    """Index again each issue of a repository the index has (after a change of who may
    see it, or its deletion); with ``only_if_moved``, only when the visibility its
    entries were written with is no longer the repository's."""
    repo, owner = repo_and_owner(repo_id)
    vis = facts_of(repo, owner).vis if repo is not None else None
    for doc in list(issue_index_store.docs_of_repo(repo_id)):
        if only_if_moved and doc.vis == vis:
            continue
        index_issue(repo_id, int(doc.number), int(doc.sk), place=(repo, owner))


def index_new_issues(repo_id: int) -> int:
    """Index every issue of a repository (the CLI's reindex); returns how many."""
    repo, owner = repo_and_owner(repo_id)
    if repo is None:
        return 0
    count = 0
    for issue in issues.query_all_issues(repo_id, "oc", "ip"):
        index_issue(repo_id, int(issue.number), place=(repo, owner))
        count += 1
    return count


def index_imported_issues(repo_id: int, after: int, actor_id: int) -> int:
    """Index the issues of a migrated repository numbered above ``after``, a page of
    them, and queue the next page when there is more (in the migrating user's name,
    ``actor_id``); how many were indexed."""
    repo, owner = repo_and_owner(repo_id)
    if repo is None:
        return 0
    numbers = issues.imported_numbers_after(repo_id, after, IMPORTED_PAGE)
    for number in numbers:
        index_issue(repo_id, number, place=(repo, owner))
    if len(numbers) == IMPORTED_PAGE:
        with unit_of_work.writing() as uow:
            uow.raise_event(events.ImportedIssuesIndexDue(
                actor_id=int(actor_id), repo_id=int(repo_id), after=numbers[-1]))
    return len(numbers)
