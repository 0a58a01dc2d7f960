"""Renames' rules, on the in-memory twin (the fast layer): a rename moves every repository
of the owner and its id link, a move never drops a change that landed after its read
(the race a version check alone would lose), a repository created under the old name
after the rename committed fails instead of hiding under it, and names a rename leaves
behind lead to the account until someone else claims them."""
from __future__ import annotations

import pytest

from chalicelib import accounts, repos
from chalicelib.errors import ConflictError, InvalidInput, NotFoundError
from chalicelib.repos import owners, store
from chalicelib.store import unit_of_work
from tests import memory_scene as scene


def test_a_rename_moves_every_repository_and_its_id_link(memory):
    alice = scene.user("alice")
    made = [scene.repo(alice, f"r{n}").repo for n in range(owners.MOVES_PER_COMMIT + 2)]
    repos.rename_owner(None, scene.fresh(alice), "alicia")
    for repo in made:
        moved = store.get("alicia", repo.name)
        assert moved is not None and moved.owner_login == "alicia" and moved.id == repo.id
        assert store.get("alice", repo.name) is None
        assert store.get_by_id(int(repo.id)).pk == moved.pk        # the id link followed
    assert owners.move_owned(scene.fresh(alice)) == 0               # nothing left to move


def test_a_move_keeps_a_count_that_changed_after_its_read(memory, monkeypatch):
    """Another domain's counter (a release, as the releases domain keeps it) lands
    between the move's read of the owner's repositories and its commit: it moves
    without ``version``, so only the whole-item condition catches it; the move reads the
    repository again and keeps the count."""
    alice = scene.user("alice")
    scene.repo(alice, "proj")
    read = store.owned_by

    def read_then_count(owner_id):
        stale = read(owner_id)
        with unit_of_work.writing():        # after the read, before the move
            store.stage_counts(stale[0], {"num_releases": 1}, label="release")
        return stale

    monkeypatch.setattr(store, "owned_by", read_then_count)
    repos.rename_owner(None, scene.fresh(alice), "alicia")
    moved = store.get("alicia", "proj")
    assert moved is not None and int(moved.num_releases) == 1


def test_a_repository_created_under_the_old_name_after_the_rename_fails(memory):
    alice = scene.user("alice")
    stale = scene.fresh(alice)                         # read before the rename
    accounts.rename_account(None, scene.fresh(alice), "alicia")
    with pytest.raises((ConflictError, NotFoundError, InvalidInput)):
        scene.repo(stale, "late")
    assert store.get("alice", "late") is None and store.get("alicia", "late") is None


def test_an_old_name_leads_to_the_account_until_claimed(memory):
    alice = scene.user("alice")
    accounts.rename_account(None, alice, "alicia")
    assert accounts.renamed_account("ALICE").login == "alicia"
    assert accounts.renamed_account("alicia") is None          # a live name: no redirect
    accounts.rename_account(None, scene.fresh(alice), "ally")   # renamed again
    assert accounts.renamed_account("alice").login == "ally"   # the chain ends at the account
    assert accounts.renamed_account("alicia").login == "ally"
    scene.user("alice", email="second@example.com")
    assert accounts.renamed_account("alice") is None           # someone holds it now
    with pytest.raises(InvalidInput):
        accounts.rename_account(None, scene.fresh(alice), "alice")


def test_private_accounts_old_names_lead_anonymous_callers_nowhere(memory):
    hidden = scene.user("hidden", visibility="private")
    viewer = scene.user("viewer")
    accounts.rename_account(None, hidden, "secret")
    assert accounts.renamed_account("hidden") is None
    assert accounts.renamed_account("hidden", viewer).login == "secret"


def test_only_a_site_admin_renames_a_user(memory):
    from chalicelib.errors import PermissionDenied

    alice, bob = scene.user("alice"), scene.user("bob")
    with pytest.raises(PermissionDenied):
        accounts.rename_account(bob, alice, "alicia")
    assert accounts.renamed_account("alice") is None and scene.fresh(alice).login == "alice"
    root = scene.user("root", admin=True)
    assert accounts.rename_account(root, scene.fresh(alice), "alicia") == "alice"
