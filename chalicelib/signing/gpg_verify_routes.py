"""Verifying a GPG key by a signed token (``/user/gpg_key_token``,
``/user/gpg_key_verify``): the rules are ``gpg_verification``'s.

The token is plain text (Forgejo's ``ctx.PlainText``), worked out from the caller's
account with no read beyond the credential's.  A verification reads the key's id link
with the token and the caller's key with the account (two batched reads, the key id
taken from the body), then makes one conditional write.
"""
from __future__ import annotations

import json

from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.http.router import route
from chalicelib.signing.options import VerifyGPGKeyOption
from chalicelib.signing.records import gpg_key_record

USER = {"tag": "user", "scope": "user"}


def _body_key_id(req: ApiRequest) -> object:
    """The body's ``key_id`` for the preload, read leniently: the handler checks the
    body and answers what is wrong with it."""
    try:
        data = json.loads(req.body) if req.body else None
    except (ValueError, UnicodeDecodeError, RecursionError):
        return None
    return data.get("key_id") if isinstance(data, dict) else None


def key_link_preload(req: ApiRequest) -> list:
    from chalicelib.signing import gpg_verification

    return gpg_verification.preload_keys(_body_key_id(req))


def own_key_preload(req: ApiRequest, user_id: int | None) -> list:
    from chalicelib.signing import gpg_verification

    return gpg_verification.preload_more_keys(user_id, _body_key_id(req))


# Forgejo describes the 200 as its "string" response; the description here has no such
# response yet, so it says "empty" as the other text answers (diffs, patches) do.
@route("GET", "/user/gpg_key_token", "getVerificationToken", summary="Get a Token to verify",
       signed_in=True, produces=("text/plain",),
       responses={200: "empty", 401: "unauthorized", 403: "forbidden", 404: "notFound"},
       **USER)
def token(req: ApiRequest) -> ApiResponse:
    from chalicelib.signing import gpg_verification

    return ApiResponse.text(gpg_verification.verification_token(req.actor))


@route("POST", "/user/gpg_key_verify", "userVerifyGPGKey", summary="Verify a GPG key",
       signed_in=True, body="VerifyGPGKeyOption", preload=key_link_preload,
       preload_more=own_key_preload,
       responses={200: "GPGKey", 201: "GPGKey", 401: "unauthorized", 403: "forbidden",
                  404: "notFound", 422: "validationError"}, **USER)
def verify(req: ApiRequest) -> ApiResponse:
    from chalicelib.signing import gpg_verification

    done = gpg_verification.verify_key(req.actor, req.option(VerifyGPGKeyOption))
    record = gpg_key_record(done.item)
    if done.subkey_id is not None:
        # The id named a subkey: Forgejo answers that subkey's record.
        record = next(sub for sub in record["subkeys"] if sub["key_id"] == done.subkey_id)
    return ApiResponse.json(record)
