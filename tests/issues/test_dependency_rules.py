"""Issue dependency rules on the in-memory twin (the fast layer): who may change an edge,
refusals, the edge's two items, the race of two opposite edges, and the close rule.
Through the API: tests/issues/test_dependencies.py."""
from __future__ import annotations

import pytest

from chalicelib import issues, repos
from chalicelib.errors import ConflictError, DependenciesLeft, InvalidInput, NotFoundError
from chalicelib.issues import dependencies, dependency_store, service
from chalicelib.issues.options import EditIssueOption, IssueMeta
from tests import memory_scene as scene


class Trackers:
    """alice's public ``proj`` (bob writes, carol reads) and private ``vault``; dan is
    a stranger.  ``ctx(name, repo)`` is a tracker as a request of ``name`` sees it."""

    def __init__(self):
        self.people, self.view = scene.shared_repo("proj", others=("dan",))
        self.vault = scene.repo(self.people["alice"], "vault", private=True)

    def ctx(self, name: str, repo: str = "proj"):
        caller = scene.caller(self.people[name])
        view = self.view if repo == "proj" else self.vault
        return issues.issue_context(caller, repos.view_of(view.repo, caller))


@pytest.fixture
def trackers(memory):
    found = Trackers()
    for title in ("one", "two", "three"):
        service.create_issue(found.ctx("alice"), issues.CreateIssueOption(title=title))
    service.create_issue(found.ctx("alice", "vault"), issues.CreateIssueOption(title="v"))
    return found


def meta(index: int, repo: str = "proj") -> IssueMeta:
    return IssueMeta(owner="alice", repo=repo, index=index)


def listed(ctx, number: int, *, of_dependencies: bool = True) -> list[tuple[str, int]]:
    found = dependencies.listed(ctx, number, dependencies=of_dependencies, offset=0, limit=50)
    return [(side.ctx.repo.name, int(side.issue.number)) for side in found]


def test_an_edge_is_two_items_and_goes_from_either_side(trackers):
    bob = trackers.ctx("bob")
    assert int(dependencies.add(bob, 1, meta(2), path_blocked=True).number) == 1
    repo_id = int(trackers.view.repo.id)
    issue_two = service.get_issue(bob, 2)
    assert [int(e.other_number) for e in dependency_store.edges("DEP", repo_id, 1)] == [2]
    assert [int(e.other_number) for e in dependency_store.edges("BLK", repo_id, 2)] == [1]
    assert dependency_store.exists(service.get_issue(bob, 1), issue_two)
    assert listed(bob, 2, of_dependencies=False) == [("proj", 1)]
    dependencies.remove(trackers.ctx("bob"), 2, meta(1), path_blocked=False)
    assert dependency_store.edges("DEP", repo_id, 1) == []
    assert dependency_store.edges("BLK", repo_id, 2) == []


def test_who_may_change_an_edge(trackers):
    for name in ("carol", "dan"):      # a reader, a stranger: the blocked side is hidden
        with pytest.raises(NotFoundError):
            dependencies.add(trackers.ctx(name), 1, meta(2), path_blocked=True)
    with pytest.raises(NotFoundError):   # bob cannot see the private blocker
        dependencies.add(trackers.ctx("bob"), 1, meta(1, "vault"), path_blocked=True)
    with pytest.raises(NotFoundError):   # nor make it block anything
        dependencies.add(trackers.ctx("bob"), 1, meta(1, "vault"), path_blocked=False)
    # alice writes proj and reads vault: across repositories.
    dependencies.add(trackers.ctx("alice"), 1, meta(1, "vault"), path_blocked=True)
    assert listed(trackers.ctx("alice"), 1) == [("vault", 1)]
    assert listed(trackers.ctx("bob"), 1) == []       # hidden from who cannot read it


def test_self_duplicate_and_circular_are_refused(trackers):
    alice = trackers.ctx("alice")
    with pytest.raises(InvalidInput):
        dependencies.add(alice, 1, meta(1), path_blocked=True)
    dependencies.add(alice, 1, meta(2), path_blocked=True)
    with pytest.raises(ConflictError, match="already exist"):
        dependencies.add(trackers.ctx("alice"), 2, meta(1), path_blocked=False)
    with pytest.raises(ConflictError, match="circular"):
        dependencies.add(trackers.ctx("alice"), 2, meta(1), path_blocked=True)


def test_cross_repository_dependencies_can_be_switched_off(trackers):
    from chalicelib.errors import BadInput
    from chalicelib.settings import overridden

    with overridden({"NIMBUS__SERVICE__ALLOW_CROSS_REPOSITORY_DEPENDENCIES": "false"}):
        with pytest.raises(BadInput):
            dependencies.add(trackers.ctx("alice"), 1, meta(1, "vault"), path_blocked=True)
        dependencies.add(trackers.ctx("alice"), 1, meta(2), path_blocked=True)   # same repo


def test_two_opposite_edges_at_once_at_most_one_lands(trackers, monkeypatch):
    """Both requests read before either writes (no edge yet either way); the reverse
    check in each transaction lets only the first commit."""
    monkeypatch.setattr(dependency_store, "exists", lambda *a, **k: False)
    dependencies.add(trackers.ctx("alice"), 1, meta(2), path_blocked=True)
    with pytest.raises(ConflictError, match="circular"):
        dependencies.add(trackers.ctx("bob"), 2, meta(1), path_blocked=True)
    with pytest.raises(ConflictError, match="already exist"):   # and no duplicate either
        dependencies.add(trackers.ctx("bob"), 2, meta(1), path_blocked=False)
    repo_id = int(trackers.view.repo.id)
    assert len(dependency_store.edges("DEP", repo_id, 1)) == 1
    assert dependency_store.edges("DEP", repo_id, 2) == []


def test_an_issue_with_open_dependencies_does_not_close(trackers):
    dependencies.add(trackers.ctx("alice"), 1, meta(2), path_blocked=True)
    with pytest.raises(DependenciesLeft):
        service.edit_issue(trackers.ctx("bob"), 1, EditIssueOption(state="closed", title="x"))
    issue = service.get_issue(trackers.ctx("alice"), 1)
    assert issue.is_open and issue.title == "one"
    service.edit_issue(trackers.ctx("bob"), 2, EditIssueOption(state="closed"))
    service.edit_issue(trackers.ctx("bob"), 1, EditIssueOption(state="closed"))
    assert not service.get_issue(trackers.ctx("alice"), 1, consistent=True).is_open


def test_a_deleted_issue_leaves_the_lists_and_the_close_rule(trackers):
    dependencies.add(trackers.ctx("alice"), 1, meta(2), path_blocked=True)
    service.delete_issue(trackers.ctx("alice"), 2)
    assert listed(trackers.ctx("alice"), 1) == []
    service.edit_issue(trackers.ctx("alice"), 1, EditIssueOption(state="closed"))
