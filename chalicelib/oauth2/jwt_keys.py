"""The key OpenID Connect ID tokens are signed with, and the key set clients check
them against (``/login/oauth/keys``).

An RSA key (RS256: the one algorithm every OpenID client must accept), kept in SSM
Parameter Store as a SecureString beside the instance signing key, as the web sessions'
key is: made on first use by whichever request signs first (``put_parameter`` without
``Overwrite``, so the loser of a race reads the winner's key), then cached in the
process.  JOSE (the JWK form, the signature) is joserfc's; it and ``cryptography``'s RSA
are imported on the OpenID paths only, never on the API's cold start.
"""
from __future__ import annotations

import threading

from chalicelib.settings import get_settings

ALGORITHM = "RS256"
_lock = threading.Lock()
_cached: list = []        # [joserfc RSAKey]


def key_parameter(signing_parameter: str | None = None) -> str:
    """Beside the instance signing key's parameter (infra/iam.py grants both)."""
    signing = signing_parameter or get_settings().aws.SIGNING_KEY_PARAMETER
    return signing.rsplit("/", 1)[0] + "/oauth2-jwt-key"


def _new_pem() -> str:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption()).decode()


def signing_key():
    """The private key (a joserfc ``RSAKey`` with its ``kid``)."""
    if _cached:
        return _cached[0]
    with _lock:
        if _cached:
            return _cached[0]
        from joserfc.jwk import RSAKey

        from chalicelib import aws

        pem = aws.kept_secret(key_parameter(), _new_pem,
                              "Nimbus OpenID Connect ID token signing key")
        key = RSAKey.import_key(pem)
        key.ensure_kid()
        _cached.append(key)
        return key


def reset_key_cache() -> None:
    """Forget the cached key (tests start each from a fresh moto)."""
    with _lock:
        _cached.clear()


def key_set() -> dict:
    """The JWKS: the public half only, marked for signatures with RS256."""
    public = signing_key().as_dict(private=False)
    return {"keys": [{**public, "use": "sig", "alg": ALGORITHM}]}


def sign(claims: dict) -> str:
    from joserfc import jwt

    key = signing_key()
    return jwt.encode({"alg": ALGORITHM, "kid": key.kid, "typ": "JWT"}, claims, key)
