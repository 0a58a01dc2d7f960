"""SSH signatures (the ``SSHSIG`` format of OpenSSH's PROTOCOL.sshsig), made and checked
in-process with ``cryptography``: what ``ssh-keygen -Y sign`` / ``-Y verify`` do for
git's ``gpg.format=ssh``, without the binary (Lambda has none).

Import cost: only ``cryptography`` (already on the request path for SSH keys).
"""
from __future__ import annotations

import base64
import hashlib
import shutil
import subprocess

MAGIC = b"SSHSIG"
VERSION = 1
BEGIN = "-----BEGIN SSH SIGNATURE-----"
END = "-----END SSH SIGNATURE-----"
_HASHES = {"sha256": hashlib.sha256, "sha512": hashlib.sha512}


class SshSigError(ValueError):
    """A malformed signature, key or unsupported algorithm."""


def _string(data: bytes) -> bytes:
    return len(data).to_bytes(4, "big") + data


def _mpint(value: int) -> bytes:
    raw = value.to_bytes((value.bit_length() + 8) // 8, "big") if value else b""
    return _string(raw)


class _Reader:
    def __init__(self, data: bytes):
        self.data, self.pos = data, 0

    def take(self, n: int) -> bytes:
        if self.pos + n > len(self.data):
            raise SshSigError("truncated signature")
        out = self.data[self.pos:self.pos + n]
        self.pos += n
        return out

    def uint32(self) -> int:
        return int.from_bytes(self.take(4), "big")

    def string(self) -> bytes:
        return self.take(self.uint32())


def _signed_data(namespace: bytes, hash_alg: str, message: bytes) -> bytes:
    digest = _HASHES[hash_alg](message).digest()
    return (MAGIC + _string(namespace) + _string(b"") + _string(hash_alg.encode())
            + _string(digest))


def public_blob(public_key) -> bytes:
    """The SSH wire form of a ``cryptography`` public key."""
    from cryptography.hazmat.primitives import serialization

    line = public_key.public_bytes(serialization.Encoding.OpenSSH,
                                   serialization.PublicFormat.OpenSSH)
    return base64.b64decode(line.split()[1])


def fingerprint(blob: bytes) -> str:
    return "SHA256:" + base64.b64encode(hashlib.sha256(blob).digest()).decode().rstrip("=")


def _load_public(blob: bytes):
    from cryptography.hazmat.primitives import serialization

    key_type = _Reader(blob).string()
    try:
        return serialization.load_ssh_public_key(key_type + b" " + base64.b64encode(blob))
    except Exception as exc:  # cryptography raises several kinds on bad blobs
        raise SshSigError(f"bad public key: {exc}") from None


def armor(blob: bytes) -> str:
    text = base64.b64encode(blob).decode()
    lines = [text[i:i + 70] for i in range(0, len(text), 70)]
    return "\n".join([BEGIN, *lines, END]) + "\n"


def dearmor(text: str) -> bytes:
    body = text.strip()
    if not body.startswith(BEGIN) or not body.endswith(END):
        raise SshSigError("not an SSH signature")
    try:
        return base64.b64decode("".join(body[len(BEGIN):-len(END)].split()), validate=True)
    except ValueError as exc:
        raise SshSigError(f"bad base64: {exc}") from None


def sign(private_key, message: bytes, namespace: str = "git", hash_alg: str = "sha512") -> str:
    """An armored SSHSIG signature of ``message`` by a ``cryptography`` private key."""
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import ec, ed25519, padding, rsa
    from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

    pub = public_blob(private_key.public_key())
    data = _signed_data(namespace.encode(), hash_alg, message)
    if isinstance(private_key, ed25519.Ed25519PrivateKey):
        sig = _string(b"ssh-ed25519") + _string(private_key.sign(data))
    elif isinstance(private_key, rsa.RSAPrivateKey):
        raw = private_key.sign(data, padding.PKCS1v15(), hashes.SHA512())
        sig = _string(b"rsa-sha2-512") + _string(raw)
    elif isinstance(private_key, ec.EllipticCurvePrivateKey):
        size = private_key.curve.key_size
        algo = {256: hashes.SHA256, 384: hashes.SHA384, 521: hashes.SHA512}[size]
        r, s = decode_dss_signature(private_key.sign(data, ec.ECDSA(algo())))
        sig = _string(f"ecdsa-sha2-nistp{size}".encode()) + _string(_mpint(r) + _mpint(s))
    else:
        raise SshSigError(f"unsupported key type {type(private_key).__name__}")
    blob = (MAGIC + VERSION.to_bytes(4, "big") + _string(pub) + _string(namespace.encode())
            + _string(b"") + _string(hash_alg.encode()) + _string(sig))
    return armor(blob)


def parse(text: str) -> tuple[bytes, str, str, bytes]:
    """(public key blob, namespace, hash algorithm, signature blob) of an armored SSHSIG."""
    r = _Reader(dearmor(text))
    if r.take(6) != MAGIC or r.uint32() != VERSION:
        raise SshSigError("not an SSHSIG v1 signature")
    pub, namespace, _reserved = r.string(), r.string(), r.string()
    hash_alg, sig = r.string().decode("ascii", "replace"), r.string()
    if hash_alg not in _HASHES:
        raise SshSigError(f"unsupported hash {hash_alg}")
    return pub, namespace.decode("utf-8", "replace"), hash_alg, sig


def verify(text: str, message: bytes, namespace: str = "git") -> bytes | None:
    """The signer's public key blob when ``text`` is a good signature of ``message``."""
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import ec, ed25519, padding, rsa
    from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

    pub, ns, hash_alg, sig_blob = parse(text)
    if ns != namespace:
        return None
    data = _signed_data(ns.encode(), hash_alg, message)
    key = _load_public(pub)
    r = _Reader(sig_blob)
    algo, raw = r.string().decode("ascii", "replace"), r.string()
    try:
        if isinstance(key, ed25519.Ed25519PublicKey) and algo == "ssh-ed25519":
            key.verify(raw, data)
        elif isinstance(key, rsa.RSAPublicKey) and algo in ("rsa-sha2-512", "rsa-sha2-256"):
            hash_cls = hashes.SHA512 if algo == "rsa-sha2-512" else hashes.SHA256
            key.verify(raw, data, padding.PKCS1v15(), hash_cls())
        elif isinstance(key, ec.EllipticCurvePublicKey) and algo.startswith("ecdsa-sha2-"):
            size = key.curve.key_size
            hash_cls = {256: hashes.SHA256, 384: hashes.SHA384, 521: hashes.SHA512}[size]
            inner = _Reader(raw)
            rr = int.from_bytes(inner.string(), "big")
            ss = int.from_bytes(inner.string(), "big")
            key.verify(encode_dss_signature(rr, ss), data, ec.ECDSA(hash_cls()))
        else:
            return None
    except InvalidSignature:
        return None
    return pub


def git_can_sign_with_ssh(git: str = "git") -> bool:
    """The seed's rule for setting ``gpg.format=ssh`` on a git CLI: git >= 2.34.0 and an
    ``ssh-keygen`` binary present.  In-process signing (this module) needs neither; the
    rule applies to a git CLI the instance drives (see docs/compatibility.md)."""
    if shutil.which("ssh-keygen") is None or shutil.which(git) is None:
        return False
    try:
        out = subprocess.run([git, "--version"], capture_output=True, text=True,
                             timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        return False
    parts = out.replace("git version", "").strip().split(".")
    try:
        version = tuple(int("".join(ch for ch in p if ch.isdigit()) or 0) for p in parts[:3])
    except ValueError:
        return False
    return version >= (2, 34, 0)


def git_signing_config(fmt: str) -> dict[str, str]:
    """The ``gpg.format`` a git CLI should be given for ``[repository.signing] FORMAT``."""
    if fmt == "ssh" and git_can_sign_with_ssh():
        return {"gpg.format": "ssh"}
    return {"gpg.format": "openpgp"}
