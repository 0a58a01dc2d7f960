"""The ``verification`` object of commit records (PayloadCommitVerification), computed the
way Forgejo does (``signing-quota-migrate-merge-archive.md`` §1.6) for OpenPGP and SSH
signatures, against the instance key, users' GPG keys and users' SSH keys.

Cost: an unsigned commit costs nothing.  The instance key is cached in-process (one SSM
read per container), and results for it are memoised, so a page of instance-signed
branches costs no AWS call.  Users' keys are read through the unit of work:
``prefetch(infos)`` reads what a whole page needs in two batched reads.
"""
from __future__ import annotations

import functools
import warnings

NOT_SIGNED = "gpg.error.not_signed_commit"
EXTRACT_SIGN = "gpg.error.extract_sign"
NO_KEYS = "gpg.error.no_gpg_keys_found"
BAD_SIGNATURE = "gpg.error.probable_bad_signature"
NO_COMMITTER = "gpg.error.no_committer_account"
SSH_BEGIN = "-----BEGIN SSH SIGNATURE-----"


def _result(verified: bool, reason: str, signature: str, payload: str,
            signer: dict | None = None) -> dict:
    return {"verified": verified, "reason": reason, "signature": signature,
            "signer": signer, "payload": payload}


def _signer(name: str, email: str) -> dict:
    return {"name": name, "email": email, "username": ""}


@functools.lru_cache(maxsize=512)
def _pgp_issuer(signature: str) -> str | None:
    """The issuer key id of an armored OpenPGP signature (None: unparsable)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import pgpy

        try:
            sig = pgpy.PGPSignature.from_blob(signature)
        except Exception:  # noqa: BLE001 - PGPy raises many kinds on bad input
            return None
        return (sig.signer or "").upper()


def _pgp_ok(public, signature: str, payload: bytes) -> bool:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import pgpy

        try:
            sig = pgpy.PGPSignature.from_blob(signature)
            return bool(public.verify(payload, sig))
        except Exception:  # noqa: BLE001 - a key that cannot verify is a failed check
            return False


@functools.lru_cache(maxsize=1024)
def _instance_pgp_ok(key_id: str, signature: str, payload: bytes) -> bool:
    from chalicelib.signing import service as signing

    key = signing.signing_key(create=False)
    return key is not None and key.key_id == key_id and _pgp_ok(key.public, signature, payload)


@functools.lru_cache(maxsize=256)
def _parse_armored_public(armored: str):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import pgpy

        key, _ = pgpy.PGPKey.from_blob(armored)
        return key


def _committer_account(email: str):
    """(account or None, lookup failed?) for a committer e-mail."""
    from chalicelib import accounts

    if not email:
        return None, False
    try:
        return accounts.accounts_by_email([email]).get(email.lower()), False
    except Exception:  # noqa: BLE001 - Forgejo: a DB error other than not-found
        return None, True


def _instance_key():
    from chalicelib.signing import service as signing

    try:
        return signing.signing_key(create=False)
    except signing.SigningKeyError:
        return None


def _owner_vouched(item, issuer: str, email: str) -> bool:
    """A key verified by a signed token (the primary key, or the subkey that signed)
    vouches for every address of its owner, not only those its user ids name (Forgejo's
    ``checkKeyEmails``): the address's claim (read with the page's e-mails) names the
    key's owner."""
    import json

    verified = bool(item.verified) or any(
        sub.get("verified") and sub["key_id"] == issuer for sub in json.loads(item.subkeys))
    if not verified:
        return False
    owner, _ = _committer_account(email)
    return owner is not None and int(owner.id) == int(item.user_id)


def verify_gpg(signature: str, payload: str, committer_email: str) -> dict:
    data = payload.encode("utf-8")
    issuer = _pgp_issuer(signature)
    if issuer is None:
        return _result(False, EXTRACT_SIGN, signature, payload)
    bad = False
    # The instance key first when the issuer is its id: no table read for the commits the
    # instance made itself (Forgejo looks in its table first; the instance key is never there).
    key = _instance_key()
    if key is not None and key.format == "openpgp" and key.key_id == issuer:
        if _instance_pgp_ok(key.key_id, signature, data):
            return _result(True, f"{key.name} / {key.key_id}", signature, payload,
                           _signer(key.name, key.email))
        bad = True
    # Step 5: a user's key with this id (primary or subkey) vouching for the committer e-mail.
    from chalicelib.signing import gpg_keys

    try:
        item = gpg_keys.keys_by_ids([issuer]).get(issuer)
    except Exception:  # noqa: BLE001
        item = None
    if item is not None:
        import json

        emails = json.loads(item.emails)
        if committer_email.lower() in emails or _owner_vouched(item, issuer, committer_email):
            key = _parse_armored_public(item.content)
            candidates = [key, *key.subkeys.values()]
            if any(_pgp_ok(k, signature, data) for k in candidates
                   if k.fingerprint.keyid.upper() == issuer):
                from chalicelib import accounts

                owner = accounts.account_by_id(int(item.user_id))
                name = owner.login if owner is not None else ""
                return _result(True, f"{name} / {item.key_id}", signature, payload,
                               _signer(name, committer_email.lower()))
        bad = True
    return _result(False, BAD_SIGNATURE if bad else NO_KEYS, signature, payload)


def verify_ssh(signature: str, payload: str, committer_email: str) -> dict:
    from chalicelib.signing import ssh as signing_ssh

    data = payload.encode("utf-8")
    try:
        blob = signing_ssh.verify(signature, data)
    except signing_ssh.SshSigError:
        return _result(False, EXTRACT_SIGN, signature, payload)
    if blob is None:
        return _result(False, NO_KEYS, signature, payload)
    fingerprint = signing_ssh.fingerprint(blob)
    # Users' SSH keys: the committer's account must own the signing key.
    account, _ = _committer_account(committer_email)
    if account is not None and committer_email.lower() == (account.email or "").lower():
        from chalicelib import accounts

        if accounts.key_holder(fingerprint) == int(account.id):
            return _result(True, f"{account.login} / {fingerprint}", signature, payload,
                           _signer(account.login, committer_email))
    key = _instance_key()
    if key is not None and key.format == "ssh" and key.key_id == fingerprint:
        return _result(True, f"{key.name} / {fingerprint}", signature, payload,
                       _signer(key.name, key.email))
    return _result(False, NO_KEYS, signature, payload)


def verify(signature: str, payload: str, committer_email: str) -> dict:
    """PayloadCommitVerification for a signed object's signature and payload."""
    if not signature:
        return _result(False, NOT_SIGNED, "", "")
    if signature.lstrip().startswith(SSH_BEGIN):
        return verify_ssh(signature, payload, committer_email)
    return verify_gpg(signature, payload, committer_email)


def for_branch(info) -> dict:
    """The verification of a BranchInfo's head commit."""
    if not info.signature:
        return _result(False, NOT_SIGNED, "", "")
    return verify(info.signature, info.signed_payload, info.committer_email)


def prefetch(infos) -> None:
    """Read what verifying these branches needs in batched reads (call before records)."""
    from chalicelib import accounts
    from chalicelib.signing import gpg_keys

    signed = [i for i in infos if i.signature]
    if not signed:
        return
    issuers = [_pgp_issuer(i.signature) for i in signed
               if not i.signature.lstrip().startswith(SSH_BEGIN)]
    gpg_keys.keys_by_ids(k for k in issuers if k)
    accounts.prefetch_emails(i.committer_email for i in signed)
