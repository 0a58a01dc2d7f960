"""Git wire protocol version 2 for upload-pack over smart HTTP (stateless: one POST is
one command; git's gitprotocol-v2 describes the format).

* ``capabilities()``: the body of ``GET info/refs?service=git-upload-pack`` when the
  client sent ``Git-Protocol: version=2`` (no ``# service=`` line, as git http-backend).
* ``serve(repo, body)``: a ``command=ls-refs`` or ``command=fetch`` request.

``ls-refs`` with ``ref-prefix`` arguments queries only the refs under those prefixes
(the ref name is the sort key; ``refdb.load_prefixed`` reads several ranges in one
Query when the refs between them are few), so a clone of a repository with thousands
of ``refs/pull/*`` refs never reads them.  A fetch reads its want-refs and, for
include-tag, the tags together.  ``fetch`` negotiates the same
way git does (``acknowledgments`` with ``ready`` once every want reaches a common
commit), answers ``shallow-info`` and ``wanted-refs``, and sends the pack from
``upload_pack.build_pack`` in the ``packfile`` section over side-band.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Callable, Iterable, Iterator

from dulwich.objects import Commit, valid_hexsha

from chalicelib.gitstore import refdb
from chalicelib.gitstore.errors import GitStoreError, ProtocolError
from chalicelib.gitstore.negotiation import all_wants_reached, shallow_boundary
from chalicelib.gitstore.pack_filter import ObjectFilter, parse_filter
from chalicelib.gitstore.repo import NimbusRepo
from chalicelib.gitstore.upload_pack import build_pack, check_wants

log = logging.getLogger(__name__)
FLUSH, DELIM, RESPONSE_END = b"0000", b"0001", b"0002"
AGENT = b"agent=nimbus/1"
# Beyond this many prefixes one Query of every ref costs less than one per prefix.
MAX_PREFIX_QUERIES = 8
SIDEBAND_DATA, SIDEBAND_PROGRESS, SIDEBAND_ERROR = 1, 2, 3
_PKT_MAX_DATA = 65515


def pkt(data: bytes) -> bytes:
    return f"{len(data) + 4:04x}".encode("ascii") + data


def pieces(chunks: Iterable[bytes], size: int) -> Iterator[bytes | memoryview]:
    """The bytes of ``chunks`` in pieces of ``size`` (the last may be shorter), sliced
    out of each chunk: memory holds one chunk and less than a piece more, however big
    the chunks.  A piece may be a view of a chunk: copy it to keep it, and drop it
    before asking for the next, which may read the next chunk."""
    carry = bytearray()
    for chunk in chunks:
        view = memoryview(chunk)
        if carry:
            taken = size - len(carry)
            carry += view[:taken]
            view = view[taken:]
            if len(carry) < size:
                continue
            yield carry
            # A new buffer, not a cleared one: the caller may still hold the last.
            carry = bytearray()
        while len(view) >= size:
            yield view[:size]
            view = view[size:]
        carry += view
        del chunk, view
    if carry:
        yield carry


def pkt_error(message: str) -> bytes:
    return pkt(b"ERR " + message.encode("utf-8", "replace") + b"\n")


def read_pkts(body: bytes) -> Iterator[bytes | None | int]:
    """pkt-lines: bytes (newline stripped), None for flush, 1 for delim, 2 for end."""
    pos = 0
    while pos < len(body):
        try:
            size = int(body[pos:pos + 4], 16)
        except ValueError:
            raise ProtocolError("git protocol error: bad pkt-line length") from None
        if size in (0, 1, 2):
            yield None if size == 0 else size
            pos += 4
            continue
        if size < 4 or pos + size > len(body):
            raise ProtocolError("git protocol error: truncated pkt-line")
        line = body[pos + 4:pos + size]
        yield line[:-1] if line.endswith(b"\n") else line
        pos += size


def capabilities(repo: NimbusRepo) -> bytes:
    lines = [b"version 2", AGENT, b"ls-refs=unborn",
             b"fetch=shallow wait-for-done filter ref-in-want", b"server-option",
             b"object-format=" + repo.object_format.name.encode("ascii")]
    return b"".join(pkt(line + b"\n") for line in lines) + FLUSH


@dataclass
class _Request:
    command: bytes = b""
    args: list[bytes] = field(default_factory=list)


def _parse(body: bytes) -> _Request:
    request = _Request()
    in_args = False
    for line in read_pkts(body):
        if line is None:
            break
        if line == 1:
            in_args = True
        elif isinstance(line, bytes):
            if in_args:
                request.args.append(line)
            elif line.startswith(b"command="):
                request.command = line[len(b"command="):]
            elif line.startswith(b"object-format="):
                if line[len(b"object-format="):] != b"sha1":
                    raise ProtocolError("mismatched object format")
            # agent=, server-option=, session-id=: nothing to act on.
    return request


def serve(repo: NimbusRepo, body: bytes, *, any_object: Callable[[], bool]) -> bytes:
    """The response to one v2 request, whole (``serve_stream``)."""
    return b"".join(serve_stream(repo, body, any_object=any_object))


def serve_stream(repo: NimbusRepo, body: bytes, *,
                 any_object: Callable[[], bool]) -> Iterator[bytes]:
    """The response to one v2 request as chunks, a fetch's pack built as they are
    taken.  ``any_object()``: whether any object of the repository's storage may be
    wanted (else only those reachable from its refs).  Refusals are ``ERR`` lines, which
    git shows as "remote error: ..."; everything a fetch checks runs before its first
    chunk, and a failure while the pack streams goes out on side-band channel 3."""
    try:
        request = _parse(body)
        if request.command == b"ls-refs":
            yield ls_refs(repo, request.args)
            return
        if request.command != b"fetch":
            raise ProtocolError(
                f"invalid command '{request.command.decode('utf-8', 'replace')}'")
        chunks = _Fetch(repo, request.args, any_object).run()
        first = next(chunks, None)
    except GitStoreError as exc:
        yield pkt_error(str(exc))
        return
    if first is None:
        return
    yield first
    try:
        yield from chunks
    except Exception as exc:  # noqa: BLE001 - the answer has begun: say it in-band
        log.exception("v2 fetch from %s failed while streaming", repo)
        reason = str(exc) if isinstance(exc, GitStoreError) else "internal error"
        yield pkt(bytes([SIDEBAND_ERROR]) + f"upload-pack: {reason}\n".encode())


# -- ls-refs --------------------------------------------------------------------------
def refs_under(repo_id: object, prefixes: list[str]) -> dict[str, refdb.RefValue]:
    """The refs whose names start with one of ``prefixes`` (all refs when none)."""
    prefixes = refdb.outermost_prefixes(prefixes)
    if not prefixes or "" in prefixes or len(prefixes) > MAX_PREFIX_QUERIES:
        found = refdb.load_refs(repo_id)
        return {name: value for name, value in found.items()
                if not prefixes or name.startswith(tuple(prefixes))}
    return refdb.load_prefixed(repo_id, prefixes)


def _ref_value(repo_id: object, name: str, known: dict[str, refdb.RefValue]) -> refdb.RefValue | None:
    if name in known:
        return known[name]
    found = refs_under(repo_id, [name])
    return found.get(name)


def ls_refs(repo: NimbusRepo, args: list[bytes]) -> bytes:
    symrefs = peel = unborn = False
    prefixes: list[str] = []
    for arg in args:
        if arg == b"symrefs":
            symrefs = True
        elif arg == b"peel":
            peel = True
        elif arg == b"unborn":
            unborn = True
        elif arg.startswith(b"ref-prefix "):
            prefixes.append(arg[len(b"ref-prefix "):].decode("utf-8", "replace"))
        else:
            raise ProtocolError(f"unexpected line: '{arg.decode('utf-8', 'replace')}'")
    refs = refs_under(repo.repo_id, prefixes)
    out = []
    head = refs.pop("HEAD", None)
    if head is not None:
        out.append(_head_line(repo, head, refs, symrefs=symrefs, unborn=unborn))
    for name, value in refs.items():
        if value.sha is None:
            continue
        line = f"{value.sha} {name}"
        if peel:
            peeled = value.peeled or _peel(repo, value.sha)
            if peeled and peeled != value.sha:
                line += f" peeled:{peeled}"
        out.append(line)
    return b"".join(pkt(line.encode("utf-8") + b"\n") for line in out if line) + FLUSH


def _head_line(repo: NimbusRepo, head: refdb.RefValue, refs: dict, *, symrefs: bool,
               unborn: bool) -> str:
    if head.symref is None:
        return f"{head.sha} HEAD" if head.sha else ""
    target = _ref_value(repo.repo_id, head.symref, refs)
    suffix = f" symref-target:{head.symref}" if symrefs else ""
    if target is None or target.sha is None:
        return f"unborn HEAD{suffix}" if unborn else ""
    return f"{target.sha} HEAD{suffix}"


def _peel(repo: NimbusRepo, sha: str) -> str | None:
    try:
        return repo.refs.peel(sha.encode("ascii")).decode("ascii") if repo.refs.peel else None
    except (KeyError, ValueError):
        return None


# -- fetch ----------------------------------------------------------------------------
class _Fetch:
    def __init__(self, repo: NimbusRepo, args: list[bytes], any_object: Callable[[], bool]):
        self.repo = repo
        self.store = repo.object_store
        self.any_object = any_object
        self.wants: list[bytes] = []
        self.want_refs: list[str] = []
        self.haves: list[bytes] = []
        self.client_shallow: set[bytes] = set()
        self.done = self.thin = self.no_progress = self.include_tag = False
        self.wait_for_done = self.deepen_relative = self.ofs_delta = False
        self.depth: int | None = None
        self.since: int | None = None
        self.deepen_not: list[str] = []
        self.filter: ObjectFilter | None = None
        for arg in args:
            self._arg(arg)

    def _arg(self, arg: bytes) -> None:
        word, _, value = arg.partition(b" ")
        flags = {b"done": "done", b"thin-pack": "thin", b"no-progress": "no_progress",
                 b"include-tag": "include_tag", b"wait-for-done": "wait_for_done",
                 b"deepen-relative": "deepen_relative", b"ofs-delta": "ofs_delta"}
        if not value and word in flags:
            setattr(self, flags[word], True)
        elif word in (b"want", b"have", b"shallow"):
            if not valid_hexsha(value) or len(value) != 40:
                raise ProtocolError(f"git upload-pack: protocol error, expected to get "
                                    f"object ID, not '{arg.decode('utf-8', 'replace')}'")
            {b"want": self.wants.append, b"have": self.haves.append,
             b"shallow": self.client_shallow.add}[word](value)
        elif word == b"want-ref":
            self.want_refs.append(value.decode("utf-8", "replace"))
        elif word == b"deepen" and value.isdigit():
            self.depth = int(value)
        elif word == b"deepen-since" and value.isdigit():
            self.since = int(value)
        elif word == b"deepen-not":
            self.deepen_not.append(value.decode("utf-8", "replace"))
        elif word == b"filter":
            self.filter = parse_filter(value)
        else:
            raise ProtocolError(f"unexpected line: '{arg.decode('utf-8', 'replace')}'")

    @property
    def deepening(self) -> bool:
        return self.depth is not None or self.since is not None or bool(self.deepen_not)

    def run(self) -> Iterator[bytes]:
        refs = self._read_refs()
        wanted_refs = self._resolve_want_refs(refs)
        self.wants.extend(sha for _, sha in wanted_refs)
        if not self.wants and not self.wait_for_done:
            return
        # A want-ref's value is a tip of this repository's own refs, always servable:
        # only wants by id may need the object pool's owner checked.
        check_wants(self.store, self.wants, any_object=self.any_object,
                    tips=lambda: {v.sha.encode() for v in refdb.load_refs(self.repo.repo_id)
                                  .values() if v.sha},
                    known_tips={sha for _, sha in wanted_refs})
        common = [sha for sha in dict.fromkeys(self.haves) if sha in self.store]
        if self.haves and not self.done:
            yield pkt(b"acknowledgments\n")
            if not common:
                yield pkt(b"NAK\n")
            for sha in common:
                yield pkt(b"ACK " + sha + b"\n")
            if self.wait_for_done or not all_wants_reached(self.store, self.wants, common):
                yield FLUSH
                return
            yield pkt(b"ready\n")
            yield DELIM
        shallow = set(self.client_shallow)
        extra_wants: list[bytes] = []
        if self.deepening or self.client_shallow:
            yield pkt(b"shallow-info\n")
            if self.deepening:
                boundary, unshallow = self._shallow_plan()
                for sha in sorted(boundary - self.client_shallow):
                    yield pkt(b"shallow " + sha + b"\n")
                for sha in sorted(unshallow):
                    yield pkt(b"unshallow " + sha + b"\n")
                    extra_wants.extend(self.store[sha].parents)
                shallow = (shallow - unshallow) | boundary
            yield DELIM
        if wanted_refs:
            yield pkt(b"wanted-refs\n")
            for name, sha in wanted_refs:
                yield pkt(sha + b" " + name.encode("utf-8") + b"\n")
            yield DELIM
        yield pkt(b"packfile\n")
        notes: list[bytes] = []
        tagged = self._tagged(refs) if self.include_tag else None
        chunks = build_pack(self.repo, self.wants + extra_wants, common, shallow=shallow,
                            client_shallow=self.client_shallow, filter_spec=self.filter,
                            thin=self.thin, ofs_delta=self.ofs_delta, tagged=tagged,
                            progress=None if self.no_progress else notes.append)
        for piece in pieces(chunks, _PKT_MAX_DATA):
            while notes:
                yield pkt(bytes([SIDEBAND_PROGRESS]) + notes.pop(0))
            yield b"".join((b"%04x%c" % (len(piece) + 5, SIDEBAND_DATA), piece))
            del piece
        yield FLUSH

    def _read_refs(self) -> dict[str, refdb.RefValue]:
        """The want-refs and, for include-tag, the tags with them: one Query where the
        repository's refs allow (refdb.load_prefixed).  Without want-refs the tags wait
        until a pack is sure to be sent (``_tagged``)."""
        if not self.want_refs:
            return {}
        names = [*self.want_refs, *(["refs/tags/"] if self.include_tag else [])]
        return refs_under(self.repo.repo_id, names)

    def _resolve_want_refs(self, found: dict[str, refdb.RefValue]) -> list[tuple[str, bytes]]:
        resolved = []
        for name in self.want_refs:
            value = found.get(name)
            if value is not None and value.symref is not None:
                value = _ref_value(self.repo.repo_id, value.symref, found)
            if value is None or value.sha is None:
                raise ProtocolError(f"unknown ref {name}")
            resolved.append((name, value.sha.encode("ascii")))
        return resolved

    def _shallow_plan(self) -> tuple[set[bytes], set[bytes]]:
        """(new shallow boundary, client shallow commits now complete)."""
        excluded = []
        if self.deepen_not:
            refs = refdb.load_refs(self.repo.repo_id)
            for name in self.deepen_not:
                for candidate in (name, f"refs/heads/{name}", f"refs/tags/{name}"):
                    value = refs.get(candidate)
                    if value is not None and value.sha:
                        excluded.append((value.peeled or value.sha).encode("ascii"))
                        break
                else:
                    raise ProtocolError(f"git upload-pack: ambiguous deepen-not: {name}")
        starts = self.wants
        depth = self.depth
        if self.deepen_relative and depth is not None and self.client_shallow:
            starts, depth = sorted(self.client_shallow), depth + 1
        heads = [obj.id for sha in starts if isinstance(obj := self._object(sha), Commit)]
        kept, boundary = shallow_boundary(self.store, heads, depth=depth, since=self.since,
                                          excluded=excluded)
        if self.since is not None and not kept:
            raise ProtocolError("no commits selected for shallow requests")
        unshallow = {sha for sha in self.client_shallow if sha in kept and sha not in boundary}
        return boundary, unshallow

    def _object(self, sha: bytes):
        try:
            obj = self.store[sha]
        except KeyError:
            return None
        while not isinstance(obj, Commit) and hasattr(obj, "object"):
            obj = self.store[obj.object[1]]
        return obj

    def _tagged(self, refs: dict[str, refdb.RefValue]) -> dict[bytes, bytes]:
        if not self.want_refs:
            refs = refs_under(self.repo.repo_id, ["refs/tags/"])
        tagged = {}
        for name, value in refs.items():
            if (name.startswith("refs/tags/") and value.sha and value.peeled
                    and value.peeled != value.sha):
                tagged[value.peeled.encode("ascii")] = value.sha.encode("ascii")
        return tagged
