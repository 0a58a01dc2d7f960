"""Authentication: every credential form, bad credentials, scopes, sudo, admin guard."""
import base64

from tests.conftest import ADMIN, basic


def test_token_works_in_every_credential_form(api):
    api.create_user("alice")
    token = api.create_token("alice")
    forms = [
        {"headers": {"Authorization": f"token {token}"}},
        {"headers": {"Authorization": f"Bearer {token}"}},
        {"headers": {"Authorization": f"bearer {token}"}},
        {"headers": {"Authorization": basic("alice", token)}},          # token as password
        {"headers": {"Authorization": basic(token, "")}},               # token as user name
        {"headers": {"Authorization": basic(token, "x-oauth-basic")}},
    ]
    for form in forms:
        r = api.get("/user", **form)
        assert r.status == 200, (form, r)
        assert r.json["login"] == "alice"
    for param in ("token", "access_token"):
        r = api.get(f"/user?{param}={token}")
        assert r.status == 200 and r.json["login"] == "alice"


def test_password_basic_auth(api):
    api.create_user("bob", password="bob-password")
    r = api.get("/user", auth=("bob", "bob-password"))
    assert r.status == 200 and r.json["login"] == "bob"
    # Case-insensitive user names, as in Forgejo.
    assert api.get("/user", auth=("BOB", "bob-password")).status == 200


def test_wrong_credentials_are_401_with_challenge(api):
    api.create_user("carol")
    cases = [
        {"token": "0" * 40},
        {"headers": {"Authorization": "token not-a-token"}},
        {"auth": ("carol", "wrong-password")},
        {"auth": ("nobody", "whatever-pw")},
        {"headers": {"Authorization": "Basic !!!notbase64"}},
        {"headers": {"Authorization": "Negotiate abc"}},
    ]
    for case in cases:
        r = api.get("/user", **case)
        assert r.status == 401, (case, r)
        assert r.headers["www-authenticate"].startswith("Basic realm=")
        assert r.json["message"]
    # Even on a public endpoint, wrong credentials are refused.
    assert api.get("/users/carol", token="f" * 40).status == 401


def test_anonymous_gets_401_token_required(api):
    r = api.get("/user")
    assert r.status == 401
    assert r.json == {"message": "token is required", "url": "http://nimbus.test/api/swagger"}


def test_non_admin_on_admin_routes_is_403(api):
    api.create_user("dave")
    token = api.create_token("dave")
    r = api.post("/admin/users", token=token, json={
        "username": "eve", "email": "eve@example.com", "password": "eve-password"})
    assert r.status == 403
    assert r.json["message"] == "user should be the site admin"
    assert api.delete("/admin/users/dave", token=token).status == 403
    assert api.patch("/admin/users/dave", token=token, json={"admin": True}).status == 403
    # Nothing was written.
    assert api.get("/users/eve").status == 404


def test_sudo_for_admins_only(api):
    api.create_user("frank")
    api.create_user("grace")
    admin_token = api.create_token(ADMIN[0], ADMIN[1])
    r = api.get("/user", token=admin_token, headers={"Sudo": "frank"})
    assert r.status == 200 and r.json["login"] == "frank"
    r = api.get("/user?sudo=grace", token=admin_token)
    assert r.status == 200 and r.json["login"] == "grace"
    r = api.get("/user", token=admin_token, headers={"Sudo": "nobody"})
    assert r.status == 404
    frank_token = api.create_token("frank")
    r = api.get("/user", token=frank_token, headers={"Sudo": "grace"})
    assert r.status == 403
    assert r.json == {"message": "Only administrators allowed to sudo."}


def test_token_scopes_are_enforced(api):
    api.create_user("heidi")
    read_only = api.create_token("heidi", scopes=["read:user"], name="ro")
    assert api.get("/user", token=read_only).status == 200
    r = api.get("/user/keys", token=read_only)
    assert r.status == 200
    r = api.post("/user/keys", token=read_only, json={"title": "k", "key": "ssh-ed25519 AAAA"})
    assert r.status == 403
    assert r.json["message"] == ("token does not have at least one of required scope(s): "
                                 "[write:user]")
    repo_only = api.create_token("heidi", scopes=["write:repository"], name="repo")
    assert api.get("/user", token=repo_only).status == 403
    # Scope-free routes work with any token.
    assert api.get("/version", token=repo_only).status == 200


def test_admin_token_needs_admin_scope(api):
    token = api.create_token(ADMIN[0], ADMIN[1], scopes=["write:user"], name="no-admin")
    r = api.post("/admin/users", token=token, json={
        "username": "ivan", "email": "ivan@example.com", "password": "ivan-password"})
    assert r.status == 403


def test_prohibited_and_inactive_accounts(api):
    api.create_user("judy", password="judy-password")
    api.patch("/admin/users/judy", auth=ADMIN, json={"prohibit_login": True})
    r = api.get("/user", auth=("judy", "judy-password"))
    assert r.status == 403
    assert r.json["message"].startswith("This account is prohibited from signing in")
    api.patch("/admin/users/judy", auth=ADMIN, json={"prohibit_login": False, "active": False})
    r = api.get("/user", auth=("judy", "judy-password"))
    assert r.status == 403 and r.json == {"message": "This account is not activated."}


def test_query_token_can_be_disabled(api, monkeypatch):
    import dataclasses

    from chalicelib import settings as settings_mod

    api.create_user("kim")
    token = api.create_token("kim")
    current = settings_mod.get_settings()
    patched = dataclasses.replace(current, security=current.security.replace(
        DISABLE_QUERY_AUTH_TOKEN=True))
    monkeypatch.setattr(settings_mod, "get_settings", lambda: patched)
    for module in ("chalicelib.http.gateway",):
        monkeypatch.setattr(f"{module}.get_settings", lambda: patched)
    assert api.get(f"/user?token={token}").status == 401
    assert api.get("/user", token=token).status == 200


def test_passwords_are_not_stored_in_clear(api):
    from chalicelib.accounts.store import get_by_name

    api.create_user("leo", password="leo-password-x")
    stored = get_by_name("leo").password_hash
    assert "leo-password-x" not in stored and stored.startswith("scrypt$")
    assert base64.b64decode(stored.split("$")[-1])


def test_the_credential_is_read_once_per_request(api, monkeypatch):
    from chalicelib.http import auth

    api.create_user("dora")
    token = api.create_token("dora")
    reads = []
    original = auth.read_credential

    def counting(req, settings):
        reads.append(req.path)
        return original(req, settings)

    monkeypatch.setattr(auth, "read_credential", counting)
    for form in ({"token": token}, {"auth": ("dora", "secret-pass-1")},
                 {"headers": {"Authorization": "Basic !!!notbase64"}}, {}):
        reads.clear()
        api.get("/user", **form)
        assert reads == ["/user"], form
