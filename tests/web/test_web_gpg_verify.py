"""The "Verify" form of an unverified GPG key on the keys settings page
(chalicelib/web/settings_user_keys), in-process through the gateway: the page shows
the token to sign, a signature by the key verifies it (the API then says so), anything
else is refused beside that key's signature field with what was sent kept, and only the
caller's own key is reached."""
from __future__ import annotations

import html
import re
import warnings

import pytest

from tests.web.test_web_actions import WebUser, error_shown, field_error_shown, text


def gpg_key(email: str):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import pgpy
        from pgpy.constants import (
            EllipticCurveOID,
            HashAlgorithm,
            KeyFlags,
            PubKeyAlgorithm,
        )

        key = pgpy.PGPKey.new(PubKeyAlgorithm.EdDSA, EllipticCurveOID.Ed25519)
        key.add_uid(pgpy.PGPUID.new("Someone", email=email),
                    usage={KeyFlags.Sign, KeyFlags.Certify}, hashes=[HashAlgorithm.SHA256])
        return key


def sign(key, text_: str) -> str:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return str(key.sign(text_))


@pytest.fixture
def people(api):
    for name in ("alice", "bob"):
        api.create_user(name)
    return {"token": api.create_token("alice"), "alice": WebUser(api).sign_in("alice"),
            "bob": WebUser(api).sign_in("bob")}


def shown_token(page) -> str:
    found = re.search(r'<code class="mono gpg-token">([0-9a-f]{64})</code>', text(page))
    assert found, "no token on the page"
    return found.group(1)


def verify_form(page, key_id: str) -> bool:
    return f'<input type="hidden" name="key_id" value="{key_id}">' in text(page)


def test_the_verify_form_verifies_a_key_with_its_signed_token(api, people):
    alice, token = people["alice"], people["token"]
    key, other = gpg_key("alice@example.com"), gpg_key("alice@example.com")
    for k in (key, other):
        assert alice.post("/user/settings/keys", {"type": "gpg",
                                                  "content": str(k.pubkey)}).status == 303
    kid = key.fingerprint.keyid.upper()
    page = alice.get("/user/settings/keys")
    assert verify_form(page, kid) and "Not verified" in text(page)
    signed_token = shown_token(page)
    assert signed_token == api.get("/user/gpg_key_token", token=token).body.decode()
    assert f'--default-key {kid} --detach-sig' in text(page)
    # Signed by the other key: refused beside this key's signature field, the form open
    # with what was sent.
    wrong = sign(other, signed_token)
    refused = alice.post("/user/settings/keys", {"type": "verify_gpg", "key_id": kid,
                                                 "signature": wrong})
    assert refused.status == 422
    assert field_error_shown(refused, f"gpg_signature_{kid}", "do not match")
    assert html.escape(wrong) in text(refused) and '<details class="gpg-verify" open>' in \
        text(refused)
    assert not any(k["verified"] for k in api.get("/user/gpg_keys", token=token).json)
    # Signed by the key itself.
    done = alice.post("/user/settings/keys", {"type": "verify_gpg", "key_id": kid,
                                              "signature": sign(key, signed_token + "\n")})
    assert done.status == 303 and done.headers["location"] == "/user/settings/keys"
    verified = {k["key_id"]: k["verified"] for k in api.get("/user/gpg_keys", token=token).json}
    assert verified == {kid: True, other.fingerprint.keyid.upper(): False}
    page = alice.get("/user/settings/keys")
    assert "Verified</span>" in text(page) and not verify_form(page, kid)
    assert verify_form(page, other.fingerprint.keyid.upper())


def test_the_verify_form_reaches_only_the_caller_s_keys_and_needs_its_token(api, people):
    alice, bob, token = people["alice"], people["bob"], people["token"]
    key = gpg_key("alice@example.com")
    assert alice.post("/user/settings/keys", {"type": "gpg",
                                              "content": str(key.pubkey)}).status == 303
    kid = key.fingerprint.keyid.upper()
    # bob (no key of his own: no form, no token on his page) signs his token with her key.
    bobs_token = api.get("/user/gpg_key_token", token=api.create_token("bob")).body.decode()
    signed = sign(key, bobs_token)
    assert bob.post("/user/settings/keys", {"type": "verify_gpg", "key_id": kid,
                                            "signature": signed}).status == 404
    signed = sign(key, shown_token(alice.get("/user/settings/keys")))
    assert alice.post("/user/settings/keys", {"type": "verify_gpg", "key_id": kid,
                                              "signature": signed}, csrf=None).status == 403
    blank = alice.post("/user/settings/keys", {"type": "verify_gpg", "key_id": "",
                                               "signature": signed})
    assert blank.status == 422 and error_shown(blank, "[KeyID]: Required")
    unsigned = alice.post("/user/settings/keys", {"type": "verify_gpg", "key_id": kid,
                                                  "signature": " "})
    assert unsigned.status == 422
    assert field_error_shown(unsigned, f"gpg_signature_{kid}", "[Signature]: Required")
    assert api.get("/user/gpg_keys", token=token).json[0]["verified"] is False


@pytest.mark.parametrize("fields, status", [
    ({"key_id": "", "signature": ""}, 422),
    ({"key_id": "x" * 65536, "signature": "x" * 65536}, 422),
    ({"key_id": "999999999", "signature": "999999999"}, 404),
])
def test_bad_input_answers_a_page_never_a_server_error(api, people, fields, status):
    key = gpg_key("alice@example.com")
    people["alice"].post("/user/settings/keys", {"type": "gpg", "content": str(key.pubkey)})
    sent = people["alice"].post("/user/settings/keys", {"type": "verify_gpg", **fields})
    assert sent.status == status and "<html" in text(sent)
    assert api.get("/user/gpg_keys", token=people["token"]).json[0]["verified"] is False
