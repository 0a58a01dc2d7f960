"""The instance's signing material in a dump: the SSM parameters (SecureStrings) it
keeps its keys in, by role.  A dump names them; only with ``--include-secrets`` does
it carry their values, and then the archive must be kept as a secret itself.

| role | parameter | what it signs or seals |
|---|---|---|
| ``signing`` | ``[aws] SIGNING_KEY_PARAMETER`` | commits and tags the instance signs (signing/service.py) |
| ``web_session`` | beside it, ``web-session-key`` | web sessions, and sealed values: two-factor secrets, mirror credentials (http/sessions.py, http/sealing.py) |
| ``oauth2_id_token`` | beside it, ``oauth2-jwt-key`` | OpenID Connect ID tokens (oauth2/jwt_keys.py) |

A restore maps roles to the target's own parameter names, so the two instances may
name them differently.
"""
from __future__ import annotations

from chalicelib import aws, oauth2
from chalicelib.http import sessions
from chalicelib.settings import get_settings

DESCRIPTIONS = {
    "signing": "Nimbus instance OpenPGP signing key (armored)",
    "web_session": "Nimbus web session signing key",
    "oauth2_id_token": "Nimbus OpenID Connect ID token signing key",
}


def parameter_names() -> dict[str, str]:
    """Role -> this instance's parameter name."""
    signing = get_settings().aws.SIGNING_KEY_PARAMETER
    return {"signing": signing, "web_session": sessions.key_parameter(signing),
            "oauth2_id_token": oauth2.jwt_key_parameter(signing)}


def read(include_values: bool) -> dict:
    """What a dump keeps: each role's parameter name, whether it exists, and (asked for)
    its value."""
    found = {}
    for role, name in parameter_names().items():
        value = aws.read_secret(name)
        found[role] = {"name": name, "exists": value is not None}
        if include_values and value is not None:
            found[role]["value"] = value
    return {"values_included": include_values, "parameters": found}


def write(kept: dict) -> list[str]:
    """Put the dump's values into this instance's parameters (overwriting: an empty
    instance sealed nothing with its own); the names written."""
    ssm, written = aws.client("ssm"), []
    names = parameter_names()
    for role, said in (kept.get("parameters") or {}).items():
        if role in names and said.get("value") is not None:
            ssm.put_parameter(Name=names[role], Value=said["value"], Type="SecureString",
                              Overwrite=True, Description=DESCRIPTIONS.get(role, ""))
            written.append(names[role])
    return written
