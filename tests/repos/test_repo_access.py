"""Collaborators, stars, watches and deploy keys through the API."""
from urllib.parse import quote

import pytest

from chalicelib.http import schemas
from tests.conftest import ADMIN
from tests.accounts.test_users import assert_matches_forgejo, ssh_key

NULLABLE_REPO = ("parent", "repo_transfer")


@pytest.fixture
def people(api):
    """alice owns a public and a private repository; bob and carol own nothing."""
    tokens = {}
    for name in ("alice", "bob", "carol"):
        api.create_user(name)
        tokens[name] = api.create_token(name)
    for repo, private in (("open", False), ("secret", True)):
        r = api.post("/user/repos", token=tokens["alice"],
                     json={"name": repo, "private": private, "auto_init": True})
        assert r.status == 201, r
    return tokens


def collab(owner_repo, user=""):
    return f"/repos/{owner_repo}/collaborators" + (f"/{user}" if user else "")


def test_collaborator_lifecycle(api, people):
    alice, bob = people["alice"], people["bob"]
    assert api.get(collab("alice/open")).status == 401
    assert api.get(collab("alice/secret"), token=bob).status == 404
    assert api.put(collab("alice/open", "bob"), token=bob).status == 403
    assert api.put(collab("alice/secret", "bob"), token=bob).status == 404

    assert api.put(collab("alice/secret", "bob"), token=alice).status == 204  # no body
    assert api.get(collab("alice/secret", "bob"), token=alice).status == 204
    assert api.get(collab("alice/secret", "carol"), token=alice).status == 404
    assert api.get(collab("alice/secret", "nobody"), token=alice).status == 422
    listed = api.get(collab("alice/secret"), token=bob)
    assert listed.status == 200 and listed.headers["x-total-count"] == "1"
    assert [u["login"] for u in listed.json] == ["bob"]
    assert_matches_forgejo(listed.json[0], "User")

    perm = api.get(collab("alice/secret", "bob") + "/permission", token=alice)
    assert perm.status == 200
    assert_matches_forgejo(perm.json, "RepoCollaboratorPermission")
    assert set(perm.json) == set(schemas.RECORDS["RepoCollaboratorPermission"])
    assert (perm.json["permission"], perm.json["role_name"]) == ("write", "write")
    assert perm.json["user"]["login"] == "bob"
    assert api.get(collab("alice/secret", "bob") + "/permission", token=bob).status == 200
    # Only admins of the repository may ask about others; unknown users are 404 here.
    assert api.get(collab("alice/secret", "alice") + "/permission", token=bob).status == 403
    assert api.get(collab("alice/secret", "nobody") + "/permission", token=alice).status == 404
    owner = api.get(collab("alice/secret", "alice") + "/permission", token=alice).json
    assert owner["permission"] == "owner"
    carol_perm = api.get(collab("alice/open", "carol") + "/permission", auth=ADMIN).json
    assert carol_perm["permission"] == "read"  # public repository

    assert api.delete(collab("alice/secret", "bob"), token=alice).status == 204
    assert api.delete(collab("alice/secret", "bob"), token=alice).status == 204  # idempotent
    assert api.get(collab("alice/secret", "bob"), token=alice).status == 404
    assert api.get("/repos/alice/secret", token=bob).status == 404


def test_collaborator_input_errors(api, people):
    alice = people["alice"]
    assert api.put(collab("alice/open", "nobody"), token=alice).status == 422
    assert api.delete(collab("alice/open", "nobody"), token=alice).status == 422
    assert api.put(collab("alice/open", "alice"), token=alice).status == 422  # the owner
    bad = api.put(collab("alice/open", "bob"), token=alice, json={"permission": "owner"})
    assert bad.status == 422
    assert api.get(collab("alice/open", "bob"), token=alice).status == 404


def test_collaborators_open_private_repository(api, people):
    alice, bob, carol = people["alice"], people["bob"], people["carol"]
    r = api.put(collab("alice/secret", "bob"), token=alice, json={"permission": "read"})
    assert r.status == 204
    seen = api.get("/repos/alice/secret", token=bob)
    assert seen.status == 200
    assert seen.json["permissions"] == {"admin": False, "push": False, "pull": True}
    raw = api.get("/repos/alice/secret/raw/README.md", token=bob)
    assert raw.status == 200 and raw.body == b"# secret\n"
    assert api.get("/repos/alice/secret", token=carol).status == 404
    assert api.get("/repos/alice/secret/raw/README.md", token=carol).status == 404
    # A read collaborator may not manage collaborators.
    assert api.put(collab("alice/secret", "carol"), token=bob).status == 403

    # Re-adding with a permission changes it; write shows as push.
    api.put(collab("alice/secret", "bob"), token=alice, json={"permission": "write"})
    assert api.get("/repos/alice/secret", token=bob).json["permissions"]["push"] is True
    # Re-adding without one leaves the mode alone, as in Forgejo.
    api.put(collab("alice/secret", "bob"), token=alice)
    perm = api.get(collab("alice/secret", "bob") + "/permission", token=bob).json
    assert perm["permission"] == "write"

    # An admin collaborator manages collaborators (and sees them all).
    api.put(collab("alice/secret", "bob"), token=alice, json={"permission": "admin"})
    assert api.get("/repos/alice/secret", token=bob).json["permissions"]["admin"] is True
    assert api.put(collab("alice/secret", "carol"), token=bob).status == 204
    assert api.get(collab("alice/secret", "carol") + "/permission",
                   token=bob).json["permission"] == "write"
    assert len(api.get(collab("alice/secret"), token=carol).json) == 2


def test_reverse_links_of_deleted_repository_are_skipped(api, people):
    from chalicelib.repos import access as repo_access
    from chalicelib.repos.views import Caller
    from chalicelib.store import unit_of_work
    from chalicelib.accounts import store as accounts

    alice, bob = people["alice"], people["bob"]
    for repo in ("open", "secret"):
        assert api.put(collab(f"alice/{repo}", "bob"), token=alice).status == 204
    assert api.delete("/repos/alice/open", token=alice).status == 204
    with unit_of_work.start():
        user = accounts.get_by_name("bob")
        views = repo_access.collaborating_on(Caller(user), user)
        assert [v.repo.name for v in views] == ["secret"]
    assert api.get("/repos/alice/secret", token=bob).status == 200


def star(owner_repo):
    return f"/user/starred/{owner_repo}"


def test_stars(api, people):
    alice, bob, carol = people["alice"], people["bob"], people["carol"]
    assert api.put(star("alice/open")).status == 401
    assert api.get(star("alice/open")).status == 401
    assert api.get("/user/starred").status == 401
    assert api.put(star("alice/secret"), token=bob).status == 404
    assert api.put(star("alice/nothing"), token=bob).status == 404

    assert api.get(star("alice/open"), token=bob).status == 404
    for _ in range(2):
        assert api.put(star("alice/open"), token=bob).status == 204
    assert api.put(star("alice/open"), token=carol).status == 204
    assert api.get("/repos/alice/open").json["stars_count"] == 2
    assert api.get(star("alice/open"), token=bob).status == 204

    gazers = api.get("/repos/alice/open/stargazers")
    assert gazers.status == 200 and gazers.headers["x-total-count"] == "2"
    assert [u["login"] for u in gazers.json] == ["bob", "carol"]
    assert_matches_forgejo(gazers.json[0], "User")
    assert api.get("/repos/alice/secret/stargazers", token=bob).status == 404

    mine = api.get("/user/starred", token=bob)
    assert mine.status == 200 and [r["full_name"] for r in mine.json] == ["alice/open"]
    assert_matches_forgejo(mine.json[0], "Repository", nullable=NULLABLE_REPO)
    assert mine.json[0]["stars_count"] == 2
    assert [r["name"] for r in api.get("/users/bob/starred", token=alice).json] == ["open"]
    assert api.get("/users/bob/starred").status == 401
    assert api.get("/users/nobody/starred", token=alice).status == 404

    # Someone else's list shows public repositories only; one's own shows all.
    assert api.put(star("alice/secret"), token=alice).status == 204
    assert [r["name"] for r in api.get("/user/starred", token=alice).json] == ["secret"]
    assert api.get("/users/alice/starred", token=bob).json == []

    for _ in range(2):
        assert api.delete(star("alice/open"), token=bob).status == 204
    assert api.get("/repos/alice/open").json["stars_count"] == 1
    assert api.get(star("alice/open"), token=bob).status == 404
    assert api.delete(star("alice/open"), token=carol).status == 204
    assert api.get("/repos/alice/open").json["stars_count"] == 0
    assert api.get("/repos/alice/open/stargazers").json == []


def test_starred_repository_deleted(api, people):
    alice, bob = people["alice"], people["bob"]
    api.put(star("alice/open"), token=bob)
    assert api.delete("/repos/alice/open", token=alice).status == 204
    mine = api.get("/user/starred", token=bob)
    assert mine.status == 200 and mine.json == []
    # A new repository with the old name is not the one that was starred.
    api.post("/user/repos", token=alice, json={"name": "open"})
    assert api.get("/user/starred", token=bob).json == []
    assert api.get(star("alice/open"), token=bob).status == 404


def test_star_with_scoped_tokens(api, people):
    read_only = api.create_token("bob", scopes=["read:repository", "read:user"], name="ro")
    assert api.get("/user/starred", token=read_only).status == 200
    assert api.put(star("alice/open"), token=read_only).status == 403
    repo_only = api.create_token("bob", scopes=["write:repository"], name="repo")
    assert api.put(star("alice/open"), token=repo_only).status == 403  # needs user too


def subscription(owner_repo):
    return f"/repos/{owner_repo}/subscription"


def test_watches(api, people):
    alice, bob = people["alice"], people["bob"]
    assert api.get(subscription("alice/open")).status == 401
    assert api.put(subscription("alice/open")).status == 401
    assert api.get("/user/subscriptions").status == 401
    assert api.put(subscription("alice/secret"), token=bob).status == 404
    assert api.get(subscription("alice/open"), token=bob).status == 404

    for _ in range(2):
        r = api.put(subscription("alice/open"), token=bob)
        assert r.status == 200
    info = r.json
    assert_matches_forgejo(info, "WatchInfo", nullable=("reason",))
    assert set(info) == set(schemas.RECORDS["WatchInfo"])
    assert info["subscribed"] is True and info["ignored"] is False and info["reason"] is None
    assert info["repository_url"] == "http://nimbus.test/api/v1/repos/alice/open"
    assert info["url"] == info["repository_url"] + "/subscription"
    repo = api.get("/repos/alice/open").json
    assert repo["watchers_count"] == 1 and info["created_at"] == repo["created_at"]
    assert api.get(subscription("alice/open"), token=bob).json == info

    watchers = api.get("/repos/alice/open/subscribers")
    assert watchers.headers["x-total-count"] == "1"
    assert [u["login"] for u in watchers.json] == ["bob"]
    mine = api.get("/user/subscriptions", token=bob)
    assert mine.status == 200 and [r["full_name"] for r in mine.json] == ["alice/open"]
    assert_matches_forgejo(mine.json[0], "Repository", nullable=NULLABLE_REPO)

    for _ in range(2):
        assert api.delete(subscription("alice/open"), token=bob).status == 204
    assert api.get("/repos/alice/open").json["watchers_count"] == 0
    assert api.get(subscription("alice/open"), token=bob).status == 404
    assert api.get("/user/subscriptions", token=bob).json == []
    assert api.get("/repos/alice/open/subscribers").json == []
    assert api.put(subscription("alice/secret"), token=alice).status == 200


def keys_of(owner_repo, key_id=None):
    return f"/repos/{owner_repo}/keys" + (f"/{key_id}" if key_id is not None else "")


def test_deploy_keys(api, people):
    alice, bob = people["alice"], people["bob"]
    line = ssh_key(comment="deploy@ci")
    assert api.get(keys_of("alice/open")).status == 401
    assert api.get(keys_of("alice/open"), token=bob).status == 403
    assert api.post(keys_of("alice/open"), token=bob,
                    json={"title": "ci", "key": line}).status == 403
    assert api.get(keys_of("alice/secret"), token=bob).status == 404

    r = api.post(keys_of("alice/open"), token=alice,
                 json={"title": "ci", "key": line, "read_only": True})
    assert r.status == 201, r
    created = r.json
    assert "repository" not in created  # Forgejo's creation answer has none
    assert created["key"] == " ".join(line.split()[:2]) and created["read_only"] is True
    assert created["key_id"] == created["id"] and created["fingerprint"].startswith("SHA256:")
    assert created["url"] == f"http://nimbus.test/api/v1/repos/alice/open/keys/{created['id']}"

    got = api.get(keys_of("alice/open", created["id"]), token=alice)
    assert got.status == 200
    assert_matches_forgejo(got.json, "DeployKey")
    assert set(got.json) == set(schemas.RECORDS["DeployKey"])
    assert got.json["repository"]["full_name"] == "alice/open"
    assert got.json["repository"]["permissions"]["push"] is False  # the key is read-only
    assert api.get(keys_of("alice/open", created["id"]), token=bob).status == 403
    assert api.get(keys_of("alice/open", 999999), token=alice).status == 404
    assert api.get(keys_of("alice/open", "abc"), token=alice).status == 422
    assert api.get(keys_of("alice/secret", created["id"]), token=alice).status == 404

    listed = api.get(keys_of("alice/open"), token=alice)
    assert listed.headers["x-total-count"] == "1" and listed.json[0]["id"] == created["id"]
    by_fingerprint = f"{keys_of('alice/open')}?fingerprint={quote(created['fingerprint'], safe='')}"
    assert len(api.get(by_fingerprint, token=alice).json) == 1
    assert api.get(keys_of("alice/open") + "?fingerprint=SHA256:x", token=alice).json == []
    assert api.get(keys_of("alice/open") + "?key_id=999999", token=alice).json == []

    # A repository admin who is not the owner sees no repository in the record.
    api.put(collab("alice/open", "bob"), token=alice, json={"permission": "admin"})
    as_admin = api.get(keys_of("alice/open"), token=bob)
    assert as_admin.status == 200 and "repository" not in as_admin.json[0]

    assert api.delete(keys_of("alice/open", created["id"]), token=alice).status == 204
    assert api.get(keys_of("alice/open", created["id"]), token=alice).status == 404
    assert api.delete(keys_of("alice/open", created["id"]), token=alice).status == 204
    # The fingerprint claim went with the key: the key may now open an account.
    assert api.post("/user/keys", token=bob, json={"title": "mine", "key": line}).status == 201


def test_deploy_key_errors_and_claims(api, people):
    alice, bob = people["alice"], people["bob"]
    url = keys_of("alice/open")
    assert api.post(url, token=alice, json={"title": "x", "key": "garbage"}).status == 422
    assert api.post(url, token=alice, json={"key": ssh_key()}).status == 422
    assert api.post(url, token=alice, json={"title": "x"}).status == 422

    line = ssh_key()
    assert api.post(url, token=alice, json={"title": "one", "key": line}).status == 201
    again = api.post(url, token=alice, json={"title": "two", "key": line})
    assert again.status == 422
    assert again.json["message"] == "This key has already been added to this repository"
    same_title = api.post(url, token=alice, json={"title": "one", "key": ssh_key()})
    assert same_title.status == 422
    assert same_title.json["message"] == "A key with the same name already exists"
    other = api.post(keys_of("alice/secret"), token=alice, json={"title": "one", "key": line})
    assert other.status == 422
    # One key, one account or repository: user keys and deploy keys share the claim.
    assert api.post("/user/keys", token=bob, json={"title": "k", "key": line}).status == 422
    users_key = ssh_key()
    assert api.post("/user/keys", token=bob, json={"title": "k", "key": users_key}).status == 201
    taken = api.post(url, token=alice, json={"title": "three", "key": users_key})
    assert taken.status == 422
    assert taken.json["message"] == "Key content has been used as non-deploy key"


def test_deploy_key_claim_of_deleted_repository_is_taken_over(api, people):
    alice = people["alice"]
    line = ssh_key()
    assert api.post(keys_of("alice/open"), token=alice,
                    json={"title": "ci", "key": line}).status == 201
    assert api.delete("/repos/alice/open", token=alice).status == 204
    r = api.post(keys_of("alice/secret"), token=alice, json={"title": "ci", "key": line})
    assert r.status == 201, r
    assert api.post(keys_of("alice/secret"), token=alice,
                    json={"title": "ci2", "key": line}).status == 422


def test_routes_in_swagger(api):
    doc = api.get("/swagger.v1.json").json
    ops = {op["operationId"] for path in doc["paths"].values() for op in path.values()}
    assert {"repoListCollaborators", "repoCheckCollaborator", "repoAddCollaborator",
            "repoDeleteCollaborator", "repoGetRepoPermissions", "userCurrentPutStar",
            "userCurrentDeleteStar", "userCurrentCheckStarring", "userCurrentListStarred",
            "userListStarred", "repoListStargazers", "userCurrentCheckSubscription",
            "userCurrentPutSubscription", "userCurrentDeleteSubscription",
            "repoListSubscribers", "userCurrentListSubscriptions", "repoListKeys",
            "repoCreateKey", "repoGetKey", "repoDeleteKey"} <= ops
    add = doc["paths"]["/repos/{owner}/{repo}/collaborators/{collaborator}"]["put"]
    assert add["parameters"][-1]["schema"] == {"$ref": "#/definitions/AddCollaboratorOption"}
    assert doc["responses"]["DeployKeyList"]["schema"]["items"] == {
        "$ref": "#/definitions/DeployKey"}
