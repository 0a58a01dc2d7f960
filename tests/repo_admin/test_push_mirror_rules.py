"""Push mirrors' rules, on the in-memory twin (the fast layer): who may see and change
them, Forgejo's checks of a new mirror (interval, protocol, ssh, the network policy),
the feature switched off, credentials stored encrypted and never answered, the
schedule (only due entries read; deleted mirrors and repositories leave none), the
on-commit count, and which refs a sync pushes and prunes."""
from __future__ import annotations

import json

import pytest

from chalicelib import repo_admin, repos
from chalicelib.errors import (
    ArchivedRepository,
    BadInput,
    NotFoundError,
    PermissionDenied,
)
from chalicelib.repo_admin import (
    push_mirror_store,
    push_mirror_sync,
    push_mirrors,
    secrets,
)
from chalicelib.repo_admin.models import PushMirrorDue
from chalicelib.repo_admin.push_mirrors import CreatePushMirrorOption
from chalicelib.store.table import Item
from tests import memory_scene as scene
from tests.conftest import drain_outbox
from tests.environment import settings_env

LOCAL = {"NIMBUS__MIGRATIONS__ALLOW_LOCALNETWORKS": "true"}
URL = "http://127.0.0.1:9/target.git"


@pytest.fixture
def shared(memory):
    people, view = scene.shared_repo("proj", writers=("bob",), readers=("carol",))
    return people, view


def as_(people, who, view):
    return repos.view_of(repos.repo_by_id(int(view.repo.id)), scene.caller(people[who]))


def add(view, **fields):
    option = CreatePushMirrorOption(**{"remote_address": URL, "interval": "8h", **fields})
    with settings_env(LOCAL):
        return push_mirrors.add_mirror(view, option)


def test_admins_only(shared):
    people, view = shared
    item = add(view)
    for who in ("bob", "carol"):
        with pytest.raises(PermissionDenied):
            push_mirrors.list_mirrors(as_(people, who, view))
        with pytest.raises(PermissionDenied):
            add(as_(people, who, view))
    assert [push_mirror_store.remote_name_of(m)
            for m in push_mirrors.list_mirrors(view)] == [push_mirror_store.remote_name_of(item)]


@pytest.mark.parametrize("fields, message", [
    ({"interval": ""}, 'time: invalid duration ""'),
    ({"interval": "5m"}, "below Minimum Interval"),
    ({"interval": "soon"}, "invalid duration"),
    ({"remote_address": "ssh://git@example.com/x.git"}, "Invalid mirror protocol"),
    ({"remote_address": "file:///etc"}, "Invalid mirror protocol"),
    ({"remote_address": ""}, "Required"),
    ({"use_ssh": True}, "SSH authentication not available."),
    ({"use_ssh": True, "remote_username": "u"}, "mutually exclusive"),
])
def test_forgejo_refuses_with_400(shared, fields, message):
    _, view = shared
    with pytest.raises(BadInput, match=message):
        add(view, **fields)
    assert push_mirrors.list_mirrors(view) == []


def test_loopback_is_refused_without_the_allowance(shared):
    _, view = shared
    with pytest.raises(BadInput, match="disallowed hosts"):
        push_mirrors.add_mirror(view, CreatePushMirrorOption(remote_address=URL,
                                                             remote_password="pw-123456",
                                                             interval="0"))
    assert push_mirrors.list_mirrors(view) == []


def test_feature_switches(shared):
    _, view = shared
    add(view)
    with settings_env({"NIMBUS__MIRROR__ENABLED": "false"}), \
            pytest.raises(BadInput, match="Mirror feature is disabled"):
        push_mirrors.list_mirrors(view)
    with settings_env({"NIMBUS__MIRROR__DISABLE_NEW_PUSH": "true"}):
        with pytest.raises(BadInput, match="disabled"):
            add(view)
        assert len(push_mirrors.list_mirrors(view)) == 1     # the existing one stays


def test_archived_repositories_take_no_new_mirror(shared):
    _, view = shared
    view.repo.archived = True
    with pytest.raises(ArchivedRepository):
        add(view)


def test_credentials_are_encrypted_and_never_answered(shared):
    from chalicelib.repo_admin import push_mirror_records

    _, view = shared
    item = add(view, remote_address=URL.replace("http://", "http://who:p%40ss-word@"))
    stored = push_mirror_store.get_mirror(int(view.repo.id), push_mirror_store.remote_name_of(item))
    assert stored.remote_address == URL
    # Sealed: neither part in the clear ('"who"' with its quotes: three base64 letters may
    # spell "who" by chance, but base64 has no quote and no "@").
    assert "p@ss-word" not in stored.credentials and '"who"' not in stored.credentials
    assert secrets.unseal(stored.credentials) == ("who", "p@ss-word")
    record = push_mirror_records.push_mirror(stored, "proj")
    assert "p@ss" not in json.dumps(record) and record["remote_address"] == URL
    assert record["last_update"] is None and record["interval"] == "8h0m0s"
    # Given apart, the fields win over the userinfo.
    other = add(view, remote_address=URL.replace("http://", "http://x:y@"),
                remote_username="u", remote_password="v")
    assert secrets.unseal(other.credentials) == ("u", "v")
    with pytest.raises(Exception, match="cannot be decrypted"):
        secrets.unseal(stored.credentials[:-4] + "AAAA")


def test_the_schedule_holds_only_mirrors_with_an_interval_and_reads_only_due_ones(shared):
    _, view = shared
    timed = add(view, interval="10m")
    add(view, interval="0", sync_on_commit=True)
    entries = push_mirror_store.due_entries(timed.due)
    assert [(e.repo_id, e.remote_name) for e in entries] == \
        [(int(view.repo.id), push_mirror_store.remote_name_of(timed))]
    assert push_mirror_store.due_entries(timed.due - 1) == []
    # A sync moves the entry one interval on.
    with settings_env(LOCAL):
        push_mirror_sync.sync_mirror(view.repo, timed)      # nothing listens: an error
    assert timed.last_error and timed.due >= timed.last_update + 600
    assert push_mirror_store.due_entries(timed.due - 1) == []
    assert len(push_mirror_store.due_entries(timed.due)) == 1


def test_on_commit_count_follows_the_mirrors(shared):
    _, view = shared
    on_commit = add(view, interval="0", sync_on_commit=True)
    add(view, interval="0", sync_on_commit=False)
    assert repos.repo_by_id(int(view.repo.id)).push_mirrors_on_commit == 1
    push_mirrors.delete_mirror(view, push_mirror_store.remote_name_of(on_commit))
    assert repos.repo_by_id(int(view.repo.id)).push_mirrors_on_commit == 0
    with pytest.raises(NotFoundError):
        push_mirrors.get_mirror(view, push_mirror_store.remote_name_of(on_commit))


@pytest.mark.usefixtures("immediate_deletion")   # what deleting removes at once
def test_deleting_the_repository_drops_its_schedule_entries(shared):
    people, view = shared
    timed = add(view, interval="10m")
    drain_outbox()
    repo_admin.delete_repo(scene.caller(people["alice"]), view)
    for event in drain_outbox():
        if type(event).__name__ == "RepositoryDeleted":
            repo_admin.on_repository_deleted(event)
    assert push_mirror_store.due_entries(timed.due + 10**6) == []
    assert not [i for i in Item.query(f"R#{int(view.repo.id)}") if i.sk.startswith("PUSHMIRROR#")]


def test_a_stale_schedule_entry_is_dropped_by_the_job(shared):
    _, view = shared
    timed = add(view, interval="10m")
    entry = push_mirror_store.due_entries(timed.due)[0]
    push_mirrors.delete_mirror(view, push_mirror_store.remote_name_of(timed))
    assert push_mirror_store.due_entries(timed.due) == []
    # An entry left behind (its mirror gone) is dropped by the job, which pushes nothing.
    from chalicelib.store import unit_of_work

    with unit_of_work.writing():
        unit_of_work.current().put(PushMirrorDue(
            "PUSHMIRRORS", f"{entry.due:012d}#{entry.repo_id:015d}#{entry.remote_name}",
            repo_pk=entry.repo_pk))
    assert push_mirror_sync.sync_due(timed.due) == 0
    assert push_mirror_store.due_entries(timed.due) == []


def test_which_refs_a_sync_pushes_and_prunes():
    sha, other = b"1" * 40, b"2" * 40
    local = {b"refs/heads/main": sha, b"refs/heads/feature/x": sha, b"refs/tags/v1": sha,
             b"refs/notes/commits": sha, b"HEAD": sha}
    remote = {b"refs/heads/main": other, b"refs/heads/gone": other, b"refs/tags/old": other,
              b"refs/tags/old^{}": other, b"refs/pull/1/head": other}
    assert push_mirror_sync.wanted_refs(local, remote, []) == {
        b"refs/heads/main": sha, b"refs/heads/feature/x": sha, b"refs/tags/v1": sha,
        b"refs/heads/gone": b"0" * 40, b"refs/tags/old": b"0" * 40}
    filtered = push_mirror_sync.wanted_refs(local, remote,
                                            push_mirror_sync.branch_patterns(" main , x "))
    assert filtered == {b"refs/heads/main": sha, b"refs/tags/v1": sha,
                        b"refs/tags/old": b"0" * 40}


def test_through_the_api_strangers_see_404_and_read_tokens_403(fast_api):
    api = fast_api
    tokens = {name: (api.create_user(name), api.create_token(name))[1] for name in ("alice", "eve")}
    read_only = api.create_token("alice", scopes=("read:repository",), name="ro")
    assert api.post("/user/repos", token=tokens["alice"],
                    json={"name": "hidden", "private": True}).status == 201
    path = "/repos/alice/hidden/push_mirrors"
    assert api.get(path, token=tokens["eve"]).status == 404
    assert api.get(path, token=read_only).status == 200
    body = {"remote_address": "https://example.com/x.git", "interval": "0"}
    assert api.post(path, token=read_only, json=body).status == 403
    assert api.post(path, token=tokens["eve"], json=body).status == 404
    assert api.post(path, token=tokens["alice"], json={**body, "interval": 5}).status == 422
    r = api.post(path, token=tokens["alice"], json={**body, "interval": "1m"})
    assert r.status == 400 and "Minimum Interval" in r.json["message"]
    assert api.get(path, token=tokens["alice"]).json == []
