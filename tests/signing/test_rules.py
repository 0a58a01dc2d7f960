"""The signing domain's rules, on the in-memory twin (the fast layer): the verification of
an unsigned, unreadable, unknown or tampered signature, users' GPG keys (what an upload
must be, whose e-mails it vouches for, one uploaded key per key id), and when the
instance's own key signs a commit it makes."""
from __future__ import annotations

import warnings

import pytest

from chalicelib import contents, signing
from chalicelib.errors import InvalidInput, NotFoundError, PermissionDenied
from chalicelib.signing import gpg_keys
from chalicelib.signing import service as instance
from chalicelib.signing import ssh as ssh_signatures
from chalicelib.signing.options import CreateGPGKeyOption
from tests import memory_scene as scene
from tests.environment import settings_env

PAYLOAD = ("tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\n"
           "author A <alice@example.com> 1 +0000\ncommitter A <alice@example.com> 1 +0000\n"
           "\nmsg\n")
SIGNING = "NIMBUS__REPOSITORY_0X2E_SIGNING__"


def pgp_key(*emails: str):
    """A new Ed25519 OpenPGP key (private) with one user id per e-mail."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import pgpy
        from pgpy.constants import EllipticCurveOID, HashAlgorithm, KeyFlags, PubKeyAlgorithm

        key = pgpy.PGPKey.new(PubKeyAlgorithm.EdDSA, EllipticCurveOID.Ed25519)
        for email in emails:
            key.add_uid(pgpy.PGPUID.new("Someone", email=email),
                        usage={KeyFlags.Sign, KeyFlags.Certify}, hashes=[HashAlgorithm.SHA256])
        return key


def pgp_sign(key, payload: str = PAYLOAD) -> str:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return str(key.sign(payload.encode()))


def upload(account, key) -> gpg_keys.GPGKeyItem:
    return gpg_keys.add_key(account, CreateGPGKeyOption(armored_public_key=str(key.pubkey)))


def key_id(key) -> str:
    return key.fingerprint.keyid.upper()


@pytest.fixture
def people(memory):
    # The instance key is cached per process; each test's twin has an empty SSM.
    instance.reset_cache()
    yield {"alice": scene.user("alice"), "bob": scene.user("bob")}
    instance.reset_cache()


def test_what_is_not_signed_by_a_known_key_is_never_verified(people):
    assert signing.verify_commit("", "", "alice@example.com") == {
        "verified": False, "reason": "gpg.error.not_signed_commit", "signature": "",
        "signer": None, "payload": ""}
    unreadable = "-----BEGIN PGP SIGNATURE-----\nnope\n-----END PGP SIGNATURE-----\n"
    assert signing.verify_commit(unreadable, PAYLOAD, "alice@example.com")["reason"] == \
        "gpg.error.extract_sign"
    bad_ssh = f"{ssh_signatures.BEGIN}\nAAAA\n{ssh_signatures.END}\n"
    assert signing.verify_commit(bad_ssh, PAYLOAD, "alice@example.com")["reason"] == \
        "gpg.error.extract_sign"
    stranger = pgp_sign(pgp_key("alice@example.com"))          # a key nobody uploaded
    result = signing.verify_commit(stranger, PAYLOAD, "alice@example.com")
    assert (result["verified"], result["reason"], result["signer"]) == (
        False, "gpg.error.no_gpg_keys_found", None)
    assert (result["signature"], result["payload"]) == (stranger, PAYLOAD)


def test_a_user_s_key_vouches_for_its_owner_s_e_mails_and_the_exact_payload(people):
    key = pgp_key("alice@example.com")
    upload(people["alice"], key)
    signature = pgp_sign(key)
    good = signing.verify_commit(signature, PAYLOAD, "Alice@Example.com")
    assert (good["verified"], good["reason"], good["signer"]) == (
        True, f"alice / {key_id(key)}",
        {"name": "alice", "email": "alice@example.com", "username": ""})
    tampered = signing.verify_commit(signature, PAYLOAD + "x", "alice@example.com")
    assert (tampered["verified"], tampered["reason"]) == (False, "gpg.error.probable_bad_signature")
    # Alice's key says nothing about bob's commits, however good the signature.
    assert signing.verify_commit(signature, PAYLOAD, "bob@example.com")["verified"] is False


def test_an_uploaded_key_must_be_a_public_key_for_one_of_the_owner_s_e_mails(people):
    alice = people["alice"]
    key = pgp_key("alice@example.com")
    refusals = [
        (None, str(key.pubkey), PermissionDenied, "token is required"),
        (alice, "  \n", InvalidInput, r"\[ArmoredKey\]: Required"),
        (alice, "garbage", InvalidInput, "failed to parse gpg key"),
        (alice, str(key), InvalidInput, "a private key was given"),
        (alice, str(pgp_key("carol@example.com").pubkey), NotFoundError,
         "none of the emails attached to the GPG key could be found"),
    ]
    for actor, armored, error, message in refusals:
        with pytest.raises(error, match=message):
            gpg_keys.add_key(actor, CreateGPGKeyOption(armored_public_key=armored))
    assert gpg_keys.list_keys(alice) == []
    both = pgp_key("alice@example.com", "someone@example.org")
    stored = upload(alice, both)
    # Only the owner's e-mails are kept: the key vouches for nothing else.
    assert (stored.key_id, stored.emails) == (key_id(both), '["alice@example.com"]')
    assert [int(k.id) for k in gpg_keys.list_keys(alice)] == [int(stored.id)]


def test_a_key_id_belongs_to_one_uploaded_key_until_it_is_deleted(people):
    alice, bob = people["alice"], people["bob"]
    shared = pgp_key("alice@example.com", "bob@example.com")
    first = upload(alice, shared)
    for uploader in (alice, bob):
        with pytest.raises(InvalidInput, match="A key with the same id already exists"):
            upload(uploader, shared)
    assert gpg_keys.list_keys(bob) == []
    gpg_keys.delete_key(alice, int(first.id))
    with pytest.raises(NotFoundError, match=f"public key does not exist \\[id: {first.id}\\]"):
        gpg_keys.get_key(alice, int(first.id))
    assert upload(bob, shared).user_id == int(bob.id)            # the id is free again
    result = signing.verify_commit(pgp_sign(shared), PAYLOAD, "bob@example.com")
    assert result["reason"] == f"bob / {key_id(shared)}"


def test_the_instance_signs_by_its_rules_and_verifies_what_it_signed(people):
    alice = people["alice"]
    assert instance.parse_rules("pubkey, TwoFA , nonsense") == ("pubkey", "twofa")
    assert instance.parse_rules("pubkey, always, twofa") == ("always",)
    assert instance.parse_rules("") == ("never",)
    sign = signing.commit_signer("INITIAL_COMMIT", alice)      # "always" by default
    result = signing.verify_commit(sign(PAYLOAD.encode()).decode(), PAYLOAD, "x@example.com")
    key = instance.signing_key(create=False)
    assert (result["verified"], result["reason"], result["signer"]["name"]) == (
        True, f"Nimbus / {key.key_id}", "Nimbus")
    # CRUD_ACTIONS "pubkey, twofa, …": a user without keys gets no signature, and no user
    # ever gets one, since nobody here has a second factor.
    assert signing.commit_signer("CRUD_ACTIONS", alice) is None
    with settings_env({f"{SIGNING}CRUD_ACTIONS": "pubkey"}):
        assert signing.commit_signer("CRUD_ACTIONS", alice) is None
        upload(alice, pgp_key("alice@example.com"))
        assert signing.commit_signer("CRUD_ACTIONS", alice) is not None
    with settings_env({f"{SIGNING}SIGNING_KEY": "none"}):
        assert signing.commit_signer("INITIAL_COMMIT", alice) is None


def test_a_repository_s_first_commit_is_signed_by_the_instance(people):
    view = scene.repo(people["alice"], "proj", auto_init=True)
    head = contents.branch_info(view.repo.id, "main")
    result = signing.verification_for_branch(head)
    assert result["verified"] is True and result["signature"].startswith(
        "-----BEGIN PGP SIGNATURE-----")
    assert result["reason"] == f"Nimbus / {instance.signing_key(create=False).key_id}"
    with settings_env({f"{SIGNING}SIGNING_KEY": "none"}):
        plain = scene.repo(people["alice"], "plain", auto_init=True)
        unsigned = signing.verification_for_branch(contents.branch_info(plain.repo.id, "main"))
    assert unsigned["reason"] == "gpg.error.not_signed_commit"
