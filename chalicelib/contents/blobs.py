"""Forgejo's GetBlobs: several blobs of a repository in one request, in the order
asked (a sha asked twice is answered once).

Each is GetBlob's record: its bytes base64, unless the blob is over ``[api]
DEFAULT_MAX_BLOB_SIZE`` or the answer already holds ``TOTAL_BYTES`` of contents (then
``content`` is "" and ``size`` says how large it is: fetch it alone, or its raw file).
At most ``[api] MAX_RESPONSE_ITEMS`` shas; a sha that is no full object id, names no
object, or names one that is not a blob answers 400 (Forgejo's one error answer here),
so a list is answered whole or not at all.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from chalicelib.contents import git_data
from chalicelib.errors import BadInput, NotFoundError
from chalicelib.gitstore.object_sizes import BLOB, TYPE_NAMES, ObjectSizes
from chalicelib.settings import get_settings

if TYPE_CHECKING:
    from chalicelib.repos import Repo

# Contents in one answer, before base64: well within a buffered Lambda response (6 MB).
TOTAL_BYTES = 3 * 1024 * 1024


def wanted_shas(text: str | None) -> list[str]:
    """The comma-separated list, trimmed, without empties or repeats."""
    found: list[str] = []
    for part in (text or "").split(","):
        part = part.strip().lower()
        if part and part not in found:
            found.append(part)
    limit = get_settings().api.MAX_RESPONSE_ITEMS
    if not found:
        raise BadInput("no shas given")
    if len(found) > limit:
        raise BadInput(f"too many shas: {len(found)}, at most {limit}")
    return found


def blobs(repo: Repo, shas: list[str]) -> list[git_data.BlobData]:
    git = git_data.open_repo(repo)
    wanted = []
    for sha in shas:
        if not git_data.FULL_ID.match(sha):
            raise BadInput(f"length {len(sha)} has no matched object format: {sha}")
        try:
            wanted.append(git_data.of_format(git, sha.encode(), sha))
        except NotFoundError as exc:
            raise BadInput(exc.message) from None
    found: list[git_data.BlobData] = []
    budget = TOTAL_BYTES
    max_size = get_settings().api.DEFAULT_MAX_BLOB_SIZE
    with ObjectSizes(git.object_store) as sizes:
        infos = [sizes.info(sha) for sha in wanted]
    for sha, info in zip(wanted, infos):
        if info is None:
            raise BadInput(f"object does not exist [id: {sha.decode()}]")
        kind, size = info
        if kind != BLOB:
            raise BadInput(f"object {sha.decode()} is a {TYPE_NAMES.get(kind, 'object')}, "
                           "not a blob")
        content = None
        if size <= max_size and size <= budget:
            content = git.object_store.get_raw(sha)[1]
            budget -= size
        found.append(git_data.BlobData(sha.decode(), size, content))
    return found
