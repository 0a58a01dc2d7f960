"""A GPG key verified by a signed token, through the API (``getVerificationToken``,
``userVerifyGPGKey``): what a client sees, with two real keys (RSA and Ed25519, made by
PGPy once for the module) and, where the machine has it, a key and a signature made by
the ``gpg`` command line as a user makes them."""
from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
import warnings

import pytest

from chalicelib import clock

GPG = shutil.which("gpg")
HEX64 = re.compile(r"^[0-9a-f]{64}$")
REFUSED = ("The provided GPG key, signature and token do not match or token is out of date. "
           "Provide a valid signature for the token: ")


def _key(kind: str, email: str):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import pgpy
        from pgpy.constants import (
            EllipticCurveOID,
            HashAlgorithm,
            KeyFlags,
            PubKeyAlgorithm,
        )

        key = pgpy.PGPKey.new(PubKeyAlgorithm.RSAEncryptOrSign, 2048) if kind == "rsa" else \
            pgpy.PGPKey.new(PubKeyAlgorithm.EdDSA, EllipticCurveOID.Ed25519)
        key.add_uid(pgpy.PGPUID.new("Alice", email=email),
                    usage={KeyFlags.Sign, KeyFlags.Certify}, hashes=[HashAlgorithm.SHA256])
        return key


@pytest.fixture(scope="module")
def keys():
    """Key A (RSA 2048) and key B (Ed25519), both for alice's address."""
    return {"A": _key("rsa", "alice@example.com"), "B": _key("ed25519", "alice@example.com")}


def sign(key, text: str) -> str:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return str(key.sign(text))


def kid(key) -> str:
    return key.fingerprint.keyid.upper()


@pytest.fixture
def people(api):
    for name in ("alice", "bob"):
        api.create_user(name)
    return {name: api.create_token(name) for name in ("alice", "bob")}


def upload(api, token: str, key) -> dict:
    made = api.post("/user/gpg_keys", token=token, json={"armored_public_key": str(key.pubkey)})
    assert made.status == 201, made
    return made.json


def token_of(api, token: str) -> str:
    got = api.get("/user/gpg_key_token", token=token)
    assert got.status == 200, got
    assert got.headers["content-type"].startswith("text/plain")
    return got.body.decode()


def verify(api, token: str, key_id, signature):
    return api.post("/user/gpg_key_verify", token=token,
                    json={"key_id": key_id, "armored_signature": signature})


def test_a_key_verified_with_a_signed_token_shows_verified_and_another_key_s_is_refused(
        api, people, keys):
    alice = people["alice"]
    a, b = upload(api, alice, keys["A"]), upload(api, alice, keys["B"])
    assert (a["verified"], b["verified"]) == (False, False)
    token = token_of(api, alice)
    assert HEX64.match(token) and token == token_of(api, alice)
    # A token signed by key B, sent for key A: refused, with the token to sign.
    wrong = verify(api, alice, kid(keys["A"]), sign(keys["B"], token))
    assert wrong.status == 422
    assert wrong.json["message"] == REFUSED + token
    assert api.get(f"/user/gpg_keys/{a['id']}", token=alice).json["verified"] is False
    # Signed by key A, as `echo TOKEN | gpg -a --detach-sig` signs it.
    done = verify(api, alice, kid(keys["A"]), sign(keys["A"], token + "\n"))
    assert done.status == 200, done
    assert done.json["id"] == a["id"] and done.json["verified"] is True
    shown = api.get(f"/user/gpg_keys/{a['id']}", token=alice).json
    assert shown == done.json
    assert shown["emails"] == [{"email": "alice@example.com", "verified": True}]
    listed = {k["key_id"]: k["verified"] for k in api.get("/user/gpg_keys", token=alice).json}
    assert listed == {kid(keys["A"]): True, kid(keys["B"]): False}
    public = api.get("/users/alice/gpg_keys").json
    assert {k["key_id"]: k["verified"] for k in public} == listed


def test_a_stale_token_is_refused_and_the_refusal_names_the_fresh_one(api, people, keys):
    alice = people["alice"]
    a = upload(api, alice, keys["A"])
    with clock.frozen() as moment:
        old = token_of(api, alice)
        moment.advance(2 * 60 + 1)
        fresh = token_of(api, alice)
        assert fresh != old
        stale = verify(api, alice, kid(keys["A"]), sign(keys["A"], old))
        assert stale.status == 422 and stale.json["message"] == REFUSED + fresh
        assert api.get(f"/user/gpg_keys/{a['id']}", token=alice).json["verified"] is False
        # The token handed out a minute ago is still good (Forgejo's "last token").
        moment.advance(60)
        assert verify(api, alice, kid(keys["A"]), sign(keys["A"], fresh)).status == 200


def test_another_user_s_key_is_not_found_and_stays_unverified(api, people, keys):
    alice, bob = people["alice"], people["bob"]
    a = upload(api, alice, keys["A"])
    # bob holds alice's private key and signs his own token with it: still her key.
    taken = verify(api, bob, kid(keys["A"]), sign(keys["A"], token_of(api, bob)))
    assert taken.status == 404 and taken.json["message"] == "The target couldn't be found."
    assert api.get(f"/user/gpg_keys/{a['id']}", token=alice).json["verified"] is False
    unknown = verify(api, alice, "DEADBEEFDEADBEEF", sign(keys["A"], token_of(api, alice)))
    assert unknown.status == 404


@pytest.mark.parametrize("body, status, message", [
    ({}, 422, "[KeyID]: Required"),
    ({"key_id": "", "armored_signature": "x"}, 422, "[KeyID]: Required"),
    ({"key_id": 5, "armored_signature": "x"}, 422, "[KeyID]: Required"),
    ({"key_id": "ABCDEF"}, 422, "[Signature]: Required"),
    ({"key_id": "ABCDEF", "armored_signature": ["x"]}, 422, "[Signature]: Required"),
    ({"key_id": "000", "armored_signature": "x"}, 404, "The target couldn't be found."),
])
def test_a_body_that_names_nothing_is_refused_in_forgejo_s_words(api, people, body, status,
                                                                  message):
    sent = api.post("/user/gpg_key_verify", token=people["alice"], json=body)
    assert (sent.status, sent.json["message"]) == (status, message)


def test_who_may_ask_for_a_token_and_verify(api, people, keys):
    upload(api, people["alice"], keys["A"])
    reader = api.create_token("alice", scopes=("read:user",), name="reader")
    other = api.create_token("alice", scopes=("read:repository",), name="other")
    assert HEX64.match(token_of(api, reader))
    assert api.get("/user/gpg_key_token", token=other).status == 403
    signed = sign(keys["A"], token_of(api, reader))
    assert verify(api, reader, kid(keys["A"]), signed).status == 403      # needs write:user
    assert verify(api, other, kid(keys["A"]), signed).status == 403
    assert api.get("/user/gpg_key_token").status == 401
    assert api.post("/user/gpg_key_verify", json={"key_id": kid(keys["A"]),
                                                  "armored_signature": signed}).status == 401
    assert api.get("/user/gpg_keys", token=reader).json[0]["verified"] is False


def test_swagger_describes_both_operations_as_forgejo_does(api):
    doc = api.get("/swagger.v1.json").json
    assert doc["paths"]["/user/gpg_key_token"]["get"]["operationId"] == "getVerificationToken"
    assert doc["paths"]["/user/gpg_key_token"]["get"]["produces"] == ["text/plain"]
    assert doc["paths"]["/user/gpg_key_verify"]["post"]["operationId"] == "userVerifyGPGKey"
    for path, method in (("/user/gpg_key_token", "get"), ("/user/gpg_key_verify", "post")):
        for answer in doc["paths"][path][method]["responses"].values():
            assert answer["$ref"].rsplit("/", 1)[1] in doc["responses"], (path, answer)
    option = doc["definitions"]["VerifyGPGKeyOption"]
    assert option["required"] == ["key_id"]
    assert set(option["properties"]) == {"key_id", "armored_signature"}


@pytest.mark.skipif(not GPG, reason="needs gpg")
def test_a_key_and_signature_made_by_the_gpg_command_line(api, people):
    alice = people["alice"]
    home = tempfile.mkdtemp(prefix="g")   # short: gpg-agent's socket path has a limit
    env = {"GNUPGHOME": home, "PATH": "/usr/bin:/bin"}
    quiet = ["--batch", "--pinentry-mode", "loopback", "--passphrase", ""]

    def gpg(*args, stdin=None):
        done = subprocess.run([GPG, *quiet, *args], env=env, input=stdin, capture_output=True,
                              text=True, timeout=60, check=False)
        assert done.returncode == 0, done.stderr
        return done.stdout

    try:
        gpg("--quick-gen-key", "Alice <alice@example.com>", "ed25519", "sign", "never")
        armored = gpg("--armor", "--export", "alice@example.com")
        key_id = next(line.split(":")[4] for line in gpg("--with-colons", "--list-keys")
                      .splitlines() if line.startswith("pub:"))
        made = api.post("/user/gpg_keys", token=alice, json={"armored_public_key": armored})
        assert made.status == 201 and made.json["key_id"] == key_id
        token = token_of(api, alice)
        signature = gpg("-a", "--default-key", key_id, "--detach-sig", stdin=token + "\n")
        done = verify(api, alice, key_id, signature)
        assert done.status == 200 and done.json["verified"] is True, done
        assert api.get(f"/user/gpg_keys/{made.json['id']}", token=alice).json["verified"]
    finally:
        subprocess.run(["gpgconf", "--kill", "gpg-agent"], env=env, capture_output=True,
                       timeout=30, check=False)
        shutil.rmtree(home, ignore_errors=True)
