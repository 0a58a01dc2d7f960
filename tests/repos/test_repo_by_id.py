"""A repository by its id (repoGetByID): the record as the caller may see it."""
from tests.accounts.test_users import assert_matches_forgejo
from tests.conftest import ADMIN


def test_a_repository_by_id(api):
    for name in ("alice", "bob"):
        api.create_user(name)
    alice, bob = api.create_token("alice"), api.create_token("bob")
    public = api.post("/user/repos", token=alice, json={"name": "open"}).json
    private = api.post("/user/repos", token=alice, json={"name": "secret", "private": True}).json

    found = api.get(f"/repositories/{public['id']}")
    assert found.status == 200 and found.json["full_name"] == "alice/open"
    assert_matches_forgejo(found.json, "Repository", nullable=("parent", "repo_transfer"))
    assert found.json["permissions"] == {"admin": False, "push": False, "pull": True}
    assert api.get(f"/repositories/{public['id']}", token=alice).json["permissions"]["admin"]

    # Private: its owner and the site admin see it; others get 404, as for a missing id.
    assert api.get(f"/repositories/{private['id']}", token=alice).status == 200
    assert api.get(f"/repositories/{private['id']}", auth=ADMIN).status == 200
    assert api.get(f"/repositories/{private['id']}", token=bob).status == 404
    assert api.get(f"/repositories/{private['id']}").status == 404
    assert api.get("/repositories/999999").status == 404
    assert api.get("/repositories/junk").status == 404

    # A fork carries its parent; a repository whose owner was renamed (its item moved)
    # is still found by its id.
    fork = api.post("/repos/alice/open/forks", token=bob, json={})
    assert fork.status == 202
    by_id = api.get(f"/repositories/{fork.json['id']}").json
    assert by_id["fork"] and by_id["parent"]["full_name"] == "alice/open"
    assert api.post("/admin/users/alice/rename", auth=ADMIN,
                    json={"new_username": "alicia"}).status == 204
    assert api.get(f"/repositories/{public['id']}").json["full_name"] == "alicia/open"
