"""Request bodies the GPG key rule answered before the edge checked bodies, answered the
same way now: a key that is not a text is "[ArmoredKey]: Required", and the signature
(read by no rule) takes any value."""
from __future__ import annotations

import pytest

from tests.signing import test_signing


@pytest.fixture
def api(fast_api):
    """These texts are the rules' and need no moto: the in-memory twin (the fast layer)."""
    return fast_api

alice = test_signing.alice     # the fixture: alice's token


@pytest.mark.parametrize("key", [1, True, ["x"], {"armored": "x"}])
def test_a_key_that_is_not_a_text_is_required(api, alice, key):
    r = api.post("/user/gpg_keys", token=alice, json={"armored_public_key": key})
    assert r.status == 422, r
    assert r.json["message"] == "[ArmoredKey]: Required"


@pytest.mark.parametrize("signature", [1, False, ["x"], {"a": 1}])
def test_a_signature_of_any_type_is_ignored(api, alice, signature):
    key = test_signing._user_pgp_key("alice@example.com")
    r = api.post("/user/gpg_keys", token=alice, json={"armored_public_key": str(key.pubkey),
                                                      "armored_signature": signature})
    assert r.status == 201, r
    assert r.json["key_id"] == key.fingerprint.keyid.upper()
