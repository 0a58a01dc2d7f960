"""A repository's rename, on the in-memory twin (the fast layer): who may rename, the
names Forgejo refuses, a name the owner has (in any case), a change of case, mirrors and
archived repositories, a rename together with other fields, the event and the search
index, and the redirects a rename leaves: keyed by the owner's id (so they outlive the
owner's rename), removed by whatever puts a repository at that address (creation, fork,
transfer, rename), chains that lead to the repository in one hop, a deleted repository
leading nowhere, records of the first layout never breaking a read, and renames racing
for one name (exactly one wins)."""
from __future__ import annotations

import threading

import pytest

from chalicelib import events, repo_admin, repos, search
from chalicelib.errors import ConflictError, InvalidInput, PermissionDenied
from chalicelib.repo_admin import renames, service, transfer_store, transfers
from chalicelib.repo_admin.lifecycle_options import TransferRepoOption
from chalicelib.repo_admin.models import RepoRedirect, keys
from chalicelib.repo_admin.options import CreateForkOption
from chalicelib.repos import access
from chalicelib.repos.options import AddCollaboratorOption
from chalicelib.store import unit_of_work
from tests import memory_scene as scene
from tests.conftest import drain_outbox

pytestmark = pytest.mark.fast


@pytest.fixture
def people(memory):
    return {"alice": scene.user("alice"), "bob": scene.user("bob"),
            "root": scene.user("root", admin=True)}


def stored(view):
    return repos.repo_by_id(int(view.repo.id))


def seen_by(account, view):
    return repos.view_of(stored(view), scene.caller(scene.fresh(account)))


def edit(account, view, **fields):
    return service.edit_repo(scene.caller(scene.fresh(account)), seen_by(account, view),
                             repo_admin.EditRepoOption(**fields))


def found(caller, keyword):
    views, _ = search.search_repos(caller, repos.SearchQuery(keyword=keyword), 0, 50)
    return [f"{v.owner.login}/{v.repo.name}" for v in views]


def test_a_rename_moves_the_repository_and_leaves_a_redirect(people):
    alice = people["alice"]
    view = scene.repo(alice, "proj", auto_init=True)
    drain_outbox()
    after = edit(alice, view, name="renamed")
    assert (after.repo.name, after.repo.id, after.owner.login) == ("renamed", view.repo.id, "alice")
    assert repos.repo_by_name("alice", "proj") is None
    now = repos.repo_by_name("alice", "RENAMED")
    assert int(now.id) == int(view.repo.id) and now.name == "renamed"
    assert [r.name for r in repos.repos_owned_by(int(alice.id))] == ["renamed"]
    assert scene.fresh(alice).num_repos == 1
    assert transfer_store.moved_to("alice", "proj", None) == ("alice", "renamed")
    assert transfer_store.moved_to("alice", "Proj.git", None) == ("alice", "renamed")
    assert transfer_store.moved_to("alice", "renamed", None) is None      # lives there
    edited = [e for e in drain_outbox() if isinstance(e, events.RepositoryEdited)]
    assert [e.changes for e in edited] == [(("name", "proj"),)]
    assert edited[0].repo["name"] == "renamed"
    for event in edited:        # what the search consumer does with it
        search.on_event(event)
    assert found(scene.caller(None), "renamed") == ["alice/renamed"]
    assert found(scene.caller(None), "proj") == []


def test_only_repository_admins_rename(people):
    alice, bob = people["alice"], people["bob"]
    view = scene.repo(alice, "proj")
    access.add_collaborator(alice, view, "bob", AddCollaboratorOption(permission="write"))
    with pytest.raises(PermissionDenied, match="owner or a collaborator with admin"):
        edit(bob, view, name="bobs")
    assert stored(view).name == "proj"
    access.add_collaborator(alice, view, "bob", AddCollaboratorOption(permission="admin"))
    assert edit(bob, view, name="bobs").repo.name == "bobs"


@pytest.mark.parametrize("name, message", [
    ("", r"^\[Name\]: Required$"), ("x" * 101, r"^\[Name\]: MaxSize$"),
    ("my repo", r"^\[Name\]: AlphaDashDot$"), ("..", r"^name is reserved \[name: \.\.\]$"),
    ("proj.git", r"^name pattern is not allowed \[pattern: \*\.git\]$"),
])
def test_names_forgejo_refuses_change_nothing(people, name, message):
    alice = people["alice"]
    view = scene.repo(alice, "proj")
    with pytest.raises(InvalidInput, match=message):
        edit(alice, view, name=name, description="not this either")
    assert (stored(view).name, stored(view).description) == ("proj", "")
    assert transfer_store.moved_to("alice", "proj", None) is None


def test_a_name_the_owner_has_is_refused_and_a_change_of_case_is_not(people):
    alice, bob = people["alice"], people["bob"]
    scene.repo(alice, "taken")
    scene.repo(bob, "free")
    view = scene.repo(alice, "proj")
    for name in ("taken", "TAKEN"):
        with pytest.raises(InvalidInput, match=rf"^repo name is already taken \[name: {name}\]$"):
            edit(alice, view, name=name)
    assert stored(view).name == "proj" and repos.repo_by_name("alice", "taken").name == "taken"
    assert edit(alice, view, name="free").repo.name == "free"     # another owner's name
    recased = edit(alice, view, name="FREE")
    assert recased.repo.name == "FREE" and repos.repo_by_name("alice", "free").name == "FREE"
    assert transfer_store.moved_to("alice", "free", None) is None      # it lives there
    assert edit(alice, view, name="FREE").repo.name == "FREE"          # the same: nothing


def test_mirrors_and_archived_repositories_may_be_renamed(people):
    alice = people["alice"]
    mirror = scene.repo(alice, "mirror")
    with unit_of_work.writing():        # as a migration with ``mirror`` leaves it
        repos.stage_repo_fields(stored(mirror), {"mirror": True})
    assert edit(alice, mirror, name="mirror2").repo.mirror is True
    archived = scene.repo(alice, "old")
    edit(alice, archived, archived=True)
    after = edit(alice, archived, name="older")
    assert (after.repo.name, stored(archived).archived) == ("older", True)


def test_a_rename_with_other_fields_writes_both_or_nothing(people):
    alice = people["alice"]
    view = scene.repo(alice, "proj")
    with pytest.raises(InvalidInput, match="default_merge_style"):
        edit(alice, view, name="other", default_merge_style="octopus")
    with pytest.raises(InvalidInput):
        edit(alice, view, name="other", website="javascript:alert(1)")
    assert stored(view).name == "proj" and repos.repo_by_name("alice", "other") is None
    drain_outbox()
    after = edit(alice, view, name="other", description="moved", private=True)
    assert (after.repo.name, after.repo.description, after.repo.private) == \
        ("other", "moved", True)
    now = stored(view)
    assert (now.name, now.description, now.private) == ("other", "moved", True)
    changes = [e.changes for e in drain_outbox() if isinstance(e, events.RepositoryEdited)]
    assert changes[0] == (("name", "proj"),)
    assert dict(changes[1]) == {"description": "", "private": False}


def test_chains_lead_to_the_repository_in_one_hop_and_a_rename_back_clears(people):
    alice = people["alice"]
    view = scene.repo(alice, "a")
    edit(alice, view, name="b")
    edit(alice, view, name="c")
    assert transfer_store.moved_to("alice", "a", None) == ("alice", "c")
    assert transfer_store.moved_to("alice", "b", None) == ("alice", "c")
    edit(alice, view, name="a")
    assert transfer_store.moved_to("alice", "a", None) is None
    assert transfer_store.moved_to("alice", "b", None) == ("alice", "a")
    assert transfer_store.moved_to("alice", "c", None) == ("alice", "a")


def test_the_redirect_outlives_the_owners_rename(people):
    alice = people["alice"]
    view = scene.repo(alice, "proj")
    edit(alice, view, name="renamed")
    repos.rename_owner(None, scene.fresh(alice), "alicia")
    assert transfer_store.moved_to("alicia", "proj", None) == ("alicia", "renamed")
    # The old owner name names nobody now: the gateway leads it to alicia first.
    assert transfer_store.moved_to("alice", "proj", None) is None
    again = edit(alice, view, name="third")
    assert (again.owner.login, again.repo.name) == ("alicia", "third")
    assert transfer_store.moved_to("alicia", "proj", None) == ("alicia", "third")
    assert transfer_store.moved_to("alicia", "renamed", None) == ("alicia", "third")


def test_a_repository_put_at_an_old_address_removes_its_redirect(people):
    alice, bob, root = people["alice"], people["bob"], people["root"]
    view = scene.repo(alice, "proj")
    edit(alice, view, name="moved")
    created = scene.repo(alice, "proj")                              # a creation
    assert transfer_store.moved_to("alice", "proj", None) is None
    service.delete_repo(scene.caller(alice), seen_by(alice, created))
    assert transfer_store.moved_to("alice", "proj", None) is None    # does not come back
    edit(alice, view, name="proj")
    edit(alice, view, name="moved")
    other = scene.repo(alice, "other")
    service.fork_repo(scene.caller(scene.fresh(alice)), seen_by(alice, other),
                      CreateForkOption(name="proj"))                 # a fork
    assert transfer_store.moved_to("alice", "proj", None) is None
    given = scene.repo(bob, "gift")
    mine = scene.repo(alice, "keep")
    edit(alice, mine, name="kept")
    transfers.start(scene.caller(root), seen_by(root, given),         # a transfer
                    TransferRepoOption(new_owner="alice"))
    edit(alice, given, name="keep")                                   # a rename
    assert transfer_store.moved_to("alice", "keep", None) is None
    assert transfer_store.moved_to("bob", "gift", None) == ("alice", "keep")


def test_a_redirect_to_a_deleted_repository_leads_nowhere(people):
    alice = people["alice"]
    view = scene.repo(alice, "proj")
    edit(alice, view, name="gone")
    service.delete_repo(scene.caller(alice), seen_by(alice, view))
    assert transfer_store.moved_to("alice", "proj", None) is None
    assert transfer_store.moved_to("alice", "gone", None) is None


def test_records_of_the_first_layout_or_naming_nothing_break_no_read(people):
    alice = people["alice"]
    view = scene.repo(alice, "proj")
    numbered = scene.user("123")
    with unit_of_work.writing() as uow:
        # The first layout: by the owner's name (here one that looks like an id).
        uow.put(RepoRedirect("REPOREDIRECT#alice/ghost", "REDIRECT",
                             repo_id=int(view.repo.id), created=1))
        uow.put(RepoRedirect(f"REPOREDIRECT#{int(alice.id)}/ghost", "REDIRECT",
                             repo_id=int(view.repo.id), created=1))
        uow.put(RepoRedirect("REPOREDIRECT#123/ghost", "REDIRECT",
                             repo_id=int(view.repo.id), created=1))
        uow.put(RepoRedirect(*keys.repo_redirect(int(alice.id), "zero"), repo_id=0, created=1))
    assert transfer_store.moved_to("alice", "ghost", None) is None
    assert transfer_store.moved_to("123", "ghost", None) is None
    assert transfer_store.moved_to("alice", "zero", None) is None
    assert transfer_store.moved_to(numbered.login, "proj", None) is None
    assert transfer_store.moved_to("nobody", "proj", None) is None


def test_two_renames_racing_for_one_name_one_wins(people):
    """Both passed the check that the name is free; the commit decides."""
    alice = people["alice"]
    one, two = scene.repo(alice, "one"), scene.repo(alice, "two")
    first, second = seen_by(alice, one), seen_by(alice, two)       # both read before
    renames.check_new_name(first, "same")
    renames.check_new_name(second, "same")
    renames.rename(alice, first, "same")
    with pytest.raises(InvalidInput, match=r"repo name is already taken \[name: Same\]"):
        renames.rename(alice, second, "Same")
    assert int(repos.repo_by_name("alice", "same").id) == int(one.repo.id)
    assert stored(two).name == "two" and scene.fresh(alice).num_repos == 2
    assert transfer_store.moved_to("alice", "two", None) is None


def test_one_repository_renamed_twice_at_once_moves_once(people):
    alice = people["alice"]
    view = scene.repo(alice, "proj")
    first, second = seen_by(alice, view), seen_by(alice, view)
    renames.rename(alice, first, "left")
    with pytest.raises(ConflictError, match="changed while it was being renamed"):
        renames.rename(alice, second, "right")
    assert stored(view).name == "left" and repos.repo_by_name("alice", "right") is None
    assert transfer_store.moved_to("alice", "right", None) is None


def test_concurrent_renames_in_threads_leave_one_holder_of_the_name(people):
    alice = people["alice"]
    made = [scene.repo(alice, f"r{n}") for n in range(3)]
    views = [seen_by(alice, view) for view in made]
    outcomes, barrier = [], threading.Barrier(len(views))

    def run(seen):
        barrier.wait()
        try:
            renames.rename(alice, seen, "winner")
            outcomes.append("renamed")
        except InvalidInput:
            outcomes.append("taken")

    threads = [threading.Thread(target=run, args=(seen,)) for seen in views]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) == ["renamed", "taken", "taken"]
    names = sorted(stored(view).name for view in made)
    assert names.count("winner") == 1 and len(set(names)) == 3
    assert scene.fresh(alice).num_repos == 3
