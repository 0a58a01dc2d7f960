"""Keeping the search index current: the consumer of the events that change what a
search finds (``jobs/consumers.py`` registers it as ``search-index``).

Each event names repositories to index again; indexing reads the repository as it is
now (strongly consistent) and writes its entries (``index_store.stage_index``), so
events that arrive late, twice or out of order all end in the current state.  A
rename or a change of an owner's visibility indexes the owner's repositories again
(bounded by that owner's repositories).  A migrated repository's issues (written
while nobody could see them, with no event each) are indexed once it exists, a page
per event (``issue_indexing.index_imported_issues``).
"""
from __future__ import annotations

from chalicelib import events, repos
from chalicelib.search import account_index, entry_store, index_store, issue_indexing
from chalicelib.search.repo_search import facts_of
from chalicelib.store import unit_of_work

EVENT_TYPES = (events.RepositoryCreated, events.RepositoryForked, events.RepositoryMigrated,
               events.RepositoryEdited, events.RepositoryPushed, events.RepositoryMirrorSynced,
               events.RepositoryDeleted, events.AccountRenamed, events.UserEdited,
               events.OrganizationChanged, events.IssueChanged, events.IssueCommentChanged,
               events.PullReviewChanged, events.ReviewRequestChanged, events.LabelChanged,
               events.RepositoryTopicsChanged, events.UserCreated, events.UserDeleted,
               events.ImportedIssuesIndexDue, events.RepositoryRestored)
# The repository events after which its issues may be found by other people (or none).
REPO_VISIBILITY = (events.RepositoryEdited, events.RepositoryDeleted, events.RepositoryRestored)


def wants_event(event: events.Event) -> bool:
    if isinstance(event, events.RepositoryPushed):
        # New commits on a branch move the repository's update time and size; a tag or
        # a deleted branch is left to the next such push (tags must cost next to
        # nothing: jobs/consumers.py).
        return event.ref.startswith("refs/heads/") and event.after != "0" * len(event.after)
    return True


def _owner_visibility_changed(event: events.Event) -> bool:
    if isinstance(event, events.UserEdited):
        return "visibility" in event.changed
    if isinstance(event, events.OrganizationChanged):
        return event.action == "edited" and any(
            name == "visibility" for name, _ in event.changes)
    return isinstance(event, events.AccountRenamed)


def _on_issue_event(event: events.Event) -> None:
    if isinstance(event, events.LabelChanged):
        # A label or milestone renamed or deleted: the issues carrying it are listed
        # under its old name (bounded by the repository's issues).
        if event.action in ("edited", "deleted"):
            issue_indexing.index_repo_issues(int(event.repo_id), only_if_moved=False)
        return
    issue_indexing.index_issue(int(event.repo_id), int(event.number), int(event.issue_id))


def on_event(event: events.Event) -> None:
    if isinstance(event, (events.IssueChanged, events.IssueCommentChanged,
                          events.PullReviewChanged, events.ReviewRequestChanged,
                          events.LabelChanged)):
        _on_issue_event(event)
        return
    if isinstance(event, events.ImportedIssuesIndexDue):
        issue_indexing.index_imported_issues(int(event.repo_id), int(event.after),
                                             int(event.actor_id))
        return
    if isinstance(event, (events.UserCreated, events.UserDeleted)):
        account_index.index_account(int(event.user_id))
        return
    if isinstance(event, events.AccountRenamed):
        owner_id = int(event.account_id)
    elif isinstance(event, events.UserEdited):
        owner_id = int(event.user_id)
    elif isinstance(event, events.OrganizationChanged):
        owner_id = int(event.org_id)
    else:
        index_repo(int(event.repo_id))
        if isinstance(event, events.RepositoryMigrated) and not event.mirror:
            issue_indexing.index_imported_issues(int(event.repo_id), 0, int(event.actor_id))
        if isinstance(event, REPO_VISIBILITY):
            issue_indexing.index_repo_issues(int(event.repo_id))
        return
    account_index.index_account(owner_id)
    if not _owner_visibility_changed(event):
        return
    for repo in repos.repos_owned_by(owner_id):
        index_repo(int(repo.id))
        issue_indexing.index_repo_issues(int(repo.id))


def index_repo(repo_id: int) -> None:
    """Bring one repository's entries to what it is now (or remove them if it is
    gone), retrying when another indexing of it committed first."""
    def index_once() -> None:
        repo, owner = issue_indexing.repo_and_owner(repo_id)
        with unit_of_work.writing():
            doc = index_store.doc_of(repo_id)
            if repo is None:
                if doc is not None:
                    index_store.stage_remove(repo_id, doc)
            else:
                index_store.stage_index(facts_of(repo, owner), doc)

    entry_store.until_current(index_store.DOC, index_once, f"repository {repo_id}")
