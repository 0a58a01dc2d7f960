"""Events of the accounts area: every API write of users, tokens, SSH and GPG keys
raises its event in the same commit, naming the actor and the change; a refused write
raises none and leaves nothing behind."""
from __future__ import annotations

import warnings

import pytest

from chalicelib import events
from tests.conftest import ADMIN, drain_outbox, search_paused
from tests.accounts.test_users import ssh_key


@pytest.fixture
def quiet(api):
    """The api with the outbox emptied of the set-up's events (the admin's creation)."""
    drain_outbox()
    return api


def _only(kind):
    found = drain_outbox()
    assert [type(e) for e in found] == [kind], found
    assert found[0].event_id and found[0].occurred_at
    return found[0]


def _assert_actor(event, login: str) -> None:
    assert event.actor["login"] == login and event.actor_id == event.actor["id"]
    assert "password_hash" not in event.actor and "kind" not in event.actor


def _pgp_public_key(email: str) -> str:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import pgpy
        from pgpy.constants import EllipticCurveOID, HashAlgorithm, KeyFlags, PubKeyAlgorithm

        key = pgpy.PGPKey.new(PubKeyAlgorithm.EdDSA, EllipticCurveOID.Ed25519)
        key.add_uid(pgpy.PGPUID.new("Events", email=email), hashes=[HashAlgorithm.SHA256],
                    usage={KeyFlags.Sign, KeyFlags.Certify})
        return str(key.pubkey)


def test_admin_user_writes(quiet):
    api = quiet
    created = api.create_user("eve")
    event = _only(events.UserCreated)
    _assert_actor(event, ADMIN[0])
    assert (event.user_id, event.login) == (created["id"], "eve")

    assert api.patch("/admin/users/eve", auth=ADMIN, json={
        "full_name": "Eve E", "email": "eve2@example.com", "password": "eve-password-2",
        "admin": False}).status == 200
    event = _only(events.UserEdited)
    _assert_actor(event, ADMIN[0])
    assert event.user_id == created["id"]
    assert event.changed == ("full_name", "email", "password")    # "admin" did not change
    assert api.patch("/admin/users/eve", auth=ADMIN, json={"full_name": "Eve E"}).status == 200
    assert drain_outbox() == []                                     # nothing changed

    assert api.delete("/admin/users/eve", auth=ADMIN).status == 204
    event = _only(events.UserDeleted)
    _assert_actor(event, ADMIN[0])
    assert (event.user_id, event.login) == (created["id"], "eve")


def test_refused_user_writes_raise_nothing(quiet):
    api = quiet
    api.create_user("dup")
    drain_outbox()
    base = {"password": "dup-password-1"}
    taken_name = api.post("/admin/users", auth=ADMIN, json={
        **base, "username": "DUP", "email": "other@example.com"})
    assert taken_name.status == 422 and "user already exists" in taken_name.json["message"]
    taken_mail = api.post("/admin/users", auth=ADMIN, json={
        **base, "username": "dup2", "email": "DUP@example.com"})
    assert taken_mail.status == 422 and "e-mail already in use" in taken_mail.json["message"]
    api.create_user("other")
    drain_outbox()
    clash = api.patch("/admin/users/other", auth=ADMIN, json={"email": "dup@example.com"})
    assert clash.status == 422 and "e-mail already in use" in clash.json["message"]
    assert drain_outbox() == []
    # The refused creation claimed nothing: its e-mail and name are still free.
    assert api.post("/admin/users", auth=ADMIN, json={
        **base, "username": "dup2", "email": "dup2@example.com"}).status == 201


def test_token_writes(quiet):
    api = quiet
    user = api.create_user("tia", password="tia-password")
    drain_outbox()
    r = api.post("/users/tia/tokens", auth=("tia", "tia-password"),
                 json={"name": "ci", "scopes": ["read:user"]})
    assert r.status == 201
    event = _only(events.TokenCreated)
    _assert_actor(event, "tia")
    assert (event.user_id, event.token_id) == (user["id"], r.json["id"])
    assert "sha1" not in event.actor and r.json["sha1"] not in repr(event)

    again = api.post("/users/tia/tokens", auth=("tia", "tia-password"),
                     json={"name": "ci", "scopes": ["all"]})
    assert again.status == 400 and drain_outbox() == []

    by_admin = api.post("/users/tia/tokens", auth=ADMIN, json={"name": "ops", "scopes": ["all"]})
    event = _only(events.TokenCreated)
    _assert_actor(event, ADMIN[0])
    assert (event.user_id, event.token_id) == (user["id"], by_admin.json["id"])

    assert api.delete("/users/tia/tokens/ci", auth=("tia", "tia-password")).status == 204
    event = _only(events.TokenDeleted)
    _assert_actor(event, "tia")
    assert (event.user_id, event.token_id) == (user["id"], r.json["id"])
    assert api.get("/user", token=r.json["sha1"]).status == 401


def test_ssh_key_writes(quiet):
    api = quiet
    user = api.create_user("kim")
    token = api.create_token("kim")
    drain_outbox()
    by_admin = api.post("/admin/users/kim/keys", auth=ADMIN, json={"title": "a", "key": ssh_key()})
    assert by_admin.status == 201
    event = _only(events.PublicKeyAdded)
    _assert_actor(event, ADMIN[0])
    assert (event.user_id, event.key_id) == (user["id"], by_admin.json["id"])

    line = ssh_key()
    own = api.post("/user/keys", token=token, json={"title": "b", "key": line})
    assert own.status == 201
    event = _only(events.PublicKeyAdded)
    _assert_actor(event, "kim")
    assert event.key_id == own.json["id"]
    assert api.post("/user/keys", token=token, json={"title": "c", "key": line}).status == 422
    assert drain_outbox() == []

    assert api.delete(f"/user/keys/{own.json['id']}", token=token).status == 204
    event = _only(events.PublicKeyDeleted)
    _assert_actor(event, "kim")
    assert (event.user_id, event.key_id) == (user["id"], own.json["id"])
    assert api.delete(f"/admin/users/kim/keys/{by_admin.json['id']}", auth=ADMIN).status == 204
    event = _only(events.PublicKeyDeleted)
    _assert_actor(event, ADMIN[0])
    assert event.key_id == by_admin.json["id"]
    # Deleting freed the fingerprint: the same key can be added again.
    assert api.post("/user/keys", token=token, json={"title": "d", "key": line}).status == 201


def test_gpg_key_writes(quiet):
    api = quiet
    user = api.create_user("gil")
    token = api.create_token("gil")
    armored = _pgp_public_key("gil@example.com")
    drain_outbox()
    r = api.post("/user/gpg_keys", token=token, json={"armored_public_key": armored})
    assert r.status == 201
    event = _only(events.GpgKeyAdded)
    _assert_actor(event, "gil")
    assert (event.user_id, event.key_id) == (user["id"], r.json["id"])
    assert api.post("/user/gpg_keys", token=token,
                    json={"armored_public_key": armored}).status == 422
    assert drain_outbox() == []

    assert api.delete(f"/user/gpg_keys/{r.json['id']}", token=token).status == 204
    event = _only(events.GpgKeyDeleted)
    _assert_actor(event, "gil")
    assert (event.user_id, event.key_id) == (user["id"], r.json["id"])
    assert api.post("/user/gpg_keys", token=token,
                    json={"armored_public_key": armored}).status == 201


def test_user_deletion_is_one_commit_and_frees_every_claim(quiet):
    from chalicelib import aws

    api = quiet
    api.create_user("zed")
    token = api.create_token("zed")
    line = ssh_key()
    armored = _pgp_public_key("zed@example.com")
    assert api.post("/user/keys", token=token, json={"title": "k", "key": line}).status == 201
    assert api.post("/user/gpg_keys", token=token,
                    json={"armored_public_key": armored}).status == 201
    drain_outbox()

    writes: list[str] = []
    counting = [True]

    def count_writes(model, **_) -> None:    # a hook returning a value would answer the call
        if counting[0] and model.name.startswith(("Transact", "Put", "Update", "Delete",
                                                  "BatchWrite")):
            writes.append(model.name)

    aws.add_call_hook(count_writes)
    with search_paused():
        assert api.delete("/admin/users/zed", auth=ADMIN).status == 204
    counting[0] = False
    assert writes == ["TransactWriteItems"]
    _only(events.UserDeleted)

    assert api.get("/user", token=token).status == 401
    # Name, e-mail, SSH fingerprint and GPG key ids are free for the next account.
    api.create_user("zed")
    again = api.create_token("zed")
    assert api.post("/user/keys", token=again, json={"title": "k", "key": line}).status == 201
    assert api.post("/user/gpg_keys", token=again,
                    json={"armored_public_key": armored}).status == 201


def test_cli_writes_name_the_operator(quiet, capsys):
    from chalicelib import cli

    assert cli.main(["--aws", "admin", "user", "create", "--username", "ops", "--password",
                     "ops-password", "--email", "ops@example.com"]) == 0
    event = _only(events.UserCreated)
    assert event.actor_id is None and event.actor == {} and event.login == "ops"
    assert cli.main(["--aws", "admin", "user", "generate-access-token", "--username",
                     "ops"]) == 0
    event = _only(events.TokenCreated)
    _assert_actor(event, "ops")


def test_deleting_a_user_past_the_transaction_limit_removes_everything(quiet):
    from chalicelib.accounts import service as accounts
    from chalicelib.accounts import tokens
    from chalicelib.accounts import token_store
    from chalicelib.accounts.options import CreateAccessTokenOption

    api = quiet
    api.create_user("many")
    user = accounts.get_user("many")
    secrets = [tokens.create_token(user, "many",
                                   CreateAccessTokenOption(name=f"t{n}", scopes=["all"]))[1]
               for n in range(60)]     # 120 items: the deletion takes two transactions
    drain_outbox()
    assert api.delete("/admin/users/many", auth=ADMIN).status == 204
    assert [type(e) for e in drain_outbox()] == [events.UserDeleted]
    assert tokens.lookup(secrets[0]) is None and tokens.lookup(secrets[-1]) is None
    assert token_store.list_for_user(int(user.id)) == []
