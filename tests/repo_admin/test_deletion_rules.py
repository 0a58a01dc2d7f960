"""Restorable deletion's rules, on the in-memory twin (the fast layer): what a deletion
with a retention leaves (name free, nothing finds it, its data and quota kept), who may
list and restore deleted repositories (the owner's admins and site admins; 403 for a
list, 404 for a restore to anyone else), the 404 and 409 answers, a restore under a new
name, forks and parents put back, two restores at once (one wins), the purge (due only,
exactly once, against a restore) and a retention of 0 (deleted at once, as before)."""
from __future__ import annotations

import threading

import pytest

from chalicelib import clock, events, quota, repo_admin, repos
from chalicelib.errors import ConflictError, NotFoundError, PermissionDenied
from chalicelib.orgs import teams
from chalicelib.orgs.options import CreateTeamOption
from chalicelib.repo_admin import deleted_purge, deletion, service
from chalicelib.repo_admin.options import CreateForkOption
from tests import memory_scene as scene
from tests.conftest import drain_outbox, search_kept_current
from tests.environment import settings_env

DAY = 86400


@pytest.fixture
def people(memory):
    with settings_env({"NIMBUS__REPOSITORY__DELETED_RETENTION_DAYS": "7"}):
        yield {"alice": scene.user("alice"), "bob": scene.user("bob"),
               "root": scene.user("root", admin=True)}


def usage(account) -> int:
    from chalicelib.quota import store as quota_store
    return quota_store.get_usage(int(account.id), consistent=True).counts["repos_public"]


def stored(repo_id):
    return repos.repo_by_id(int(repo_id))


def delete(account, view) -> int:
    service.delete_repo(scene.caller(account), repos.view_of(stored(view.repo.id),
                                                            scene.caller(account)))
    return int(view.repo.id)


def listed(account, owner=None) -> list[int]:
    return [int(item.record.repo_id)
            for item in deletion.list_deleted(scene.caller(account), owner)[0]]


def restore(account, repo_id, name=None):
    return deletion.restore(scene.caller(account), repo_id, name)


def run_consumers() -> list:
    """The cleanup consumer on every waiting event, as the worker would; the events."""
    found = drain_outbox()
    for event in found:
        if isinstance(event, (events.RepositoryDeleted, events.RepositoryPurged)):
            repo_admin.on_repository_deleted(event)
    return found


def test_a_deletion_frees_the_name_and_keeps_everything_keyed_by_the_id(people):
    alice = people["alice"]
    view = scene.repo(alice, "proj", auto_init=True)
    pool = repos.pool_by_id(int(view.repo.pool_id))
    before = scene.fresh(alice).num_repos
    repo_id = delete(alice, view)
    found = run_consumers()
    deleted = [e for e in found if isinstance(e, events.RepositoryDeleted)]
    assert len(deleted) == 1 and deleted[0].restorable
    assert deleted[0].purge_at == pytest.approx(clock.now() + 7 * DAY, abs=5)
    assert repos.repo_by_name("alice", "proj") is None and stored(repo_id) is None
    assert scene.fresh(alice).num_repos == before - 1
    # Its pool keeps it as a member (compaction keeps its objects), its refs stay.
    assert repos.pool_by_id(int(view.repo.pool_id)).repo_ids == pool.repo_ids
    from chalicelib.gitstore import refdb
    assert "refs/heads/main" in refdb.load_refs(repo_id)
    assert listed(alice, "alice") == [repo_id]
    # The name is free: a new repository takes it, with another id.
    again = scene.repo(alice, "proj")
    assert int(again.repo.id) != repo_id


def test_who_may_list_and_restore(people):
    alice, bob, root = people["alice"], people["bob"], people["root"]
    org = scene.org(alice, "acme")
    member = scene.user("member")
    team = teams.create_team(alice, org, CreateTeamOption(
        name="devs", permission="write", units=["repo.code"]))
    teams.add_team_member(alice, team, member)
    mine = delete(alice, scene.repo(alice, "mine"))
    theirs = delete(alice, scene.repo(org, "theirs"))
    assert listed(alice, "alice") == [mine] and listed(alice, "acme") == [theirs]
    assert listed(root, "alice") == [mine]
    assert sorted(listed(root)) == sorted([mine, theirs])      # site admins: everyone's
    for stranger, owner in ((bob, "alice"), (member, "acme"), (bob, None), (alice, None)):
        with pytest.raises(PermissionDenied):
            listed(stranger, owner)
    with pytest.raises(NotFoundError):
        listed(alice, "nobody")
    for stranger, repo_id in ((bob, mine), (member, theirs), (bob, theirs)):
        with pytest.raises(NotFoundError):
            restore(stranger, repo_id)
    assert restore(alice, theirs).repo.name == "theirs"       # an owner of the organization
    assert restore(root, mine).repo.owner_login == "alice"    # a site admin


def test_a_restore_brings_the_same_repository_back_once(people):
    alice = people["alice"]
    view = scene.repo(alice, "proj", auto_init=True, private=True, description="kept")
    repo_id = delete(alice, view)
    back = restore(alice, repo_id)
    assert (back.repo.id, back.repo.name, back.repo.private, back.repo.description) == \
        (repo_id, "proj", True, "kept")
    again = stored(repo_id)
    assert again.pk == view.repo.pk and int(again.version) == int(view.repo.version) + 1
    assert scene.fresh(alice).num_repos == 1 and listed(alice, "alice") == []
    with pytest.raises(NotFoundError):
        restore(alice, repo_id)                                 # a second restore
    with pytest.raises(NotFoundError):
        restore(alice, 999999)                                  # never deleted
    restored = [e for e in run_consumers() if isinstance(e, events.RepositoryRestored)]
    assert len(restored) == 1 and restored[0].repo["name"] == "proj"


def test_a_taken_name_is_409_and_a_new_name_restores(people):
    alice = people["alice"]
    repo_id = delete(alice, scene.repo(alice, "proj", auto_init=True))
    scene.repo(alice, "Proj")                                    # same name, another case
    with pytest.raises(ConflictError, match="^The repository with the same name already exists.$"):
        restore(alice, repo_id)
    assert listed(alice, "alice") == [repo_id]                  # nothing written
    back = restore(alice, repo_id, "proj-again")
    assert back.repo.name == "proj-again" and int(back.repo.id) == repo_id
    assert repos.repo_by_name("alice", "proj-again").id == repo_id


def test_forks_and_parent_come_back_as_they_were(people):
    alice, bob = people["alice"], people["bob"]
    parent = scene.repo(alice, "proj", auto_init=True)
    middle = service.fork_repo(scene.caller(bob), repos.view_of(stored(parent.repo.id),
                               scene.caller(bob)), CreateForkOption())
    child = service.fork_repo(scene.caller(alice), repos.view_of(stored(middle.repo.id),
                              scene.caller(alice)), CreateForkOption(name="child"))
    middle_id = delete(bob, middle)
    assert stored(parent.repo.id).num_forks == 0
    assert not stored(child.repo.id).fork                        # made independent
    back = restore(bob, middle_id)
    assert back.repo.fork and int(back.repo.parent_id) == int(parent.repo.id)
    assert stored(parent.repo.id).num_forks == 1
    assert [int(r.id) for r in repos.forks_of(stored(parent.repo.id))] == [middle_id]
    again = stored(child.repo.id)
    assert again.fork and int(again.parent_id) == middle_id
    assert stored(middle_id).num_forks == 1
    assert [int(r.id) for r in repos.forks_of(stored(middle_id))] == [int(child.repo.id)]


def test_a_parent_gone_meanwhile_restores_it_independent(people):
    alice, bob = people["alice"], people["bob"]
    parent = scene.repo(alice, "proj", auto_init=True)
    forked = service.fork_repo(scene.caller(bob), repos.view_of(stored(parent.repo.id),
                               scene.caller(bob)), CreateForkOption())
    fork_id = delete(bob, forked)
    delete(alice, parent)
    back = restore(bob, fork_id)
    assert not back.repo.fork and int(back.repo.parent_id) == 0


def test_two_restores_at_once_one_wins(people):
    alice = people["alice"]
    repo_id = delete(alice, scene.repo(alice, "proj", auto_init=True))
    barrier, results = threading.Barrier(2), []
    real = repos.stage_reveal_repo

    def together(*args, **kwargs):
        barrier.wait(timeout=5)             # both have read the record
        return real(*args, **kwargs)

    def one():
        try:
            results.append(restore(alice, repo_id).repo.id)
        except (NotFoundError, ConflictError) as exc:
            results.append(type(exc).__name__)

    from unittest import mock
    with mock.patch.object(deletion.repos, "stage_reveal_repo", together, create=True):
        threads = [threading.Thread(target=one) for _ in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert sorted(map(str, results)) == sorted([str(repo_id), "NotFoundError"])
    assert scene.fresh(alice).num_repos == 1


def test_the_purge_takes_what_is_due_once_and_frees_the_quota(people):
    alice = people["alice"]
    early = scene.repo(alice, "early", auto_init=True)
    charged = int(stored(early.repo.id).quota_size)
    used = usage(alice)
    assert charged > 0
    early_id = delete(alice, early)
    run_consumers()
    assert usage(alice) == used                                     # counts until purged
    assert quota.recount() == []                                    # and is no drift
    with clock.driven_by(clock.Frozen(clock.now() + 3 * DAY)):
        late_id = delete(alice, scene.repo(alice, "late", auto_init=True))
    assert deleted_purge.purge_due(clock.now() + 6 * DAY) == 0      # nothing due yet
    assert deleted_purge.purge_due(clock.now() + 8 * DAY) == 1
    assert listed(alice, "alice") == [late_id]
    with pytest.raises(NotFoundError):
        restore(alice, early_id)
    purged = [e for e in run_consumers() if isinstance(e, events.RepositoryPurged)]
    assert [e.repo_id for e in purged] == [early_id]
    from chalicelib.gitstore import refdb
    assert refdb.load_refs(early_id) == {}
    assert repos.pool_by_id(int(early.repo.pool_id)) is None        # nobody used it
    assert deleted_purge.purge_due(clock.now() + 8 * DAY) == 0      # done: nothing twice
    late_charge = int(repos.deleted_repo_stored(repos.deleted_repo(late_id)).quota_size)
    assert usage(alice) == used - charged + late_charge
    assert quota.recount() == []


def test_a_restore_and_a_purge_at_once_one_wins(people):
    alice = people["alice"]
    repo_id = delete(alice, scene.repo(alice, "proj", auto_init=True))
    record = repos.deleted_repo(repo_id)
    back = restore(alice, repo_id)                  # the restore commits first
    assert deleted_purge.purge_one(record) is False  # the purge read it before: refused
    assert stored(repo_id) is not None and int(back.repo.id) == repo_id
    assert repos.pool_by_id(int(back.repo.pool_id)).members == 1
    repo_id = delete(alice, back)
    record = repos.deleted_repo(repo_id)
    assert deleted_purge.purge_one(record) is True
    with pytest.raises(NotFoundError):
        restore(alice, repo_id)                     # the purge committed first


def test_past_its_purge_time_it_is_gone_even_before_the_purge_runs(people):
    alice = people["alice"]
    repo_id = delete(alice, scene.repo(alice, "proj"))
    with clock.driven_by(clock.Frozen(clock.now() + 8 * DAY)):
        assert listed(alice, "alice") == []
        with pytest.raises(NotFoundError):
            restore(alice, repo_id)


def test_retention_0_deletes_at_once(memory):
    with settings_env({"NIMBUS__REPOSITORY__DELETED_RETENTION_DAYS": "0"}):
        alice = scene.user("alice")
        view = scene.repo(alice, "proj", auto_init=True)
        repo_id = delete(alice, view)
        deleted = [e for e in run_consumers() if isinstance(e, events.RepositoryDeleted)]
        assert [e.restorable for e in deleted] == [False]
        assert listed(alice, "alice") == []
        assert repos.pool_by_id(int(view.repo.pool_id)) is None
        with pytest.raises(NotFoundError):
            restore(alice, repo_id)


def test_the_api_answers_with_forgejo_s_shapes(fast_api):
    api = fast_api
    with settings_env({"NIMBUS__REPOSITORY__DELETED_RETENTION_DAYS": "7"}), \
            search_kept_current():
        api.create_user("alice")
        token = api.create_token("alice")
        reader = api.create_token("alice", scopes=("read:repository",), name="reader")
        made = api.post("/user/repos", token=token, json={"name": "proj"})
        assert made.status == 201, made
        repo_id = made.json["id"]
        assert [r["id"] for r in api.get("/repos/search?q=proj").json["data"]] == [repo_id]
        assert api.delete("/repos/alice/proj", token=token).status == 204
        assert api.get("/repos/search?q=proj").json["data"] == []       # the index forgot it
        assert api.get("/repos/deleted?owner=alice").status == 401          # signed in only
        listed = api.get("/repos/deleted?owner=alice", token=reader)
        assert listed.status == 200 and listed.headers["x-total-count"] == "1"
        record = listed.json[0]
        assert set(record) == {"id", "owner", "name", "full_name", "private", "deleted_at",
                               "purge_at", "deleted_by", "size"}
        assert isinstance(record["size"], int) and record["full_name"] == "alice/proj"
        restore_path = f"/repos/deleted/{repo_id}/restore"
        assert api.post(restore_path, token=reader).status == 403          # write:repository
        for name, text in (("bad name", "[Name]: AlphaDashDot"), ("x" * 101, "")):
            refused = api.post(restore_path, token=token, json={"name": name})
            assert refused.status == 422 and text in refused.json["message"], refused
        assert api.post("/repos/deleted/junk/restore", token=token).status == 404
        back = api.post(restore_path, token=token)                        # no body at all
        assert back.status == 201 and back.json["full_name"] == "alice/proj"
        assert api.get("/repos/alice/proj", token=token).json["id"] == repo_id
        assert [r["id"] for r in api.get("/repos/search?q=proj").json["data"]] == [repo_id]


def test_a_page_of_the_list_reads_the_index_only_that_far(people, monkeypatch):
    """Pages of three, newest deletion first; a page asks the index for itself and one
    more (whether another page follows), however many deletions the owner has."""
    alice = people["alice"]
    made = []
    for n in range(7):
        made.append(delete(alice, scene.repo(alice, f"gone{n}")))
    asked: list[int] = []
    real = repos.deleted_repos_of

    def counting(owner_id, *, page_size):
        asked.append(page_size)
        return real(owner_id, page_size=page_size)

    monkeypatch.setattr(repos, "deleted_repos_of", counting)
    caller = scene.caller(alice)
    first, total = deletion.list_deleted(caller, "alice", offset=0, limit=3)
    assert len(first) == 3 and total == 4 and asked == [4]
    second, total = deletion.list_deleted(caller, "alice", offset=3, limit=3)
    last, end = deletion.list_deleted(caller, "alice", offset=6, limit=3)
    assert (total, end, asked[1:]) == (7, 7, [7, 10])
    ids = [int(item.record.repo_id) for item in first + second + last]
    assert sorted(ids) == sorted(made) and len(set(ids)) == 7
