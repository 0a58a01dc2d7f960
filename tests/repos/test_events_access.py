"""The events each write of repository access and webhook configuration emits.

Collaborators, stars, watches, deploy keys and webhooks: every API write is one commit
with its event in the outbox; a request that changes nothing (or fails) emits none.
"""
import pytest

from chalicelib import events
from tests.conftest import drain_outbox
from tests.accounts.test_users import ssh_key

HOOK = {"type": "gitea", "config": {"url": "https://ci.example.com/hook",
                                    "content_type": "json", "secret": "s3cret-value"}}


@pytest.fixture
def scene(api):
    """alice owns alice/open and the organization acme; bob and carol own nothing."""
    tokens = {}
    for name in ("alice", "bob", "carol"):
        api.create_user(name)
        tokens[name] = api.create_token(name)
    assert api.post("/user/repos", token=tokens["alice"], json={"name": "open"}).status == 201
    assert api.post("/orgs", token=tokens["alice"], json={"username": "acme"}).status == 201
    ids = {name: api.get(f"/users/{name}", token=tokens["alice"]).json["id"]
           for name in ("alice", "bob", "carol")}
    ids["acme"] = api.get("/orgs/acme", token=tokens["alice"]).json["id"]
    ids["open"] = api.get("/repos/alice/open", token=tokens["alice"]).json["id"]
    drain_outbox()
    return tokens, ids


def one(kind: type) -> events.Event:
    found = drain_outbox()
    assert [type(e) for e in found] == [kind], found
    return found[0]


def none_emitted() -> None:
    assert drain_outbox() == []


def assert_about(event, actor: str, actor_id: int, repo_id: int) -> None:
    assert event.event_id and event.occurred_at
    assert (event.actor_id, event.actor["login"]) == (actor_id, actor)
    assert "password_hash" not in event.actor
    assert (event.repo_id, event.repo["id"], event.repo["name"]) == (repo_id, repo_id, "open")


def collab(user: str) -> str:
    return f"/repos/alice/open/collaborators/{user}"


def test_collaborator_events(api, scene):
    tokens, ids = scene
    alice = tokens["alice"]

    assert api.put(collab("bob"), token=alice).status == 204
    added = one(events.CollaboratorChanged)
    assert_about(added, "alice", ids["alice"], ids["open"])
    assert (added.action, added.user_id, added.permission) == ("added", ids["bob"], "write")

    # Re-adding without a permission, or with the one held, changes nothing.
    assert api.put(collab("bob"), token=alice).status == 204
    assert api.put(collab("bob"), token=alice, json={"permission": "write"}).status == 204
    none_emitted()

    assert api.put(collab("bob"), token=alice, json={"permission": "admin"}).status == 204
    edited = one(events.CollaboratorChanged)
    assert (edited.action, edited.user_id, edited.permission) == ("edited", ids["bob"], "admin")

    # An admin collaborator acts: the event names them.
    assert api.put(collab("carol"), token=tokens["bob"],
                   json={"permission": "read"}).status == 204
    by_bob = one(events.CollaboratorChanged)
    assert_about(by_bob, "bob", ids["bob"], ids["open"])
    assert (by_bob.action, by_bob.user_id, by_bob.permission) == ("added", ids["carol"], "read")

    assert api.delete(collab("bob"), token=alice).status == 204
    removed = one(events.CollaboratorChanged)
    assert (removed.action, removed.user_id, removed.permission) == ("removed", ids["bob"],
                                                                      "admin")
    assert api.delete(collab("bob"), token=alice).status == 204
    # Refused writes emit nothing.
    assert api.put(collab("alice"), token=alice).status == 422
    assert api.put(collab("bob"), token=alice, json={"permission": "owner"}).status == 422
    assert api.put(collab("carol"), token=tokens["carol"]).status == 403
    none_emitted()


@pytest.mark.parametrize("kind, path, counter", [
    ("star", "/user/starred/alice/open", "stars_count"),
    ("watch", "/repos/alice/open/subscription", "watchers_count"),
])
def test_star_and_watch_events(api, scene, kind, path, counter):
    tokens, ids = scene
    bob = tokens["bob"]

    assert api.put(path, token=bob).status in (200, 204)
    added = one(events.RepoAccessChanged)
    assert_about(added, "bob", ids["bob"], ids["open"])
    assert (added.kind, added.action, added.subject_id) == (kind, "added", ids["bob"])
    assert api.put(path, token=bob).status in (200, 204)
    none_emitted()
    assert api.get("/repos/alice/open").json[counter] == 1

    assert api.delete(path, token=bob).status == 204
    removed = one(events.RepoAccessChanged)
    assert_about(removed, "bob", ids["bob"], ids["open"])
    assert (removed.kind, removed.action, removed.subject_id) == (kind, "removed", ids["bob"])
    assert api.delete(path, token=bob).status == 204
    none_emitted()
    assert api.get("/repos/alice/open").json[counter] == 0


def test_deploy_key_events(api, scene):
    tokens, ids = scene
    alice = tokens["alice"]
    url = "/repos/alice/open/keys"
    line = ssh_key()

    created = api.post(url, token=alice, json={"title": "ci", "key": line})
    assert created.status == 201
    added = one(events.RepoAccessChanged)
    assert_about(added, "alice", ids["alice"], ids["open"])
    assert (added.kind, added.action, added.subject_id) == ("deploy_key", "added",
                                                            created.json["id"])

    assert api.post(url, token=alice, json={"title": "ci", "key": ssh_key()}).status == 422
    assert api.post(url, token=alice, json={"title": "again", "key": line}).status == 422
    none_emitted()

    assert api.delete(f"{url}/{created.json['id']}", token=alice).status == 204
    removed = one(events.RepoAccessChanged)
    assert_about(removed, "alice", ids["alice"], ids["open"])
    assert (removed.kind, removed.action, removed.subject_id) == ("deploy_key", "removed",
                                                                  created.json["id"])
    assert api.delete(f"{url}/{created.json['id']}", token=alice).status == 204
    none_emitted()


@pytest.mark.parametrize("base, owner_kind, owner", [
    ("/repos/alice/open/hooks", "repo", "open"),
    ("/orgs/acme/hooks", "org", "acme"),
])
def test_hook_events(api, scene, base, owner_kind, owner):
    tokens, ids = scene
    alice = tokens["alice"]

    created = api.post(base, token=alice, json=HOOK)
    assert created.status == 201
    hook_id = created.json["id"]
    event = one(events.HookChanged)
    assert (event.actor_id, event.actor["login"]) == (ids["alice"], "alice")
    assert (event.owner_kind, event.owner_id, event.hook_id, event.action) == (
        owner_kind, ids[owner], hook_id, "created")
    assert "s3cret-value" not in repr(events.to_message(event))

    assert api.patch(f"{base}/{hook_id}", token=alice, json={"active": True}).status == 200
    event = one(events.HookChanged)
    assert (event.hook_id, event.action) == (hook_id, "edited")

    # Refused writes emit nothing.
    assert api.post(base, token=alice, json={"type": "nope", "config": {}}).status == 422
    assert api.patch(f"{base}/{hook_id}", token=alice,
                     json={"events": ["nothing"]}).status == 422
    assert api.post(base, token=tokens["bob"], json=HOOK).status in (403, 404)
    none_emitted()

    assert api.delete(f"{base}/{hook_id}", token=alice).status == 204
    event = one(events.HookChanged)
    assert (event.owner_kind, event.hook_id, event.action) == (owner_kind, hook_id, "deleted")
    assert api.delete(f"{base}/{hook_id}", token=alice).status == 404
    none_emitted()
