"""The OAuth2 domain's rules on the in-memory twin (the fast layer): redirect URIs, scopes,
client authentication headers, applications, the grant's tokens, rotation, reuse and
revocation, the ``groups`` claim — through the provider's own functions, no HTTP."""
from __future__ import annotations

import base64
import json
from urllib.parse import parse_qs, urlsplit

import pytest

from chalicelib import oauth2
from chalicelib.accounts.credentials import authenticate
from chalicelib.errors import BadInput, InvalidInput, NotFoundError
from chalicelib.oauth2 import claims, issuing, provider, scopes
from chalicelib.oauth2.options import CreateOAuth2ApplicationOptions as AppOption
from tests import memory_scene as scene

CB = "https://ci.example/cb"


class App:
    def __init__(self, **fields):
        self.__dict__.update(fields)


@pytest.mark.parametrize("confidential,given,allowed", [
    (True, CB, True),
    (True, CB + "/", False),                       # exact match only
    (True, "https://ci.example/cb?x=1", False),
    (False, "http://127.0.0.1:51234/native", True),  # RFC 8252: any loopback port
    (False, "http://[::1]:4000/native", True),
    (True, "http://127.0.0.1:51234/native", False),  # not for a confidential client
    (False, "http://localhost:4000/native", False),  # names are not loopback addresses
    (False, "http://127.0.0.1:4000/other", False),
])
def test_redirect_uris_match_exactly_or_on_any_loopback_port(confidential, given, allowed):
    client = App(confidential=confidential,
                 redirect_uris=[CB, "http://127.0.0.1/native", "http://[::1]/native"])
    assert issuing.redirect_allowed(client, given) is allowed


def test_scopes_kept_and_what_tokens_get():
    asked = ["openid", "profile", "offline_access", "read:repository", "openid", "bogus:x"]
    assert scopes.kept(asked) == "openid profile read:repository"
    assert scopes.api_scopes(["openid", "email"]) == ["all"]        # none named: everything
    assert scopes.api_scopes(["openid", "write:issue"]) == ["write:issue"]
    assert scopes.api_scopes(["public-only"]) == ["public-only", "all"]
    assert not scopes.sees_private_groups(["read:repository"])
    assert scopes.sees_private_groups(["all"]) and scopes.sees_private_groups(["read:admin"])
    said = scopes.describe(["openid", "read:repository"])
    assert any("read:repository" in line for line in said)
    assert any("everything" in line for line in scopes.describe(["openid"]))


def test_client_credentials_from_a_basic_header():
    def header(text: str) -> dict:
        return {"Authorization": "Basic " + base64.b64encode(text.encode()).decode()}
    assert issuing.basic_client(header("id:s%3Acret")) == ("id", "s:cret")
    assert issuing.basic_client(header("no-colon")) is None
    assert issuing.basic_client({"Authorization": "Bearer x"}) is None
    assert issuing.basic_client({"Authorization": "Basic !!!"}) is None


def test_applications_rules(memory):
    alice, bob = scene.user("alice"), scene.user("bob")
    app, secret = oauth2.create_app(alice, AppOption(name="ci", redirect_uris=[CB, CB]))
    assert app.redirect_uris == [CB] and app.confidential and secret.startswith("gto_")
    assert issuing.secret_matches(secret, app.secret_hash)
    assert not issuing.secret_matches(secret + "x", app.secret_hash)
    for bad in (["javascript:alert(1)"], ["https://x.example/#f"], ["relative/path"],
                ["data:text/html,x"], ["https:///nohost"]):
        with pytest.raises(BadInput):
            oauth2.create_app(alice, AppOption(name="x", redirect_uris=bad))
    with pytest.raises(InvalidInput):
        oauth2.create_app(alice, AppOption(name="  ", redirect_uris=[CB]))
    with pytest.raises(NotFoundError):
        oauth2.get_app(bob, int(app.id))
    edited, new_secret = oauth2.edit_app(alice, int(app.id), AppOption(
        name="ci2", redirect_uris=[CB], confidential_client=False))
    assert not edited.confidential and new_secret != secret
    assert not issuing.secret_matches(secret, edited.secret_hash)
    assert [a.name for a in oauth2.list_apps(alice)] == ["ci2"] and oauth2.list_apps(bob) == []


def _consent(user, app, **extra) -> str:
    params = {"response_type": "code", "client_id": app.client_id, "redirect_uri": CB,
              "scope": "openid profile groups", "state": "s", **extra}
    location = provider.approve(params, user)
    return parse_qs(urlsplit(location).query)["code"][0]


def _exchange(app, secret, code, **extra):
    body = "&".join(f"{k}={v}" for k, v in {"grant_type": "authorization_code", "code": code,
                                            "redirect_uri": CB, "client_id": app.client_id,
                                            "client_secret": secret, **extra}.items())
    status, _, answer = provider.token_response(body.encode(), {})
    return status, json.loads(answer)


def _refresh(app, secret, token):
    body = (f"grant_type=refresh_token&refresh_token={token}&client_id={app.client_id}"
            f"&client_secret={secret}")
    status, _, answer = provider.token_response(body.encode(), {})
    return status, json.loads(answer)


def _authenticate(secret: str) -> bool:
    """Whether the gateway would take the token (its own question to the accounts domain)."""
    return authenticate(secret) is not None


def test_a_grant_from_consent_to_revocation(memory):
    alice = scene.user("alice")
    app, secret = oauth2.create_app(alice, AppOption(name="ci", redirect_uris=[CB]))
    status, first = _exchange(app, secret, _consent(alice, app))
    assert status == 200 and _authenticate(first["access_token"])
    assert [g.app_id for g in oauth2.grants_of(alice)] == [app.id]
    # Rotation: the old access token stops, the new one works.
    status, second = _refresh(app, secret, first["refresh_token"])
    assert status == 200 and not _authenticate(first["access_token"])
    assert _authenticate(second["access_token"])
    # Reuse of the first refresh token revokes the grant and every token.
    status, answer = _refresh(app, secret, first["refresh_token"])
    assert status == 400 and answer["error"] == "invalid_grant"
    assert not _authenticate(second["access_token"]) and oauth2.grants_of(alice) == []
    # A new grant dies with its application.
    status, third = _exchange(app, secret, _consent(alice, app))
    assert status == 200 and _authenticate(third["access_token"])
    oauth2.delete_app(alice, int(app.id))
    assert not _authenticate(third["access_token"]) and oauth2.grants_of(alice) == []
    status, answer = _refresh(app, secret, third["refresh_token"])
    assert status == 401 and answer["error"] == "invalid_client"


def test_a_user_revokes_a_grant(memory):
    alice = scene.user("alice")
    app, secret = oauth2.create_app(alice, AppOption(name="ci", redirect_uris=[CB]))
    _, tokens = _exchange(app, secret, _consent(alice, app))
    oauth2.revoke_grant(alice, int(app.id))
    assert not _authenticate(tokens["access_token"])
    with pytest.raises(NotFoundError):
        oauth2.revoke_grant(alice, int(app.id))


def test_a_code_exchanged_twice_revokes_what_it_gave(memory):
    alice = scene.user("alice")
    app, secret = oauth2.create_app(alice, AppOption(name="ci", redirect_uris=[CB]))
    code = _consent(alice, app)
    assert _exchange(app, secret, code)[0] == 200
    status, answer = _exchange(app, secret, code)
    assert status == 400 and answer["error"] == "invalid_grant"
    assert oauth2.grants_of(alice) == []


def test_the_groups_claim(memory):
    alice, bob = scene.user("alice"), scene.user("bob")
    scene.org(alice, "acme")
    public = claims.id_token_claims(alice, ["groups", "read:repository"])["groups"]
    private = claims.id_token_claims(alice, ["groups"])["groups"]
    # Alice's membership is private by default: only a grant that may read
    # organizations (here: every scope) names it.
    assert "acme" in private and "acme:owners" in private
    assert "acme" not in public
    assert claims.id_token_claims(bob, ["groups"])["groups"] == []
    profile = claims.id_token_claims(alice, ["profile", "email"])
    assert profile["preferred_username"] == "alice" and profile["email"] == "alice@example.com"


def test_a_consent_is_an_event_when_it_changes_what_the_application_holds(memory):
    """The audit log records grants (chalicelib/audit): a first consent, and one with
    other scopes, raise ``OAuth2Granted``; the same consent again raises nothing."""
    from chalicelib import events
    from chalicelib.audit import entries
    from tests.conftest import drain_outbox

    alice = scene.user("alice")
    app, _ = oauth2.create_app(alice, AppOption(name="ci", redirect_uris=[CB]))
    drain_outbox()

    def granted() -> list:
        return [e for e in drain_outbox() if isinstance(e, events.OAuth2Granted)]

    _consent(alice, app)
    [first] = granted()
    assert (first.action, first.user_id, first.app_id, first.actor_id) == (
        "created", int(alice.id), int(app.id), int(alice.id))
    entry = entries.entry_of(first)
    assert entry.action == "oauth2_grant.created" and entry.target["name"] == "ci"
    assert entry.changes == {"scope": {"before": None, "after": first.scope}}
    _consent(alice, app)
    assert granted() == []
    _consent(alice, app, scope="openid")
    [wider] = granted()
    assert (wider.action, wider.previous_scope) == ("edited", first.scope)
    assert entries.entry_of(wider).changes["scope"]["before"] == first.scope
