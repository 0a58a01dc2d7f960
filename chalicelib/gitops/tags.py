"""Tags: writing an annotated tag object, and what a tag ref shows (Forgejo's Tag record).

A tag ref names either a commit (a lightweight tag) or a tag object (an annotated tag,
which names a commit, a tree, a blob or another tag).  ``describe`` gives what Forgejo
shows for both: a lightweight tag takes its time and message from the commit (git's
``for-each-ref`` ``creator``/``contents`` of a commit), an annotated one from the tag
object, its signature left out.  A ref on a tree or a blob is described too (no time,
no message): listing tags must not fail on one.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from dulwich.object_store import BaseObjectStore
from dulwich.objects import Commit, ShaFile, Tag

from chalicelib import clock
from chalicelib.gitops.commits import Identity, Signer
from chalicelib.gitops.errors import ObjectMissing

# Tags nested deeper than this are not followed (git itself gives up on loops).
MAX_DEPTH = 16
_TRAILING_SPACE = re.compile(rb"[ \t\r\v\f]+$")


@dataclass(frozen=True)
class TagInfo:
    """A tag as Forgejo's API shows it."""
    name: str
    id: str             # the ref's value: the tag object, or the lightweight tag's target
    object: str         # the commit (or tree, blob) the tag names, nested tags followed
    object_type: str    # commit, tree or blob
    annotated: bool
    when: int | None    # the tagger's time, or the committer's for a lightweight tag
    timezone: int       # seconds east of UTC
    message: str        # without the signature, surrounding blanks trimmed


def clean_message(message: str) -> bytes:
    """The message as ``git tag -m`` stores it (``--cleanup=strip``): comment lines and
    trailing blanks dropped, runs of empty lines made one, leading and trailing empty
    lines removed, one line feed at the end ("" when nothing is left)."""
    lines: list[bytes] = []
    for line in message.encode("utf-8").split(b"\n"):
        if line.startswith(b"#"):
            continue
        line = _TRAILING_SPACE.sub(b"", line)
        if not line and (not lines or not lines[-1]):
            continue
        lines.append(line)
    while lines and not lines[-1]:
        lines.pop()
    return b"\n".join(lines) + b"\n" if lines else b""


def write_tag(store: BaseObjectStore, *, name: str, target: bytes, tagger: Identity,
              message: str, sign: Signer | None = None) -> Tag:
    """An annotated tag ``name`` on the object ``target`` (hex), added to ``store``; its
    signature (``sign`` gets the tag without it, what ``git verify-tag`` checks) is
    appended to the message, as git writes it."""
    obj = _read(store, target)
    tag = Tag()
    tag.object = (type(obj), obj.id)
    tag.name = name.encode("utf-8")
    tag.tagger = tagger.raw
    tag.tag_time = tagger.time if tagger.time is not None else clock.seconds()
    tag.tag_timezone = tagger.timezone
    tag.message = clean_message(message)
    if sign is not None:
        signature = sign(tag.as_raw_string())
        if signature:
            tag.signature = signature
    store.add_object(tag)
    return tag


def _read(store: BaseObjectStore, sha: bytes) -> ShaFile:
    try:
        return store[sha]
    except KeyError:
        raise ObjectMissing(f"object does not exist [id: {sha.decode('ascii', 'replace')}]") \
            from None


def _text(raw: bytes | None) -> str:
    return (raw or b"").decode("utf-8", "replace").strip()


def describe(store: BaseObjectStore, name: str, sha: bytes | str) -> TagInfo:
    """What the tag ref ``name`` holding ``sha`` shows; ObjectMissing when an object it
    names is not in the store."""
    sha = sha.encode("ascii") if isinstance(sha, str) else sha
    outer = _read(store, sha)
    obj = outer
    for _ in range(MAX_DEPTH):
        if not isinstance(obj, Tag):
            break
        obj = _read(store, obj.object[1])
    kind = obj.type_name.decode()
    if isinstance(outer, Tag):
        when = outer.tag_time if outer.tagger else None
        return TagInfo(name, outer.id.decode(), obj.id.decode(), kind, True, when,
                       int(outer.tag_timezone or 0) if when is not None else 0,
                       _text(outer.message))
    if isinstance(outer, Commit):
        return TagInfo(name, outer.id.decode(), outer.id.decode(), kind, False,
                       int(outer.commit_time), int(outer.commit_timezone),
                       _text(outer.message))
    return TagInfo(name, outer.id.decode(), outer.id.decode(), kind, False, None, 0, "")

