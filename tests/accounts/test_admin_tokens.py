"""A site admin's access tokens of other users (adminListUserAccessTokens,
adminCreateUserAccessToken, adminDeleteUserAccessToken): what a client sees."""
from tests.accounts.test_users import assert_matches_forgejo
from tests.conftest import ADMIN


def admin_token(api, scopes=("write:admin",)) -> str:
    """An admin token with only the admin scope: the admin routes ask no more of it."""
    return api.create_token(ADMIN[0], ADMIN[1], scopes=scopes, name="admin-" + "-".join(scopes))


def test_admin_mints_lists_and_deletes_a_users_tokens(api):
    api.create_user("una")
    admin = admin_token(api)
    r = api.post("/admin/users/una/tokens", token=admin,
                 json={"name": "ci", "scopes": ["read:user", "write:repository", "read:user"]})
    assert r.status == 201, r
    created = r.json
    assert_matches_forgejo(created, "AccessToken", nullable=("repositories",))
    assert isinstance(created["id"], int) and created["id"] > 0
    assert created["name"] == "ci"
    assert len(created["sha1"]) == 40 and created["token_last_eight"] == created["sha1"][-8:]
    assert created["scopes"] == ["write:repository", "read:user"]

    # The token is una's, not the admin's.
    me = api.get("/user", token=created["sha1"])
    assert me.status == 200 and me.json["login"] == "una"

    second = api.post("/admin/users/una/tokens", auth=ADMIN,
                      json={"name": "deploy", "scopes": ["all"]}).json
    listed = api.get("/admin/users/una/tokens", token=admin_token(api, ("read:admin",)))
    assert listed.status == 200
    assert [t["name"] for t in listed.json] == ["deploy", "ci"]
    assert [t["id"] for t in listed.json] == [second["id"], created["id"]]
    assert all(t["sha1"] == "" for t in listed.json)      # the secret is shown once
    assert listed.json[1]["token_last_eight"] == created["token_last_eight"]
    assert listed.headers["x-total-count"] == "2"
    # una sees the same tokens through the user variant.
    own = api.get("/users/una/tokens", auth=("una", "secret-pass-1")).json
    assert [t["id"] for t in own] == [second["id"], created["id"]]

    # By id, then by name; each stops authenticating.
    assert api.delete(f"/admin/users/una/tokens/{created['id']}", token=admin).status == 204
    assert api.get("/user", token=created["sha1"]).status == 401
    assert api.delete("/admin/users/una/tokens/deploy", token=admin).status == 204
    assert api.get("/user", token=second["sha1"]).status == 401
    assert api.get("/admin/users/una/tokens", token=admin).json == []
    # Gone is gone, by id or by name.
    assert api.delete(f"/admin/users/una/tokens/{created['id']}", token=admin).status == 404
    assert api.delete("/admin/users/una/tokens/deploy", token=admin).status == 404


def test_the_admin_scope_decides(api):
    api.create_user("vic")
    reader = admin_token(api, ("read:admin",))
    assert api.get("/admin/users/vic/tokens", token=reader).status == 200
    assert api.post("/admin/users/vic/tokens", token=reader,
                    json={"name": "x", "scopes": ["all"]}).status == 403
    # A token with every scope but the admin one opens no admin route.
    user_only = admin_token(api, ("write:user",))
    assert api.get("/admin/users/vic/tokens", token=user_only).status == 403
    assert api.post("/admin/users/vic/tokens", token=user_only,
                    json={"name": "x", "scopes": ["all"]}).status == 403
    created = api.post("/admin/users/vic/tokens", auth=ADMIN,
                       json={"name": "x", "scopes": ["all"]}).json
    assert api.delete(f"/admin/users/vic/tokens/{created['id']}", token=reader).status == 403
    assert api.get("/user", token=created["sha1"]).status == 200


def test_only_a_site_admin(api):
    api.create_user("wes", password="wes-password")
    api.create_user("xan")
    mine = api.post("/users/wes/tokens", auth=("wes", "wes-password"),
                    json={"name": "mine", "scopes": ["all"]}).json
    for who in ({"auth": ("wes", "wes-password")}, {"token": mine["sha1"]}):
        # Not even on their own tokens: these are the admin's routes.
        for user in ("xan", "wes"):
            r = api.post(f"/admin/users/{user}/tokens", json={"name": "x", "scopes": ["all"]},
                         **who)
            assert r.status == 403, (who, user, r)
            assert api.get(f"/admin/users/{user}/tokens", **who).status == 403
        assert api.delete(f"/admin/users/wes/tokens/{mine['id']}", **who).status == 403
    assert api.get("/admin/users/wes/tokens").status == 401
    assert api.get("/user", token=mine["sha1"]).json["login"] == "wes"


def test_unknown_user(api):
    admin = admin_token(api)
    assert api.get("/admin/users/nobody/tokens", token=admin).status == 404
    r = api.post("/admin/users/nobody/tokens", token=admin, json={"name": "x", "scopes": ["all"]})
    assert r.status == 404
    assert api.delete("/admin/users/nobody/tokens/1", token=admin).status == 404
    assert api.delete("/admin/users/nobody/tokens/x", token=admin).status == 404


def test_bad_bodies_answer_as_the_user_variant(api):
    api.create_user("yan", password="yan-password")
    admin = admin_token(api)

    def both(body=None, raw=None) -> tuple[int, int]:
        """(the user variant's status, the admin variant's) for the same body."""
        kw = {"json": body} if raw is None else {
            "body": raw, "headers": {"Content-Type": "application/json"}}
        mine = api.post("/users/yan/tokens", auth=("yan", "yan-password"), **kw)
        theirs = api.post("/admin/users/yan/tokens", token=admin, **kw)
        assert mine.json.get("message") == theirs.json.get("message"), (mine, theirs)
        return mine.status, theirs.status

    assert api.post("/admin/users/yan/tokens", token=admin,
                    json={"name": "dup", "scopes": ["all"]}).status == 201
    assert both({"name": "dup", "scopes": ["all"]}) == (400, 400)   # the name is taken
    assert both({"scopes": ["all"]}) == (422, 422)                  # no name
    assert both({"name": "  ", "scopes": ["all"]}) == (422, 422)
    assert both({"name": "x", "scopes": []}) == (400, 400)          # no scope
    assert both({"name": "x", "scopes": ["write:everything"]}) == (400, 400)
    status = both(raw=b"{not json")
    assert status[0] == status[1] and 400 <= status[0] < 500
    names = [t["name"] for t in api.get("/admin/users/yan/tokens", token=admin).json]
    assert names == ["dup"]
