"""The Git LFS batch API's JSON (docs/api/batch.md of git-lfs): the batch answer, each
object with its actions or its error, and the error body git-lfs prints."""
from __future__ import annotations

from chalicelib.lfs.service import HASH_ALGO, TRANSFER, Answer, Link
from chalicelib.repos import RepoView
from chalicelib.settings import get_settings

MEDIA_TYPE = "application/vnd.git-lfs+json"
# How long the client may wait between its upload and the verify call.
VERIFY_SECONDS = 3600


def verify_href(view: RepoView) -> str:
    repo = view.repo
    return f"{get_settings().server.ROOT_URL}{repo.owner_login}/{repo.name}.git/info/lfs/verify"


def _action(link: Link) -> dict:
    found: dict = {"href": link.href, "expires_in": link.expires_in}
    if link.header:
        found["header"] = dict(link.header)
    return found


def lfs_object(answer: Answer, verify: dict | None) -> dict:
    found: dict = {"oid": answer.oid, "size": answer.size}
    if answer.error is not None:
        code, message = answer.error
        found["error"] = {"code": code, "message": message}
        return found
    if not answer.has_actions:
        return found        # uploaded already: nothing for the client to do
    # The actions' URLs carry their own authorization (presigned): git-lfs must not add
    # the server's credentials to a request to S3, which refuses two authorizations.
    found["authenticated"] = True
    actions = {}
    if answer.upload is not None:
        actions["upload"] = _action(answer.upload)
    if answer.download is not None:
        actions["download"] = _action(answer.download)
    if answer.verify and verify is not None:
        actions["verify"] = verify
    found["actions"] = actions
    return found


def batch(view: RepoView, answers: list[Answer], authorization: str | None) -> dict:
    """The batch answer.  The verify action goes to this server with the credentials
    the batch came with (as Forgejo passes them on): git-lfs sends the action's
    headers."""
    header = {"Accept": MEDIA_TYPE}
    if authorization:
        header["Authorization"] = authorization
    verify = {"href": verify_href(view), "header": header, "expires_in": VERIFY_SECONDS}
    return {"transfer": TRANSFER, "hash_algo": HASH_ALGO,
            "objects": [lfs_object(answer, verify) for answer in answers]}


def error(message: str) -> dict:
    return {"message": message}
