"""The events each repository write emits (lifecycle, pushes, branches and tags, mirrors),
driven through the API and read back from the outbox."""
from __future__ import annotations

import io
import time

import pytest

from chalicelib import events
from tests.conftest import ADMIN, drain_outbox
from tests.repo_admin.test_migrations import git, local_networks_allowed, remote  # noqa: F401 - fixtures

ZERO = "0" * 40


@pytest.fixture
def alice(api):
    api.create_user("alice")
    token = api.create_token("alice")
    drain_outbox()
    return token


def create(api, token, name, **options):
    r = api.post("/user/repos", token=token, json={"name": name, **options})
    assert r.status == 201, r
    return r.json


def kinds(found):
    return [type(e).__name__ for e in found]


def only(found, kind):
    matching = [e for e in found if isinstance(e, kind)]
    assert len(matching) == 1, kinds(found)
    return matching[0]


# Pushing through the smart HTTP route, with a pack built in-process -----------------------

def make_commit(parent: str | None, files: dict[str, bytes], message: str):
    from dulwich.objects import Blob, Commit, Tree

    tree, objects = Tree(), []
    for path, content in files.items():
        blob = Blob.from_string(content)
        tree.add(path.encode(), 0o100644, blob.id)
        objects.append(blob)
    commit = Commit()
    commit.tree = tree.id
    commit.parents = [parent.encode()] if parent else []
    commit.author = commit.committer = b"Alice <alice@example.com>"
    commit.author_time = commit.commit_time = int(time.time())
    commit.author_timezone = commit.commit_timezone = 0
    commit.message = message.encode()
    return commit, [*objects, tree, commit]


def push(api, token, repo: str, updates: list[tuple[str, str, str]], objects=(), *,
         owner: str = "alice"):
    """POST git-receive-pack with ``(old, new, ref)`` commands; the report's lines."""
    from dulwich.object_format import get_object_format
    from dulwich.pack import write_pack_objects
    from dulwich.protocol import pkt_line

    body = b""
    for i, (old, new, ref) in enumerate(updates):
        caps = b"\x00report-status delete-refs" if i == 0 else b""
        body += pkt_line(f"{old} {new} {ref}".encode() + caps + b"\n")
    body += b"0000"
    if any(new != ZERO for _, new, _ in updates):
        pack = io.BytesIO()
        write_pack_objects(pack.write, [(o, None) for o in objects], get_object_format("sha1"))
        body += pack.getvalue()
    r = api.post(f"/{owner}/{repo}.git/git-receive-pack", body=body, token=token, raw=True,
                 headers={"Content-Type": "application/x-git-receive-pack-request"})
    assert r.status == 200, r
    return r.body.decode("utf-8", "replace")


def head_of(api, repo: str, branch: str = "main") -> str:
    return api.get(f"/repos/alice/{repo}/branches/{branch}").json["commit"]["id"]


# Lifecycle --------------------------------------------------------------------------------

def test_create_emits_repository_created(api, alice):
    repo = create(api, alice, "plain", description="d")
    created = only(drain_outbox(), events.RepositoryCreated)
    assert created.repo_id == repo["id"] and created.actor["login"] == "alice"
    assert created.actor_id == repo["owner"]["id"]
    assert created.repo["name"] == "plain" and created.repo["description"] == "d"
    assert "mirror_auth" not in created.repo and "password_hash" not in created.actor


def test_create_with_auto_init_emits_created_then_the_initial_push(api, alice):
    repo = create(api, alice, "init", auto_init=True)
    found = drain_outbox()
    assert kinds(found) == ["RepositoryCreated", "RefCreated", "RepositoryPushed"]
    ref, pushed = found[1], found[2]
    assert (ref.ref, ref.ref_type) == ("main", "branch")
    assert pushed.ref == "refs/heads/main" and pushed.before == ZERO
    assert pushed.after == ref.sha == head_of(api, "init")
    assert pushed.total_commits == 1 and pushed.commits[0].message == "Initial commit\n"
    assert pushed.repo["empty"] is False and pushed.repo_id == repo["id"]


def test_admin_create_names_the_admin_as_actor(api, alice):
    r = api.post("/admin/users/alice/repos", auth=ADMIN, json={"name": "by-admin"})
    created = only(drain_outbox(), events.RepositoryCreated)
    assert created.actor["login"] == "root" and created.repo["owner_login"] == "alice"
    assert created.repo_id == r.json["id"]


def test_refused_create_emits_nothing(api, alice):
    create(api, alice, "taken")
    drain_outbox()
    assert api.post("/user/repos", token=alice, json={"name": "TAKEN"}).status == 409
    assert api.post("/user/repos", token=alice, json={"name": "g", "auto_init": True,
                                                      "gitignores": "Nope"}).status == 422
    assert drain_outbox() == []


def test_edit_lists_changed_fields_with_previous_values(api, alice):
    create(api, alice, "edited", auto_init=True)
    drain_outbox()
    r = api.patch("/repos/alice/edited", token=alice,
                  json={"description": "new words", "private": True, "website": ""})
    assert r.status == 200
    edited = only(drain_outbox(), events.RepositoryEdited)
    assert dict(edited.changes) == {"description": "", "private": False}
    assert edited.repo["description"] == "new words" and edited.repo["private"] is True
    assert edited.actor["login"] == "alice"


def test_edit_of_default_branch_moves_head(api, alice):
    create(api, alice, "heads", auto_init=True)
    main = head_of(api, "heads")
    assert "ok refs/heads/dev" in push(api, alice, "heads", [(ZERO, main, "refs/heads/dev")])
    drain_outbox()
    assert api.patch("/repos/alice/heads", token=alice,
                     json={"default_branch": "dev"}).json["default_branch"] == "dev"
    edited = only(drain_outbox(), events.RepositoryEdited)
    assert dict(edited.changes) == {"default_branch": "main"}
    assert api.patch("/repos/alice/heads", token=alice,
                     json={"default_branch": "nope"}).status == 404
    assert drain_outbox() == []
    from chalicelib.gitstore import refdb
    repo_id = api.get("/repos/alice/heads").json["id"]
    assert refdb.load_refs(repo_id)["HEAD"].symref == "refs/heads/dev"


def test_fork_emits_forked_with_the_parent(api, alice):
    parent = create(api, alice, "upstream", auto_init=True)
    api.create_user("bob")
    bob = api.create_token("bob")
    drain_outbox()
    fork = api.post("/repos/alice/upstream/forks", token=bob, json={}).json
    forked = only(drain_outbox(), events.RepositoryForked)
    assert forked.repo_id == fork["id"] and forked.parent_id == parent["id"]
    assert forked.parent["name"] == "upstream" and forked.repo["owner_login"] == "bob"
    assert forked.actor["login"] == "bob" and forked.repo["fork"] is True
    assert api.post("/repos/alice/upstream/forks", token=bob, json={}).status == 409
    assert drain_outbox() == []


@pytest.mark.usefixtures("immediate_deletion")   # what deleting removes at once
def test_delete_carries_the_snapshot_and_its_consumer_cleans_up(api, alice):
    from chalicelib.gitstore import packdb, refdb
    from chalicelib.repo_admin import consumers as cleanup
    from chalicelib.contents import branch_store as branches
    from chalicelib.repos import store as repos

    repo = create(api, alice, "doomed", auto_init=True)
    drain_outbox()
    assert api.delete("/repos/alice/doomed", token=alice).status == 204
    deleted = only(drain_outbox(), events.RepositoryDeleted)
    assert deleted.repo_id == repo["id"] and deleted.repo["name"] == "doomed"
    assert deleted.repo["pool_id"] == repo["id"] and deleted.actor["login"] == "alice"
    # The records went with the request; refs, branch records and packs wait for the
    # consumer, which is idempotent.
    assert refdb.load_refs(repo["id"]) and packdb.list_packs(repo["id"])
    for _ in range(2):
        cleanup.on_repository_deleted(deleted)
    assert refdb.load_refs(repo["id"]) == {} and packdb.list_packs(repo["id"]) == {}
    assert branches.list_branches(repo["id"]) == [] and repos.get_pool(repo["id"]) is None


def test_deleting_a_parent_keeps_the_shared_pool_for_its_forks(api, alice):
    from chalicelib.gitstore import packdb
    from chalicelib.repo_admin import consumers as cleanup

    parent = create(api, alice, "root", auto_init=True)
    api.post("/repos/alice/root/forks", token=alice, json={"name": "child"})
    drain_outbox()
    assert api.delete("/repos/alice/root", token=alice).status == 204
    cleanup.on_repository_deleted(only(drain_outbox(), events.RepositoryDeleted))
    assert packdb.list_packs(parent["id"])
    assert api.get("/repos/alice/child/raw/README.md").body == b"# root\n"
    assert api.get("/repos/alice/child").json["fork"] is False


# Pushes -----------------------------------------------------------------------------------

def test_push_emits_per_ref_events_with_commits(api, alice):
    create(api, alice, "pushy", auto_init=True)
    main = head_of(api, "pushy")
    drain_outbox()
    second, objects = make_commit(main, {"a.txt": b"a\n"}, "second\n")
    report = push(api, alice, "pushy", [(main, second.id.decode(), "refs/heads/main"),
                                        (ZERO, second.id.decode(), "refs/heads/feature"),
                                        (ZERO, main, "refs/tags/v1")], objects)
    assert "ok refs/heads/main" in report and "ok refs/tags/v1" in report
    found = drain_outbox()
    pushed = {e.ref: e for e in found if isinstance(e, events.RepositoryPushed)}
    assert set(pushed) == {"refs/heads/main", "refs/heads/feature", "refs/tags/v1"}
    assert pushed["refs/heads/main"].before == main
    assert [c.message for c in pushed["refs/heads/main"].commits] == ["second\n"]
    assert pushed["refs/heads/main"].actor["login"] == "alice"
    created = {(e.ref, e.ref_type) for e in found if isinstance(e, events.RefCreated)}
    assert created == {("feature", "branch"), ("v1", "tag")}
    assert head_of(api, "pushy", "feature") == second.id.decode()

    report = push(api, alice, "pushy", [(second.id.decode(), ZERO, "refs/heads/feature")])
    assert "ok refs/heads/feature" in report
    found = drain_outbox()
    assert kinds(found) == ["RepositoryPushed", "RefDeleted"]
    assert found[1].ref == "feature" and found[1].sha == second.id.decode()
    assert api.get("/repos/alice/pushy/branches/feature").status == 404


def test_a_new_branch_counts_at_most_ten_commits_as_forgejo_does(api, alice):
    create(api, alice, "long")
    parent, objects = None, []
    for i in range(12):
        made, objs = make_commit(parent, {"n.txt": f"{i}\n".encode()}, f"commit {i}\n")
        parent, objects = made.id.decode(), objects + objs
    drain_outbox()
    assert "ok refs/heads/main" in push(api, alice, "long", [(ZERO, parent, "refs/heads/main")],
                                        objects)
    (pushed,) = [e for e in drain_outbox() if isinstance(e, events.RepositoryPushed)]
    assert pushed.total_commits == 10 and len(pushed.commits) == 10
    assert pushed.commits[0].message == "commit 11\n"


def test_stale_push_writes_nothing(api, alice):
    create(api, alice, "stale", auto_init=True)
    main = head_of(api, "stale")
    drain_outbox()
    commit, objects = make_commit(main, {"b.txt": b"b\n"}, "lost\n")
    report = push(api, alice, "stale", [(ZERO, commit.id.decode(), "refs/heads/main"),
                                        (ZERO, commit.id.decode(), "refs/heads/side")], objects)
    assert "ng refs/heads/" in report
    assert drain_outbox() == []
    assert head_of(api, "stale") == main
    assert api.get("/repos/alice/stale/branches/side").status == 404


def test_push_past_one_transaction_is_written_in_sequence(api, alice):
    """Thirty new branches are 30 refs, 30 branch records, the repository and 60 events:
    more than one transaction holds, so the documented sequence writes them."""
    create(api, alice, "wide", auto_init=True)
    main = head_of(api, "wide")
    drain_outbox()
    names = [f"refs/heads/b{i:02d}" for i in range(30)]
    report = push(api, alice, "wide", [(ZERO, main, name) for name in names])
    assert report.count("ok refs/heads/") == 30
    found = drain_outbox()
    assert len([e for e in found if isinstance(e, events.RepositoryPushed)]) == 30
    assert len([e for e in found if isinstance(e, events.RefCreated)]) == 30
    assert len(api.get("/repos/alice/wide/branches?limit=50").json) == 31


# Mirrors ----------------------------------------------------------------------------------

def test_migration_and_mirror_sync_events(api, alice, remote,  # noqa: F811 - fixtures
                                          local_networks_allowed):  # noqa: F811
    r = api.post("/repos/migrate", token=alice, json={
        "clone_addr": remote["url"], "repo_name": "mirror", "mirror": True,
        "mirror_interval": "10m"})
    assert r.status == 201, r
    migrated = only(drain_outbox(), events.RepositoryMigrated)
    assert migrated.mirror is True and migrated.repo_id == r.json["id"]
    assert migrated.repo["original_url"] == remote["url"] and "mirror_auth" not in migrated.repo
    assert migrated.repo["empty"] is False and migrated.actor["login"] == "alice"

    work = remote["work"]
    (work / "hello.txt").write_text("hello again\n")
    git("commit", "-q", "-am", "second", cwd=work)
    git("push", "-q", str(remote["bare"]), "main", cwd=work)
    git("push", "-q", str(remote["bare"]), "--delete", "dev", cwd=work)
    assert api.post("/repos/alice/mirror/mirror-sync", token=alice).status == 200
    found = drain_outbox()
    assert kinds(found)[-1] == "RepositoryMirrorSynced"
    pushed = {e.ref: e for e in found if isinstance(e, events.RepositoryPushed)}
    assert set(pushed) == {"refs/heads/main", "refs/heads/dev"}
    assert pushed["refs/heads/dev"].after == ZERO
    assert only(found, events.RefDeleted).ref == "dev"
    assert found[-1].repo["mirror_updated"] > 0

    assert api.post("/repos/alice/mirror/mirror-sync", token=alice).status == 200
    assert kinds(drain_outbox()) == ["RepositoryMirrorSynced"]


def test_failed_migration_emits_nothing(api, alice, remote,  # noqa: F811 - fixtures
                                        local_networks_allowed):  # noqa: F811
    r = api.post("/repos/migrate", token=alice, json={
        "clone_addr": remote["url"].replace("src.git", "missing.git"), "repo_name": "gone"})
    assert r.status == 422
    create(api, alice, "busy")
    drain_outbox()
    r = api.post("/repos/migrate", token=alice, json={
        "clone_addr": remote["url"], "repo_name": "busy"})
    assert r.status == 409
    assert drain_outbox() == []
