"""The instance's signing keys: ``/signing-key.gpg``, ``/signing-key.ssh`` and the
repository's ``/repos/{owner}/{repo}/signing-key.gpg`` (seed §4.10).

Failures answer 500 with the context label in the message (``gpg export: …``,
``ssh export: …``), as the seed says (spec README decision 3).
"""
from __future__ import annotations

from chalicelib.http.errors import InternalError, NotFound
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.http.router import route
from chalicelib.repos import IN_REPO, current_repo

TEXT = ("text/plain",)


def _gpg_key_response(repo=None) -> ApiResponse:
    from chalicelib.signing import service as signing

    try:
        armored = signing.public_gpg_key(repo)
    except Exception as exc:  # noqa: BLE001 - every export failure carries the label
        raise InternalError(f"gpg export: {exc}") from exc
    return ApiResponse.text(armored)


@route("GET", "/signing-key.gpg", "getSigningKey", tag="miscellaneous", scope=None,
       summary="Get default signing-key.gpg", produces=TEXT)
def get_signing_key(req: ApiRequest) -> ApiResponse:
    return _gpg_key_response()


@route("GET", "/signing-key.ssh", "getSSHSigningKey", tag="miscellaneous", scope=None,
       summary="Get default signing-key.ssh", produces=TEXT, responses={404: "notFound"})
def get_ssh_signing_key(req: ApiRequest) -> ApiResponse:
    from chalicelib.signing import service as signing

    if not signing.ssh_configured():
        raise NotFound()
    try:
        text = signing.public_ssh_key()
    except Exception as exc:  # noqa: BLE001
        raise InternalError(f"ssh export: {exc}") from exc
    if text is None:
        raise NotFound()
    return ApiResponse.text(text)


@route("GET", "/repos/{owner}/{repo}/signing-key.gpg", "repoSigningKey",
       summary="Get signing-key.gpg for given repository", produces=TEXT, **IN_REPO)
def repo_signing_key(req: ApiRequest) -> ApiResponse:
    view = current_repo(req)
    return _gpg_key_response(view.repo)
