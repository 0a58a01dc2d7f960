"""Scenarios for verifying a GPG key by a signed token: the token, and a verification.

Each verification measures a key of its own, uploaded unmeasured with its private half
kept here to sign the token alice reads (also unmeasured) just before.
"""
from __future__ import annotations

import warnings

from scene import USER_EMAIL, Req, Scene


def _signing_key():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # pgpy's cryptography deprecation warnings
        import pgpy
        from pgpy.constants import (
            EllipticCurveOID,
            HashAlgorithm,
            KeyFlags,
            PubKeyAlgorithm,
        )

        key = pgpy.PGPKey.new(PubKeyAlgorithm.EdDSA, EllipticCurveOID.Ed25519)
        key.add_uid(pgpy.PGPUID.new("Alice", email=USER_EMAIL),
                    usage={KeyFlags.Sign, KeyFlags.Certify}, hashes=[HashAlgorithm.SHA256])
        return key


def signed_token_body(s: Scene) -> dict:
    """A new key of alice's, uploaded, and its signature over her current token."""
    key = _signing_key()
    s.must("POST", "/user/gpg_keys", "token", {"armored_public_key": str(key.pubkey)})
    status, token = s.call("GET", "/api/v1/user/gpg_key_token", "token")
    assert status == 200, f"GET /user/gpg_key_token answered {status}: {token[:200]!r}"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        signature = str(key.sign(token.decode() + "\n"))
    return {"key_id": key.fingerprint.keyid.upper(), "armored_signature": signature}


def scenarios() -> dict:
    """operationId -> scenario (a function of the scene returning its requests)."""
    return {
        "getVerificationToken": lambda s: [Req("GET", "/user/gpg_key_token", "token")],
        "userVerifyGPGKey": lambda s: [Req("POST", "/user/gpg_key_verify", "token",
                                           signed_token_body(s), 200)],
    }


# The token is worked out from the caller's account: the credential's two reads and no
# other.  A verification reads the key's id link with the token (the id is in the body)
# and the key with the caller's account, then one conditional write marks it.
BUDGETS = {
    ("getVerificationToken", "token"): 2,
    ("userVerifyGPGKey", "token"): 3,
}
