"""Users' SSH public keys: parsing with ``cryptography``, fingerprints, ownership."""
from __future__ import annotations

import base64
import binascii
import hashlib
from dataclasses import dataclass
from typing import TYPE_CHECKING

from chalicelib import clock, events
from chalicelib.accounts import key_store as store
from chalicelib.accounts.key_store import PublicKey
from chalicelib.accounts.options import CreateKeyOption
from chalicelib.accounts.service import actor_of_event, get_user
from chalicelib.errors import ConditionFailed, InvalidInput, NotFoundError, PermissionDenied
from chalicelib.store import ids, unit_of_work

if TYPE_CHECKING:
    from chalicelib.accounts.store import Account

# Forgejo's default [ssh.minimum_key_sizes]; DSA is refused outright.
MIN_KEY_BITS = {"ssh-rsa": 3071, "ecdsa-sha2-nistp256": 256, "ecdsa-sha2-nistp384": 384,
                "ecdsa-sha2-nistp521": 521, "ssh-ed25519": 256,
                "sk-ssh-ed25519@openssh.com": 256, "sk-ecdsa-sha2-nistp256@openssh.com": 256}


@dataclass(frozen=True)
class ParsedKey:
    key_type: str       # the OpenSSH algorithm name, e.g. ssh-ed25519
    content: str        # "<type> <base64>", the comment dropped
    fingerprint: str    # "SHA256:<base64 without padding>", as ssh-keygen -l prints


def _blob_type(blob: bytes) -> str:
    if len(blob) < 4:
        raise ValueError("truncated key")
    size = int.from_bytes(blob[:4], "big")
    name = blob[4:4 + size]
    if len(name) != size:
        raise ValueError("truncated key")
    return name.decode("ascii")


def _key_bits(key_type: str, blob: bytes) -> int:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec, rsa

    if key_type.startswith("sk-"):
        return MIN_KEY_BITS[key_type]  # security-key keys have fixed sizes
    loaded = serialization.load_ssh_public_key(
        key_type.encode() + b" " + base64.b64encode(blob))
    if isinstance(loaded, (rsa.RSAPublicKey, ec.EllipticCurvePublicKey)):
        return loaded.key_size
    return 256  # ed25519


def parse_ssh_key(text: str) -> ParsedKey:
    """Parse an OpenSSH ``authorized_keys`` line (or a bare base64 blob)."""
    fields = (text or "").strip().split()
    if not fields:
        raise InvalidInput("Invalid key content: empty key")
    # Skip authorized_keys options such as 'no-pty,command="..."'.
    while len(fields) > 1 and fields[0] not in MIN_KEY_BITS and not fields[0].startswith("AAAA"):
        fields = fields[1:]
    b64 = fields[1] if fields[0] in MIN_KEY_BITS and len(fields) > 1 else fields[0]
    try:
        blob = base64.b64decode(b64, validate=True)
        key_type = _blob_type(blob)
        if key_type not in MIN_KEY_BITS:
            raise InvalidInput(f"Invalid key content: unsupported key type {key_type!r}")
        if fields[0] in MIN_KEY_BITS and fields[0] != key_type:
            raise InvalidInput("Invalid key content: the key type does not match the key")
        bits = _key_bits(key_type, blob)
    except InvalidInput:
        raise
    except (ValueError, binascii.Error, UnicodeDecodeError) as exc:
        raise InvalidInput(f"Invalid key content: {exc}") from None
    except Exception as exc:  # cryptography raises several kinds on malformed blobs
        raise InvalidInput(f"Invalid key content: {exc}") from None
    if bits < MIN_KEY_BITS[key_type]:
        raise InvalidInput(f"Invalid key content: key length {bits} is below the minimum "
                           f"{MIN_KEY_BITS[key_type]} for {key_type}")
    digest = base64.b64encode(hashlib.sha256(blob).digest()).decode().rstrip("=")
    return ParsedKey(key_type=key_type, content=f"{key_type} {base64.b64encode(blob).decode()}",
                     fingerprint=f"SHA256:{digest}")


def _owner_for(actor: Account | None, username: str) -> Account:
    """The user whose keys ``actor`` changes: themself, or anyone for a site admin."""
    user = get_user(username, actor)
    if actor is None or (actor.id != user.id and not actor.is_admin):
        raise PermissionDenied("user should be the site admin")
    return user


def add_key(actor: Account | None, username: str,
            option: CreateKeyOption) -> tuple[PublicKey, Account]:
    """adminCreatePublicKey (actor must be a site admin) or the user's own key."""
    user = _owner_for(actor, username)
    title = (option.title or "").strip()
    if not title:
        raise InvalidInput("[Title]: Required")
    if not option.key:
        raise InvalidInput("[Key]: Required")
    parsed = parse_ssh_key(option.key)
    key = store.new_key(user_id=int(user.id), key_id=ids.next_id("public_key"), title=title,
                        content=parsed.content, fingerprint=parsed.fingerprint,
                        read_only=bool(option.read_only),
                        created=clock.seconds())
    try:
        with unit_of_work.writing() as uow:
            store.stage_add(key)
            uow.raise_event(events.PublicKeyAdded(**actor_of_event(actor), user_id=int(user.id),
                                                  key_id=int(key.id)))
    except ConditionFailed as exc:
        if exc.label == store.FINGERPRINT_TAKEN:
            raise InvalidInput("Key content has been used as non-deploy key") from None
        raise
    return key, user


def list_keys(user: Account) -> list[PublicKey]:
    return store.list_for_user(user.id)


def preload_keys(user_id: int | None, key_id: str) -> list[tuple[str, str]]:
    """The table key of the caller's key ``key_id`` (for the request's second read)."""
    if user_id is None or not key_id.isdigit():
        return []
    return [store.key_of(user_id, int(key_id))]


def get_key(user: Account, key_id: int) -> PublicKey:
    key = store.get(user.id, key_id)
    if key is None:
        raise NotFoundError(f"public key does not exist [id: {key_id}]")
    return key


def delete_key(actor: Account | None, username: str, key_id: int) -> None:
    user = _owner_for(actor, username)
    key = get_key(user, key_id)
    with unit_of_work.writing() as uow:
        store.stage_delete(key)
        uow.raise_event(events.PublicKeyDeleted(**actor_of_event(actor), user_id=int(user.id),
                                                key_id=int(key.id)))
