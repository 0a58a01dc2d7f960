"""A GPG key verified by a signed token, on the in-memory twin (the fast layer): the
token (Forgejo's formula, its one-minute windows), which signatures verify which key
(the primary key and its subkeys, a subkey alone, never a key that may not sign, never
another key), what a refusal says, that only the caller's own key is reached, that a
key deleted meanwhile is not brought back, and that a verified key vouches for every
address of its owner when a commit is checked."""
from __future__ import annotations

import hashlib
import warnings

import pytest

from chalicelib import accounts, clock, signing
from chalicelib.errors import InvalidInput, NotFoundError
from chalicelib.signing import gpg_keys, gpg_verification
from chalicelib.signing.options import CreateGPGKeyOption, VerifyGPGKeyOption
from tests import memory_scene as scene

# Tue, 05 Mar 2024 12:00:30 UTC
NOON = 1709640030
PAYLOAD = ("tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\n"
           "author A <al@example.org> 1 +0000\ncommitter A <al@example.org> 1 +0000\n\nmsg\n")


def pgp_key(email: str, *, usage=("sign", "certify"), signing_subkey: bool = False):
    """A new Ed25519 OpenPGP key (private) for ``email``; ``usage``: the primary key's
    flags; ``signing_subkey``: with a subkey that signs."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import pgpy
        from pgpy.constants import (
            EllipticCurveOID,
            HashAlgorithm,
            KeyFlags,
            PubKeyAlgorithm,
        )

        flags = {"sign": KeyFlags.Sign, "certify": KeyFlags.Certify}
        key = pgpy.PGPKey.new(PubKeyAlgorithm.EdDSA, EllipticCurveOID.Ed25519)
        key.add_uid(pgpy.PGPUID.new("Someone", email=email),
                    usage={flags[u] for u in usage}, hashes=[HashAlgorithm.SHA256])
        if signing_subkey:
            sub = pgpy.PGPKey.new(PubKeyAlgorithm.EdDSA, EllipticCurveOID.Ed25519)
            key.add_subkey(sub, usage={KeyFlags.Sign})
        return key


def sign(key, text: str) -> str:
    """An armored detached signature over ``text`` by ``key`` (a primary or a subkey)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return str(key.sign(text))


def kid(key) -> str:
    return key.fingerprint.keyid.upper()


def subkey_of(key):
    return next(iter(key.subkeys.values()))


def upload(account, key):
    return gpg_keys.add_key(account, CreateGPGKeyOption(armored_public_key=str(key.pubkey)))


def verify(account, key_id, signature):
    return signing.verify_gpg_key(account, VerifyGPGKeyOption(key_id=key_id,
                                                              armored_signature=signature))


def stored(account, item):
    return gpg_keys.get_key(account, int(item.id))


@pytest.fixture
def people(memory):
    return {"alice": scene.user("alice"), "bob": scene.user("bob")}


@pytest.fixture
def noon():
    with clock.frozen(NOON) as moment:
        yield moment


def test_the_token_is_forgejo_s_hash_of_the_next_window_and_the_account(people, noon):
    alice = people["alice"]
    created = gpg_verification.rfc1123z(int(alice.created))
    expected = hashlib.sha256(
        f"Tue, 05 Mar 2024 12:01:00 +0000:{created}:alice:alice@example.com:{alice.id}"
        .encode()).hexdigest()
    assert signing.gpg_verification_token(alice) == expected
    current = hashlib.sha256(
        f"Tue, 05 Mar 2024 12:00:00 +0000:{created}:alice:alice@example.com:{alice.id}"
        .encode()).hexdigest()
    assert gpg_verification.accepted_tokens(alice) == (expected, current)
    assert signing.gpg_verification_token(people["bob"]) != expected
    noon.advance(29)                                       # 12:00:59: the same window
    assert signing.gpg_verification_token(alice) == expected
    noon.advance(1)                                        # 12:01:00: the next one
    assert signing.gpg_verification_token(alice) != expected
    assert gpg_verification.rfc1123z(0) == "Thu, 01 Jan 1970 00:00:00 +0000"


def test_a_signed_token_verifies_the_key_and_only_that_key(people, noon):
    alice = people["alice"]
    key, other = pgp_key("alice@example.com"), pgp_key("alice@example.com")
    item, spare = upload(alice, key), upload(alice, other)
    token = signing.gpg_verification_token(alice)
    # Signed by another key (one of hers, even): refused with Forgejo's message.
    with pytest.raises(InvalidInput) as refused:
        verify(alice, kid(key), sign(other, token))
    assert refused.value.message == (
        "The provided GPG key, signature and token do not match or token is out of date. "
        f"Provide a valid signature for the token: {token}")
    assert not stored(alice, item).verified
    done = verify(alice, kid(key), sign(key, token + "\n"))     # as `echo TOKEN | gpg` signs
    assert done.subkey_id is None and done.item.verified
    assert stored(alice, item).verified and not stored(alice, spare).verified
    record = signing.gpg_key_record(stored(alice, item))
    assert record["verified"] is True and record["emails"] == [
        {"email": "alice@example.com", "verified": True}]
    # Verifying again is no error, as in Forgejo.
    assert verify(alice, kid(key).lower(), sign(key, token)).item.verified


@pytest.mark.parametrize("signed", ["{t}", "{t}\n", "{t}\n\n"])
def test_the_token_may_be_followed_by_one_or_two_newlines(people, noon, signed):
    key = pgp_key("alice@example.com")
    upload(people["alice"], key)
    token = signing.gpg_verification_token(people["alice"])
    assert verify(people["alice"], kid(key), sign(key, signed.format(t=token))).item.verified


@pytest.mark.parametrize("signed", [lambda t: t + "\n\n\n", lambda t: " " + t,
                                    lambda t: t + "x", str.upper, lambda t: t + "\r\n"])
def test_anything_else_than_the_token_is_refused(people, noon, signed):
    key = pgp_key("alice@example.com")
    item = upload(people["alice"], key)
    token = signing.gpg_verification_token(people["alice"])
    with pytest.raises(InvalidInput, match="do not match or token is out of date"):
        verify(people["alice"], kid(key), sign(key, signed(token)))
    assert not stored(people["alice"], item).verified


def test_a_token_holds_for_its_window_and_the_one_before_then_is_stale(people, noon):
    alice = people["alice"]
    keys = [pgp_key("alice@example.com") for _ in range(3)]
    items = [upload(alice, k) for k in keys]
    token = signing.gpg_verification_token(alice)             # read at 12:00:30
    noon.advance(89)                                          # 12:01:59: the current window's
    assert verify(alice, kid(keys[0]), sign(keys[0], token)).item.verified
    noon.advance(1)                                           # 12:02:00: stale
    fresh = signing.gpg_verification_token(alice)
    with pytest.raises(InvalidInput) as refused:
        verify(alice, kid(keys[1]), sign(keys[1], token))
    assert refused.value.message.endswith(f"for the token: {fresh}")
    assert not stored(alice, items[1]).verified
    assert verify(alice, kid(keys[1]), sign(keys[1], fresh)).item.verified
    # A token of a window ahead of the next one is not accepted either.
    noon.advance(-120)
    with pytest.raises(InvalidInput):
        verify(alice, kid(keys[2]), sign(keys[2], fresh))


def test_subkeys_the_primary_s_id_takes_them_a_subkey_s_id_takes_it_alone(people, noon):
    alice = people["alice"]
    key = pgp_key("alice@example.com", signing_subkey=True)
    item = upload(alice, key)
    sub = subkey_of(key)
    token = signing.gpg_verification_token(alice)
    # The subkey's id: the primary key's signature is not the subkey's.
    with pytest.raises(InvalidInput):
        verify(alice, kid(sub), sign(key, token))
    done = verify(alice, kid(sub), sign(sub, token))
    assert done.subkey_id == kid(sub)
    now = stored(alice, item)
    record = signing.gpg_key_record(now)
    assert (record["verified"], record["subkeys"][0]["verified"]) == (False, True)
    # The primary key's id: a signature by its subkey counts (Forgejo's
    # hashAndVerifyWithSubKeys); the primary is marked, the subkeys stay as they were.
    other = pgp_key("alice@example.com", signing_subkey=True)
    other_item = upload(alice, other)
    assert verify(alice, kid(other), sign(subkey_of(other), token)).subkey_id is None
    record = signing.gpg_key_record(stored(alice, other_item))
    assert (record["verified"], record["subkeys"][0]["verified"]) == (True, False)


def test_a_key_whose_flags_say_it_cannot_sign_verifies_nothing(people, noon):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import pgpy
        from pgpy.constants import HashAlgorithm, KeyFlags

        key = pgp_key("alice@example.com", usage=("certify",))
        # The same key material under a user id that lets it sign: the signature is sound.
        signer = pgpy.PGPKey.from_blob(str(key))[0]
        signer.add_uid(pgpy.PGPUID.new("Other", email="other@example.com"), primary=True,
                       usage={KeyFlags.Sign, KeyFlags.Certify}, hashes=[HashAlgorithm.SHA256])
    item = upload(people["alice"], key)
    assert not item.can_sign
    token = signing.gpg_verification_token(people["alice"])
    with pytest.raises(InvalidInput):
        verify(people["alice"], kid(key), sign(signer, token))
    assert not stored(people["alice"], item).verified


@pytest.mark.parametrize("key_id, signature, kind, message", [
    ("", "sig", InvalidInput, r"^\[KeyID\]: Required$"),
    ("  ", "sig", InvalidInput, r"^\[KeyID\]: Required$"),
    (None, "sig", InvalidInput, r"^\[KeyID\]: Required$"),
    ("ABCD", "", InvalidInput, r"^\[Signature\]: Required$"),
    ("ABCD", None, InvalidInput, r"^\[Signature\]: Required$"),
    ("0000", "sig", NotFoundError, "GPG key does not exist"),
    ("not-hex", "sig", NotFoundError, "GPG key does not exist"),
    ("1" * 17, "sig", NotFoundError, "GPG key does not exist"),
    ("DEADBEEFDEADBEEF", "sig", NotFoundError, "GPG key does not exist"),
])
def test_what_names_no_key_of_the_caller_is_refused(people, key_id, signature, kind, message):
    with pytest.raises(kind, match=message):
        verify(people["alice"], key_id, signature)


def test_only_the_caller_s_own_key_is_reached(people, noon):
    alice, bob = people["alice"], people["bob"]
    key = pgp_key("alice@example.com")
    item = upload(alice, key)
    # bob signs alice's token with her key (say he has it): still not his key.
    with pytest.raises(NotFoundError):
        verify(bob, kid(key), sign(key, signing.gpg_verification_token(bob)))
    assert not stored(alice, item).verified
    # A signature that does not parse is Forgejo's invalid signature, on her own key.
    with pytest.raises(InvalidInput, match="do not match"):
        verify(alice, kid(key), "-----BEGIN PGP SIGNATURE-----\nnope\n-----END PGP SIGNATURE-----")
    # Leading zeros are dropped and put back, case does not matter.
    assert verify(alice, "000" + kid(key).lower(), sign(key, signing.gpg_verification_token(
        alice))).item.verified


def test_a_key_deleted_while_it_is_checked_is_not_brought_back(people, noon, monkeypatch):
    alice = people["alice"]
    key = pgp_key("alice@example.com")
    item = upload(alice, key)
    real = gpg_verification.signed_by

    def deleted_meanwhile(*args):
        gpg_keys.delete_key(alice, int(item.id))
        return real(*args)

    monkeypatch.setattr(gpg_verification, "signed_by", deleted_meanwhile)
    with pytest.raises(NotFoundError):
        verify(alice, kid(key), sign(key, signing.gpg_verification_token(alice)))
    assert gpg_keys.list_keys(alice) == []
    assert gpg_keys.keys_by_ids([kid(key)]) == {}
    with pytest.raises(NotFoundError):
        gpg_keys.get_key(alice, int(item.id))


def test_a_verified_key_vouches_for_every_address_of_its_owner(people, noon):
    alice = people["alice"]
    accounts.add_addresses(alice, ["al@example.org"])
    key = pgp_key("alice@example.com", signing_subkey=True)
    upload(alice, key)
    by_primary, by_subkey = sign(key, PAYLOAD), sign(subkey_of(key), PAYLOAD)
    # Before: the key's user id names alice@example.com only.
    for signature in (by_primary, by_subkey):
        assert signing.verify_commit(signature, PAYLOAD, "al@example.org")["reason"] == \
            "gpg.error.probable_bad_signature"
    token = signing.gpg_verification_token(alice)
    verify(alice, kid(subkey_of(key)), sign(subkey_of(key), token))
    # The subkey is verified: its signatures vouch for her other address, the primary's not.
    assert signing.verify_commit(by_subkey, PAYLOAD, "al@example.org")["verified"] is True
    assert signing.verify_commit(by_primary, PAYLOAD, "al@example.org")["verified"] is False
    verify(alice, kid(key), sign(key, token))
    result = signing.verify_commit(by_primary, PAYLOAD, "al@example.org")
    assert (result["verified"], result["reason"]) == (True, f"alice / {kid(key)}")
    # Not an address of someone else's.
    assert signing.verify_commit(by_primary, PAYLOAD, "bob@example.com")["verified"] is False
