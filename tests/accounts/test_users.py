"""Users, tokens and public keys: status codes and record shapes."""
import json
import pathlib
from urllib.parse import quote

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ed25519, rsa

from tests.conftest import ADMIN

FORGEJO = json.loads((pathlib.Path(__file__).parent.parent / "fixtures" /
                      "forgejo_definitions.json").read_text())["definitions"]
PY_TYPES = {"string": str, "integer": int, "boolean": bool, "array": list, "object": dict}


# Fields Forgejo itself leaves out of a record while they are unset (omitempty).
OMITTED_WHEN_UNSET = {"Repository": {"external_tracker", "external_wiki"}}


def assert_matches_forgejo(record: dict, definition: str, nullable=()):
    """Every field of Forgejo's definition is present with the right JSON type."""
    props = {k: v for k, v in FORGEJO[definition]["properties"].items()
             if k not in OMITTED_WHEN_UNSET.get(definition, ())}
    missing = set(props) - set(record)
    assert not missing, f"{definition} lacks {sorted(missing)}"
    for name, spec in props.items():
        value = record[name]
        if value is None and name in nullable:
            continue
        expected = PY_TYPES["object"] if "$ref" in spec else PY_TYPES[spec["type"]]
        assert isinstance(value, expected) and not (expected is int and isinstance(value, bool)), \
            f"{definition}.{name} = {value!r}"
        if spec.get("format") == "date-time":
            assert value.endswith("Z") and len(value) == 20, value


def ssh_key(kind="ed25519", comment="me@host"):
    key = ed25519.Ed25519PrivateKey.generate() if kind == "ed25519" else \
        rsa.generate_private_key(public_exponent=65537, key_size=int(kind.split("-")[1]))
    line = key.public_key().public_bytes(serialization.Encoding.OpenSSH,
                                         serialization.PublicFormat.OpenSSH).decode()
    return f"{line} {comment}"


def test_admin_create_user_record(api):
    r = api.post("/admin/users", auth=ADMIN, json={
        "username": "Alice", "email": "alice@example.com", "password": "alice-password",
        "full_name": "Alice A", "visibility": "limited"})
    assert r.status == 201
    assert r.headers["content-type"] == "application/json;charset=utf-8"
    assert r.body.endswith(b"\n")
    user = r.json
    assert_matches_forgejo(user, "User")
    assert user["login"] == user["username"] == "Alice"
    assert user["email"] == "alice@example.com"
    assert user["html_url"] == "http://nimbus.test/Alice"
    assert user["visibility"] == "limited" and user["full_name"] == "Alice A"
    assert user["active"] is True and user["is_admin"] is False
    assert isinstance(user["id"], int) and 0 < user["id"] < 2 ** 53


def test_admin_create_user_validation(api):
    base = {"username": "bob", "email": "bob@example.com", "password": "bob-password"}
    cases = [
        ({**base, "username": ""}, "[Username]: Required"),
        ({**base, "username": "bad name"}, None),
        ({**base, "username": "-dash"}, None),
        ({**base, "username": "api"}, "name is reserved [name: api]"),
        ({**base, "email": "not-an-email"}, None),
        ({**base, "password": "short"}, None),
        ({**base, "visibility": "secret"}, None),
        ({**base, "username": 12}, None),
    ]
    for body, message in cases:
        r = api.post("/admin/users", auth=ADMIN, json=body)
        assert r.status == 422, (body, r)
        if message:
            assert r.json["message"] == message
    r = api.post("/admin/users", auth=ADMIN, body=b"{not json", headers={
        "Content-Type": "application/json"})
    assert r.status == 422
    assert api.post("/admin/users", auth=ADMIN, json=base).status == 201
    dup_name = api.post("/admin/users", auth=ADMIN, json={**base, "username": "BOB",
                                                          "email": "other@example.com"})
    assert dup_name.status == 422 and dup_name.json["message"] == "user already exists [name: BOB]"
    dup_mail = api.post("/admin/users", auth=ADMIN, json={**base, "username": "bob2",
                                                          "email": "BOB@example.com"})
    assert dup_mail.status == 422 and "e-mail already in use" in dup_mail.json["message"]
    # The refused user left nothing behind: the name is still free.
    assert api.post("/admin/users", auth=ADMIN, json={**base, "username": "bob2",
                                                      "email": "bob2@example.com"}).status == 201


def test_get_user_and_visibility(api):
    api.create_user("pub")
    api.create_user("lim", visibility="limited")
    api.create_user("priv", visibility="private")
    anon = api.get("/users/pub")
    assert anon.status == 200
    assert anon.json["email"] == "pub@noreply.nimbus.test"
    assert anon.json["last_login"] == "0001-01-01T00:00:00Z"
    assert api.get("/users/PUB").json["login"] == "pub"
    assert api.get("/users/lim").status == 404
    assert api.get("/users/priv").status == 404
    token = api.create_token("pub")
    assert api.get("/users/lim", token=token).status == 200
    assert api.get("/users/priv", token=token).status == 404
    assert api.get("/users/priv", auth=ADMIN).status == 200
    missing = api.get("/users/nobody")
    assert missing.status == 404
    assert missing.json["message"] == "The target couldn't be found."
    assert missing.json["url"] == "http://nimbus.test/api/swagger"
    assert isinstance(missing.json["errors"], list)


def test_admin_search_users(api):
    """adminSearchUsers: every user (organizations left out), filters, sorts, paging."""
    from chalicelib.accounts import search as user_search

    for name, extra in (("cara", {"full_name": "Cara Way"}), ("abe", {"login_name": "abe-ldap"}),
                        ("bo", {"visibility": "private"})):
        api.create_user(name, **extra)
    token = api.create_token("cara")
    assert api.post("/orgs", token=token, json={"username": "corp"}).status == 201

    def logins(query="", **kw):
        r = api.get(f"/admin/users{query}", **(kw or {"auth": ADMIN}))
        assert r.status == 200, r
        return [u["login"] for u in r.json], r.headers

    found, headers = logins()
    assert found == ["abe", "bo", "cara", "root"] and headers["x-total-count"] == "4"
    listed = api.get("/admin/users", auth=ADMIN).json
    assert_matches_forgejo(listed[0], "User")
    assert listed[0]["login_name"] == "abe-ldap"          # an admin sees private fields
    assert logins("?sort=reversealphabetically")[0] == ["root", "cara", "bo", "abe"]
    assert logins("?sort=newest")[0] == ["bo", "abe", "cara", "root"]
    assert logins("?sort=oldest")[0] == ["root", "cara", "abe", "bo"]
    assert logins("?login_name=abe-ldap")[0] == ["abe"]
    assert logins("?q=way")[0] == ["cara"]               # the full name matches
    assert logins("?source_id=3")[0] == [] and logins("?source_id=0")[0][0] == "abe"
    assert logins("?is_2fa_enabled=true")[0] == []
    found, headers = logins("?limit=2&page=2")
    assert found == ["cara", "root"] and headers["x-total-count"] == "4"
    assert 'rel="prev"' in headers["link"]
    assert api.get("/admin/users", token=token).status == 403
    assert api.get("/admin/users").status == 401
    # The total is bounded past the page; the list itself stays exact.
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(user_search, "COUNT_AHEAD", 1)
        found, headers = logins("?limit=1")
        assert found == ["abe"] and headers["x-total-count"] == "2"
        assert 'rel="next"' in headers["link"]


def test_user_search(api):
    """userSearch: ``{ok, data}``, users the caller may see, by name, full name or a
    visible e-mail; ``uid``; paging headers."""
    api.create_user("pub", full_name="Public Person")
    api.create_user("lim", visibility="limited")
    api.create_user("priv", visibility="private")
    api.create_user("hid", email="hidden@corp.example")
    assert api.patch("/admin/users/hid", auth=ADMIN, json={
        "hide_email": True, "login_name": "hid"}).status == 200
    token = api.create_token("pub")

    def search(query="", **kw):
        r = api.get(f"/users/search{query}", **kw)
        assert r.status == 200 and r.json["ok"] is True, r
        return [u["login"] for u in r.json["data"]], r

    found, r = search()
    assert found == ["hid", "pub", "root"] and r.headers["x-total-count"] == "3"
    assert_matches_forgejo(r.json["data"][0], "User")
    assert r.json["data"][1]["email"] == "pub@noreply.nimbus.test"   # as anonymous sees it
    assert search(token=token)[0] == ["hid", "lim", "pub", "root"]
    assert search(auth=ADMIN)[0] == ["hid", "lim", "priv", "pub", "root"]
    assert search("?q=PERSON")[0] == ["pub"]
    assert search("?q=corp.example", token=token)[0] == []           # a hidden e-mail
    assert search("?q=corp.example", auth=ADMIN)[0] == ["hid"]
    uid = api.get("/users/pub").json["id"]
    assert search(f"?uid={uid}")[0] == ["pub"]
    found, r = search("?limit=1&page=2")
    assert found == ["pub"] and 'rel="next"' in r.headers["link"]
    assert api.get("/users/search", token=token).json["data"][0]["login_name"] == ""


def test_current_user_sees_private_fields(api):
    api.create_user("me")
    token = api.create_token("me")
    r = api.get("/user", token=token)
    assert r.status == 200
    assert_matches_forgejo(r.json, "User")
    assert r.json["email"] == "me@example.com" and r.json["active"] is True
    assert r.json["login_name"] == "me"


def test_admin_edit_user(api):
    api.create_user("ed")
    r = api.patch("/admin/users/ed", auth=ADMIN, json={
        "full_name": "Ed Edit", "website": "https://ed.example", "admin": True,
        "email": "ed2@example.com"})
    assert r.status == 200
    assert r.json["full_name"] == "Ed Edit" and r.json["is_admin"] is True
    assert r.json["email"] == "ed2@example.com"
    # The old e-mail is free again, the new one is taken.
    assert api.post("/admin/users", auth=ADMIN, json={
        "username": "x1", "email": "ed@example.com", "password": "password1"}).status == 201
    taken = api.patch("/admin/users/x1", auth=ADMIN, json={"email": "ED2@example.com"})
    assert taken.status == 422
    assert api.patch("/admin/users/ed", auth=ADMIN, json={"visibility": "weird"}).status == 422
    assert api.patch("/admin/users/ed", auth=ADMIN, json={"admin": "yes"}).status == 422
    assert api.patch("/admin/users/nobody", auth=ADMIN, json={"full_name": "x"}).status == 404
    r = api.patch("/admin/users/ed", auth=ADMIN, json={"password": "new-password-9"})
    assert r.status == 200
    assert api.get("/user", auth=("ed", "new-password-9")).status == 200
    assert api.get("/user", auth=("ed", "secret-pass-1")).status == 401


def test_admin_delete_user(api):
    api.create_user("gone")
    token = api.create_token("gone")
    assert api.delete("/admin/users/gone", auth=ADMIN).status == 204
    assert api.get("/users/gone").status == 404
    # Its token no longer authenticates, and the name can be reused.
    assert api.get("/user", token=token).status == 401
    api.create_user("gone")
    assert api.delete("/admin/users/nobody", auth=ADMIN).status == 404


def test_admin_delete_user_refused_while_owning_repositories(api):
    from chalicelib.accounts.store import get_by_name

    api.create_user("owner")
    account = get_by_name("owner")
    account.num_repos = 1
    account.save()
    r = api.delete("/admin/users/owner", auth=ADMIN)
    assert r.status == 422
    assert "ownership of repositories" in r.json["message"]
    assert api.get("/users/owner").status == 200


def test_tokens_lifecycle(api):
    api.create_user("tok", password="tok-password")
    r = api.post("/users/tok/tokens", auth=("tok", "tok-password"),
                 json={"name": "ci", "scopes": ["write:repository", "read:user", "read:user"]})
    assert r.status == 201
    created = r.json
    assert_matches_forgejo(created, "AccessToken", nullable=("repositories",))
    assert len(created["sha1"]) == 40 and created["token_last_eight"] == created["sha1"][-8:]
    assert created["scopes"] == ["write:repository", "read:user"]
    again = api.post("/users/tok/tokens", auth=("tok", "tok-password"),
                     json={"name": "ci", "scopes": ["all"]})
    assert again.status == 400
    assert again.json["message"] == "access token name has been used already"
    assert api.post("/users/tok/tokens", auth=("tok", "tok-password"),
                    json={"name": "x", "scopes": []}).status == 400
    bad = api.post("/users/tok/tokens", auth=("tok", "tok-password"),
                   json={"name": "x", "scopes": ["write:everything"]})
    assert bad.status == 400 and bad.json["message"].startswith("invalid access token scope")
    assert api.post("/users/tok/tokens", auth=("tok", "tok-password"),
                    json={"scopes": ["all"]}).status == 422
    full = api.post("/users/tok/tokens", auth=("tok", "tok-password"),
                    json={"name": "full", "scopes": ["all"]}).json
    assert full["scopes"] == ["all"]
    listed = api.get("/users/tok/tokens", auth=("tok", "tok-password"))
    assert listed.status == 200
    assert [t["name"] for t in listed.json] == ["full", "ci"]
    assert all(t["sha1"] == "" for t in listed.json)
    assert listed.headers["x-total-count"] == "2"
    # Creation needs a password login: a token (even in Basic) is not enough.
    r = api.post("/users/tok/tokens", token=full["sha1"], json={"name": "y", "scopes": ["all"]})
    assert r.status == 401
    r = api.post("/users/tok/tokens", auth=("tok", full["sha1"]),
                 json={"name": "y", "scopes": ["all"]})
    assert r.status == 401
    assert api.delete(f"/users/tok/tokens/{created['id']}", auth=("tok", "tok-password")).status == 204
    assert api.delete("/users/tok/tokens/full", auth=("tok", "tok-password")).status == 204
    assert api.delete("/users/tok/tokens/full", auth=("tok", "tok-password")).status == 404
    assert api.get("/user", token=full["sha1"]).status == 401


def test_tokens_of_others(api):
    api.create_user("u1", password="u1-password")
    api.create_user("u2", password="u2-password")
    r = api.post("/users/u2/tokens", auth=("u1", "u1-password"), json={"name": "x", "scopes": ["all"]})
    assert r.status == 403
    assert api.get("/users/u2/tokens", auth=("u1", "u1-password")).status == 403
    # A site admin may mint for others (Forgejo's reqSelfOrAdmin).
    r = api.post("/users/u2/tokens", auth=ADMIN, json={"name": "x", "scopes": ["read:user"]})
    assert r.status == 201
    assert api.get("/user", token=r.json["sha1"]).json["login"] == "u2"
    assert api.post("/users/nobody/tokens", auth=ADMIN, json={"name": "x"}).status == 404


def test_public_keys(api):
    api.create_user("kay")
    key = ssh_key()
    r = api.post("/admin/users/kay/keys", auth=ADMIN, json={"title": "laptop", "key": key})
    assert r.status == 201
    created = r.json
    assert_matches_forgejo(created, "PublicKey")
    assert created["fingerprint"].startswith("SHA256:") and "=" not in created["fingerprint"]
    assert created["key"] == " ".join(key.split()[:2])
    assert created["user"]["login"] == "kay"
    assert created["url"] == f"http://nimbus.test/api/v1/user/keys/{created['id']}"
    # The fingerprint matches what ssh-keygen would print.
    import base64
    import hashlib
    blob = base64.b64decode(key.split()[1])
    assert created["fingerprint"] == "SHA256:" + base64.b64encode(
        hashlib.sha256(blob).digest()).decode().rstrip("=")

    dup = api.post("/admin/users/kay/keys", auth=ADMIN, json={"title": "again", "key": key})
    assert dup.status == 422
    for garbage in ("not a key", "ssh-ed25519 AAAAnotbase64!!", "ssh-rsa " + key.split()[1], ""):
        r = api.post("/admin/users/kay/keys", auth=ADMIN, json={"title": "bad", "key": garbage})
        assert r.status == 422, (garbage, r)
    assert api.post("/admin/users/kay/keys", auth=ADMIN, json={"key": ssh_key()}).status == 422
    weak = api.post("/admin/users/kay/keys", auth=ADMIN,
                    json={"title": "weak", "key": ssh_key("rsa-1024")})
    assert weak.status == 422
    strong = api.post("/admin/users/kay/keys", auth=ADMIN,
                      json={"title": "rsa", "key": ssh_key("rsa-3072")})
    assert strong.status == 201

    listed = api.get("/users/kay/keys")
    assert listed.status == 200 and [k["title"] for k in listed.json] == ["laptop", "rsa"]
    assert listed.headers["x-total-count"] == "2"
    token = api.create_token("kay")
    mine = api.get("/user/keys", token=token)
    assert mine.status == 200 and len(mine.json) == 2
    only = api.get(f"/user/keys?fingerprint={quote(created['fingerprint'], safe='')}", token=token)
    assert [k["id"] for k in only.json] == [created["id"]]
    assert api.delete(f"/admin/users/kay/keys/{created['id']}", auth=ADMIN).status == 204
    assert api.delete(f"/admin/users/kay/keys/{created['id']}", auth=ADMIN).status == 404
    assert api.delete("/admin/users/kay/keys/abc", auth=ADMIN).status == 422
    assert [k["title"] for k in api.get("/users/kay/keys").json] == ["rsa"]
    # The key may now be added again.
    assert api.post("/admin/users/kay/keys", auth=ADMIN, json={"title": "back", "key": key}).status == 201


def test_own_keys(api):
    api.create_user("olga")
    token = api.create_token("olga")
    r = api.post("/user/keys", token=token, json={"title": "mine", "key": ssh_key()})
    assert r.status == 201
    key_id = r.json["id"]
    assert api.get(f"/user/keys/{key_id}", token=token).json["title"] == "mine"
    api.create_user("pete")
    other = api.create_token("pete")
    assert api.get(f"/user/keys/{key_id}", token=other).status == 404
    assert api.delete(f"/user/keys/{key_id}", token=other).status == 404
    assert api.delete(f"/user/keys/{key_id}", token=token).status == 204


@pytest.mark.parametrize("path", ["/version", "/settings/api"])
def test_public_instance_endpoints(api, path):
    r = api.get(path)
    assert r.status == 200
    assert_matches_forgejo(r.json, "ServerVersion" if path == "/version" else "GeneralAPISettings")


def test_settings_api_values(api):
    assert api.get("/settings/api").json == {
        "max_response_items": 50, "default_paging_num": 30,
        "default_git_trees_per_page": 1000, "default_max_blob_size": 10485760}
