"""Pushes too big for one request: the client uploads a ``git bundle`` to S3 through a
presigned PUT, then asks for it to be applied.

Applying runs the bundle through the same receive-pack as ``git push``
(``git_transport.receive_pack``): the pack is verified, completed and stored by the
same code, and the ref updates get the same checks (hidden refs, ref names, missing
objects, quota, each ref's compare-and-swap against the old value the client read) and
land with their branch records and push events in one transaction (``pushes``).  The
receive-pack request is built from the bundle: the client's updates as commands, the
bundle's pack as the pack.

Objects: ``large-push/<repo id>/<user id>/<upload id>``, deleted once applied (an
abandoned upload is removed by the bucket's lifecycle rule, infra/template.py).
"""
from __future__ import annotations

import logging
import re
import shutil
import tempfile
import uuid
from dataclasses import dataclass
from pathlib import Path

from chalicelib import aws, contents, quota, releases
from chalicelib.errors import BadInput, InvalidInput, NotFoundError
from chalicelib.git_transport import service as git_transport
from chalicelib.repos import Caller, RepoView
from chalicelib.settings import get_settings

log = logging.getLogger("nimbus.large_push")

PREFIX = "large-push/"
BUNDLE_SIGNATURES = (b"# v2 git bundle\n", b"# v3 git bundle\n")
# The header (prerequisites and refs) is read line by line; a line longer than this is
# not a bundle's.
MAX_HEADER_LINE = 64 * 1024
_OID = re.compile(r"^(?:[0-9a-f]{40}|[0-9a-f]{64})$")
_UPLOAD_ID = re.compile(r"^[0-9a-f]{32}$")
# Capabilities of the receive-pack request built from a bundle: the report to parse,
# and all or nothing, as one bundle is one change.
CAPABILITIES = "report-status atomic"


@dataclass
class Bundle:
    prerequisites: list[str]
    refs: dict[str, str]          # ref name -> object id, as the bundle lists them
    pack_offset: int
    object_format: str = "sha1"


def _key(view: RepoView, caller: Caller, upload_id: str) -> str:
    return f"{PREFIX}{int(view.repo.id)}/{int(caller.user.id)}/{upload_id}"


def start(caller: Caller, view: RepoView, options: dict) -> dict:
    """Where to upload a bundle of ``options["size"]`` bytes; refused when the owner's
    quota could not take it or it is over ``LARGE_PUSH_LIMIT``."""
    contents.require_ref_writer(caller, view, "refs")
    size = options.get("size")
    if not isinstance(size, int) or isinstance(size, bool) or size <= 0:
        raise InvalidInput("[size]: the bundle's size in bytes is required")
    limit = get_settings().server.LARGE_PUSH_LIMIT
    if size > limit:
        raise InvalidInput(f"[size]: a bundle may have at most {limit} bytes")
    quota.ensure_within_quota(int(view.repo.owner_id), quota.PUSH_SUBJECT, adding=size)
    upload_id = uuid.uuid4().hex
    return {"id": upload_id, "method": "PUT",
            "upload_url": releases.upload_url(_key(view, caller, upload_id)),
            "expires_in": releases.UPLOAD_URL_SECONDS}


def read_bundle_header(stream) -> Bundle:
    """Parse a v2/v3 bundle header from a binary stream positioned at its start."""
    signature = stream.readline(MAX_HEADER_LINE)
    if signature not in BUNDLE_SIGNATURES:
        raise BadInput("the upload is not a git bundle (v2 or v3)")
    bundle = Bundle([], {}, 0)
    while True:
        line = stream.readline(MAX_HEADER_LINE)
        if not line.endswith(b"\n"):
            raise BadInput("the bundle's header is truncated")
        if line == b"\n":
            bundle.pack_offset = stream.tell()
            return bundle
        text = line[:-1].decode("utf-8", "replace")
        if text.startswith("@"):
            name, _, value = text[1:].partition("=")
            if name == "object-format":
                bundle.object_format = value
            elif name == "filter":
                raise BadInput("a filtered (partial) bundle cannot be pushed")
            continue
        if text.startswith("-"):
            oid = text[1:].split(" ", 1)[0]
            if not _OID.match(oid):
                raise BadInput(f"bad prerequisite line in the bundle: {text[:80]!r}")
            bundle.prerequisites.append(oid)
            continue
        oid, _, ref = text.partition(" ")
        if not _OID.match(oid) or not ref:
            raise BadInput(f"bad ref line in the bundle: {text[:80]!r}")
        bundle.refs[ref] = oid


def _updates(options: dict, bundle: Bundle) -> list[tuple[str, str, str]]:
    raw = options.get("updates")
    if not isinstance(raw, list) or not raw:
        raise InvalidInput("[updates]: a list of {ref, old, new} is required")
    offered = set(bundle.refs.values())
    updates = []
    for item in raw:
        if not isinstance(item, dict) or not all(isinstance(item.get(k), str)
                                                 for k in ("ref", "old", "new")):
            raise InvalidInput("[updates]: every update needs ref, old and new as strings")
        ref, old, new = item["ref"], item["old"].lower(), item["new"].lower()
        if not ref.startswith("refs/") or not _OID.match(old) or not _OID.match(new):
            raise InvalidInput(f"[updates]: bad update {ref!r} {old!r} {new!r}")
        if new not in offered:
            raise InvalidInput(f"[updates]: {ref} -> {new} is not one of the bundle's refs")
        updates.append((ref, old, new))
    return updates


def _pkt(data: bytes) -> bytes:
    return b"%04x" % (len(data) + 4) + data


def _request_head(updates: list[tuple[str, str, str]]) -> bytes:
    lines = []
    for i, (ref, old, new) in enumerate(updates):
        line = f"{old} {new} {ref}".encode()
        if i == 0:
            line += b"\0" + CAPABILITIES.encode()
        lines.append(_pkt(line + b"\n"))
    return b"".join(lines) + b"0000"


def parse_report(report: bytes) -> tuple[str, dict[str, str]]:
    """``(unpack status, {ref: "ok" or the reason})`` from a report-status answer."""
    unpack, refs, pos = "", {}, 0
    while pos + 4 <= len(report):
        size = int(report[pos:pos + 4], 16)
        if size == 0:
            pos += 4
            continue
        line = report[pos + 4:pos + size].decode("utf-8", "replace").rstrip("\n")
        pos += size
        if line.startswith("unpack "):
            unpack = line[len("unpack "):]
        elif line.startswith("ok "):
            refs[line[3:]] = "ok"
        elif line.startswith("ng "):
            ref, _, reason = line[3:].partition(" ")
            refs[ref] = reason or "refused"
    return unpack, refs


def _download(key: str, path: Path) -> None:
    with open(path, "wb") as out:
        aws.client("s3").download_fileobj(get_settings().aws.BUCKET, key, out)


def apply(caller: Caller, view: RepoView, upload_id: str, options: dict) -> dict:
    """Apply an uploaded bundle as a push of ``options["updates"]``; per-ref results as
    ``git push`` reports them."""
    contents.require_ref_writer(caller, view, "refs")
    if not _UPLOAD_ID.match(upload_id or ""):
        raise NotFoundError("no such upload")
    key = _key(view, caller, upload_id)
    size = releases.upload_size(key)
    if size is None:
        raise NotFoundError("nothing was uploaded for this large push (or it was applied)")
    if size > get_settings().server.LARGE_PUSH_LIMIT:
        releases.remove_upload([key])
        raise InvalidInput("the uploaded bundle is larger than the large-push limit")
    git = git_transport.open_git(view)
    with tempfile.TemporaryDirectory(prefix="large-push-") as work:
        bundle_path, body_path = Path(work) / "bundle", Path(work) / "request"
        _download(key, bundle_path)
        with open(bundle_path, "rb") as source:
            bundle = read_bundle_header(source)
            if bundle.object_format != git.object_format.name:
                raise BadInput(f"the bundle is {bundle.object_format}, the repository "
                               f"{git.object_format.name}")
            missing = [oid for oid in bundle.prerequisites if oid.encode() not in git.object_store]
            if missing:
                raise InvalidInput(f"the bundle needs {len(missing)} object(s) the repository "
                                   f"does not have (first: {missing[0]}): fetch, then make the "
                                   "bundle again excluding what the server has")
            updates = _updates(options, bundle)
            # The request is written to disk first so that it is read into memory once
            # (receive-pack takes bytes): no second copy of the pack.
            with open(body_path, "wb") as request:
                request.write(_request_head(updates))
                shutil.copyfileobj(source, request, 1 << 20)
        bundle_path.unlink()
        body = body_path.read_bytes()
        body_path.unlink()
    report = git_transport.receive_pack(view, body, actor=caller.user)
    del body
    unpack, statuses = parse_report(report)
    releases.remove_upload([key])
    results = [{"ref": ref, "old": old, "new": new, "ok": statuses.get(ref) == "ok",
                "status": statuses.get(ref, "no status reported")}
               for ref, old, new in updates]
    return {"unpack": unpack, "ok": unpack == "ok" and all(r["ok"] for r in results),
            "refs": results}
