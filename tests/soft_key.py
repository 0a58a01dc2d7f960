"""A software security key for tests: an ES256 (P-256) WebAuthn authenticator written
with ``cryptography`` and ``cbor2``, answering the options the server hands out as a
browser would post the answer (the JSON ``static/webauthn.js`` builds).

    key = SoftKey()
    answer = key.register(ceremony.options, origin)       # attestation "none"
    proof = key.sign_in(options, origin)                  # an assertion, count + 1

Every part of an answer can be bent for a test: another origin, another challenge, a
signature count that goes back, a flipped signature byte.
"""
from __future__ import annotations

import base64
import hashlib
import json
import os

import cbor2
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec

UP, AT = 0x01, 0x40          # authenticator data flags: user present, attested data


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


class SoftKey:
    def __init__(self, *, count: int = 0, credential_id: bytes | None = None):
        self.private = ec.generate_private_key(ec.SECP256R1())
        self.credential_id = credential_id or os.urandom(32)
        self.count = count

    def cose_key(self) -> bytes:
        numbers = self.private.public_key().public_numbers()
        return cbor2.dumps({1: 2, 3: -7, -1: 1, -2: numbers.x.to_bytes(32, "big"),
                            -3: numbers.y.to_bytes(32, "big")})

    @staticmethod
    def _client_data(kind: str, challenge: str, origin: str) -> bytes:
        return json.dumps({"type": kind, "challenge": challenge, "origin": origin,
                           "crossOrigin": False}).encode()

    def register(self, options: str, origin: str, *, challenge: str | None = None,
                 rp_id: str | None = None) -> str:
        """The answer to ``navigator.credentials.create()`` with ``options`` (JSON)."""
        given = json.loads(options)
        client_data = self._client_data("webauthn.create", challenge or given["challenge"],
                                        origin)
        auth_data = (hashlib.sha256((rp_id or given["rp"]["id"]).encode()).digest()
                     + bytes([UP | AT]) + self.count.to_bytes(4, "big") + bytes(16)
                     + len(self.credential_id).to_bytes(2, "big") + self.credential_id
                     + self.cose_key())
        attestation = cbor2.dumps({"fmt": "none", "attStmt": {}, "authData": auth_data})
        return json.dumps({
            "id": b64url(self.credential_id), "rawId": b64url(self.credential_id),
            "type": "public-key", "clientExtensionResults": {},
            "response": {"clientDataJSON": b64url(client_data),
                         "attestationObject": b64url(attestation),
                         "transports": ["usb"]}})

    def sign_in(self, options: str, origin: str, *, count: int | None = None,
                challenge: str | None = None, tamper: bool = False) -> str:
        """The answer to ``navigator.credentials.get()`` with ``options`` (JSON); the
        count moves on by one unless ``count`` is given."""
        given = json.loads(options)
        self.count = self.count + 1 if count is None else count
        client_data = self._client_data("webauthn.get", challenge or given["challenge"],
                                        origin)
        auth_data = (hashlib.sha256(given["rpId"].encode()).digest() + bytes([UP])
                     + self.count.to_bytes(4, "big"))
        signature = self.private.sign(auth_data + hashlib.sha256(client_data).digest(),
                                      ec.ECDSA(hashes.SHA256()))
        if tamper:
            signature = signature[:-1] + bytes([signature[-1] ^ 1])
        return json.dumps({
            "id": b64url(self.credential_id), "rawId": b64url(self.credential_id),
            "type": "public-key", "clientExtensionResults": {},
            "response": {"clientDataJSON": b64url(client_data),
                         "authenticatorData": b64url(auth_data),
                         "signature": b64url(signature), "userHandle": None}})
