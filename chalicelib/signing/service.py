"""The instance's signing key and the commits it signs (``[repository.signing]``).

Key resolution follows Forgejo (``signing-quota-migrate-merge-archive.md`` §1.2), mapped
onto a serverless instance that has no gpg keyring and no git HOME:

- ``SIGNING_KEY = none``: never sign; ``/signing-key.gpg`` answers 200 with an empty body.
- ``FORMAT = ssh``: SIGNING_KEY is the path of an OpenSSH public key; the private key is
  the same path without ``.pub``.  Signatures are made in-process (``signing_ssh``).
- ``default`` (or empty) with openpgp: the instance key kept in SSM Parameter Store
  (``[aws] SIGNING_KEY_PARAMETER``, SecureString), generated on first use when absent.
  Generation is race-safe: ``put_parameter`` without ``Overwrite``; the loser of a race
  re-reads the winner's key.
- any other value with openpgp: a key id (or fingerprint); the key stored in SSM is used
  when its id matches, otherwise there is no key (Forgejo: ``gpg --export`` finds nothing).

Everything heavy (PGPy, boto3's SSM client) is imported on first use, and the resolved
key is cached in-process, so verifying a page of branches costs no AWS call per branch.
"""
from __future__ import annotations

import functools
import threading
import time
import warnings
from dataclasses import dataclass, field
from typing import Callable

from chalicelib.settings import get_settings

RULE_WORDS = ("never", "always", "pubkey", "twofa", "parentsigned", "basesigned",
              "headsigned", "commitssigned", "approved")
# How long "no key in SSM" is believed before asking again (another container may make one).
_ABSENT_TTL = 30.0


class SigningKeyError(RuntimeError):
    """The key cannot be read, generated or exported (500 with a context label)."""


@dataclass
class InstanceKey:
    format: str                 # "openpgp" | "ssh"
    key_id: str                 # openpgp: 16 upper-case hex; ssh: "SHA256:..." fingerprint
    name: str
    email: str
    public_text: str            # armored public key / authorized_keys line + "\n"
    private: object = field(default=None, repr=False)   # PGPKey | cryptography key | None
    public: object = field(default=None, repr=False)    # PGPKey (openpgp) | key blob (ssh)
    private_path: str = ""


_lock = threading.Lock()
_cache: dict[str, tuple[float, InstanceKey | None]] = {}


def reset_cache() -> None:
    with _lock:
        _cache.clear()


def parse_rules(text: str | None) -> tuple[str, ...]:
    """Forgejo's rule-list parsing: the first never/always ends the list."""
    out: list[str] = []
    for word in (text or "").split(","):
        word = word.strip().lower()
        if word in ("never", "always"):
            return (word,)
        if word in RULE_WORDS:
            out.append(word)
    return tuple(out) or ("never",)


# --- OpenPGP -----------------------------------------------------------------------------

def _pgpy():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import pgpy
    return pgpy


def _pgp_from_armor(armored: str) -> InstanceKey:
    pgpy = _pgpy()
    signing = get_settings().signing
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        key, _ = pgpy.PGPKey.from_blob(armored)
        public = key.pubkey if not key.is_public else key
        text = str(public)
    uid = key.userids[0] if key.userids else None
    return InstanceKey(format="openpgp", key_id=key.fingerprint.keyid.upper(),
                       name=signing.SIGNING_NAME or (uid.name if uid else ""),
                       email=signing.SIGNING_EMAIL or (uid.email if uid else ""),
                       public_text=text if text.endswith("\n") else text + "\n",
                       private=None if key.is_public else key, public=public)


def generate_pgp_key(name: str, email: str) -> str:
    """A new Ed25519 signing key, armored (about 450 bytes: fits a standard SSM parameter)."""
    pgpy = _pgpy()
    from pgpy.constants import (CompressionAlgorithm, EllipticCurveOID, HashAlgorithm, KeyFlags,
                                PubKeyAlgorithm, SymmetricKeyAlgorithm)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        key = pgpy.PGPKey.new(PubKeyAlgorithm.EdDSA, EllipticCurveOID.Ed25519)
        uid = pgpy.PGPUID.new(name or "Nimbus", email=email or "")
        key.add_uid(uid, usage={KeyFlags.Sign, KeyFlags.Certify},
                    hashes=[HashAlgorithm.SHA512, HashAlgorithm.SHA256],
                    ciphers=[SymmetricKeyAlgorithm.AES256],
                    compression=[CompressionAlgorithm.Uncompressed])
        return str(key)


def _load_or_create_pgp(create: bool) -> str | None:
    """The armored private key from SSM; with ``create``, generate and store one if none."""
    from chalicelib import aws

    settings = get_settings()
    name = settings.aws.SIGNING_KEY_PARAMETER
    if not create:
        return aws.read_secret(name)
    return aws.kept_secret(
        name, lambda: generate_pgp_key(settings.signing.SIGNING_NAME, settings.signing.SIGNING_EMAIL),
        "Nimbus instance OpenPGP signing key (armored)")


def _openpgp_key(create: bool) -> InstanceKey | None:
    signing = get_settings().signing
    wanted = signing.SIGNING_KEY.strip()
    cached = _cache.get("openpgp")
    if cached is not None:
        expires, key = cached
        if key is not None or (not create and time.monotonic() < expires):
            return key
    with _lock:
        try:
            armored = _load_or_create_pgp(create and wanted.lower() in ("", "default"))
            key = _pgp_from_armor(armored) if armored else None
        except SigningKeyError:
            raise
        except Exception as exc:  # noqa: BLE001 - boto/PGPy errors become one labelled kind
            raise SigningKeyError(f"cannot load the instance signing key: {exc}") from exc
        if key is not None and wanted.lower() not in ("", "default"):
            # An explicit key id: only the stored key with that id (or fingerprint) counts.
            fpr = str(key.private.fingerprint if key.private is not None
                      else key.public.fingerprint).replace(" ", "").upper()
            if not fpr.endswith(wanted.replace(" ", "").upper().removeprefix("0X")):
                key = None
        _cache["openpgp"] = (time.monotonic() + _ABSENT_TTL, key)
        return key


# --- SSH ---------------------------------------------------------------------------------

def _ssh_key() -> InstanceKey:
    cached = _cache.get("ssh")
    if cached is not None and cached[1] is not None:
        return cached[1]
    from chalicelib.accounts import parse_ssh_key
    from chalicelib.errors import InvalidInput

    signing = get_settings().signing
    path = signing.SIGNING_KEY
    try:
        with open(path, encoding="utf-8") as fh:
            parsed = parse_ssh_key(fh.read())
    except (OSError, InvalidInput, UnicodeDecodeError) as exc:
        raise SigningKeyError(f"cannot read the SSH signing key {path}: {exc}") from exc
    import base64

    key = InstanceKey(format="ssh", key_id=parsed.fingerprint, name=signing.SIGNING_NAME,
                      email=signing.SIGNING_EMAIL, public_text=parsed.content + "\n",
                      public=base64.b64decode(parsed.content.split()[1]),
                      private_path=path[:-4] if path.endswith(".pub") else path)
    with _lock:
        _cache["ssh"] = (0.0, key)
    return key


def _ssh_private(key: InstanceKey):
    if key.private is None:
        from cryptography.hazmat.primitives import serialization

        try:
            with open(key.private_path, "rb") as fh:
                key.private = serialization.load_ssh_private_key(fh.read(), password=None)
        except (OSError, ValueError, TypeError) as exc:
            raise SigningKeyError(f"cannot read the SSH private key {key.private_path}: {exc}") \
                from exc
    return key.private


# --- resolution, export, signing ---------------------------------------------------------

def ssh_configured() -> bool:
    signing = get_settings().signing
    return signing.FORMAT == "ssh" and signing.SIGNING_KEY.strip().lower() not in ("", "none")


def signing_key(*, create: bool = True) -> InstanceKey | None:
    """The key the instance signs with (None: it does not sign), per §1.2."""
    signing = get_settings().signing
    if signing.SIGNING_KEY.strip().lower() == "none":
        return None
    if signing.FORMAT == "ssh":
        return _ssh_key()
    return _openpgp_key(create)


def public_gpg_key(repo=None) -> str:
    """``/signing-key.gpg`` (and the repository's): the armored key, or "" when there is
    none.  Every repository resolves to the instance key: there is no per-repository git
    config here (the seed's rule 1 with one location)."""
    signing = get_settings().signing
    if signing.FORMAT == "ssh" or signing.SIGNING_KEY.strip().lower() == "none":
        return ""  # gpg --export of a .pub path finds nothing: 200 with an empty body
    key = signing_key(create=True)
    return key.public_text if key is not None else ""


def public_ssh_key() -> str | None:
    """``/signing-key.ssh``: the authorized_keys line, or None when SSH signing is off."""
    if not ssh_configured():
        return None
    return _ssh_key().public_text


def _actor_has_pubkey(actor) -> bool:
    from chalicelib import accounts
    from chalicelib.signing import gpg_keys

    return bool(accounts.ssh_keys_of(actor)) or gpg_keys.has_keys(actor)


def _actor_has_two_factor(actor) -> bool:
    """Forgejo's ``twofa``: the actor signs in with a second factor (the flag on their
    account: no read)."""
    from chalicelib import accounts

    return actor is not None and accounts.has_two_factor(actor)


def decide(rules: tuple[str, ...], actor) -> tuple[bool, str]:
    """(sign?, reason) for the rules understood by initial and CRUD commits."""
    for rule in rules:
        if rule == "never":
            return False, "never"
        if rule == "always":
            return True, ""
        if rule == "pubkey" and (actor is None or not _actor_has_pubkey(actor)):
            return False, "pubkey"
        if rule == "twofa" and not _actor_has_two_factor(actor):
            return False, "twofa"
    return True, ""


def sign_payload(key: InstanceKey, payload: bytes) -> bytes:
    """The signature (armored, as git stores it in ``gpgsig``) of ``payload``."""
    if key.format == "ssh":
        from chalicelib.signing import ssh as signing_ssh

        return signing_ssh.sign(_ssh_private(key), payload).encode()
    if key.private is None:
        raise SigningKeyError("the instance OpenPGP key has no private part")
    from pgpy.constants import HashAlgorithm

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        signature = key.private.sign(payload, hash=HashAlgorithm.SHA512)
    text = str(signature)
    return (text if text.endswith("\n") else text + "\n").encode()


def commit_signer(setting: str, actor=None) -> Callable[[bytes], bytes] | None:
    """What signs a commit the instance makes under ``[repository.signing] <setting>``
    (INITIAL_COMMIT, CRUD_ACTIONS, MERGES, ...) for ``actor``; None when it stays unsigned
    (no key, or the rules say no).  The signer gets the commit without ``gpgsig``, which
    is exactly what git verifies (``gitops.commits.write_commit`` calls it)."""
    key = signing_key(create=True)
    if key is None:
        return None
    ok, _reason = decide(parse_rules(getattr(get_settings().signing, setting, "never")), actor)
    if not ok:
        return None
    return functools.partial(sign_payload, key)
