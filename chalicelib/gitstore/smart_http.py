"""Git smart-HTTP protocol runners, free of any HTTP framework.

The caller routes, authenticates, inflates gzip bodies and picks the content types
(``application/x-<service>-advertisement`` / ``-result``); these functions turn request
bytes into response bytes with dulwich's handlers in stateless-RPC mode (one POST is
one negotiation round, i.e. one Lambda invocation).

Fetches: protocol v0/v1 negotiation is dulwich's; protocol v2 (a client sending
``Git-Protocol: version=2``) is ``protocol_v2``'s.  Either way the pack is made by
``upload_pack.build_pack``, which applies partial clone filters (``pack_filter``).  As
Forgejo configures git (``uploadpack.allowFilter``, ``uploadpack.allowAnySHA1InWant``), a
client may want any object by id, not only ref tips: a partial clone's lazy fetches ask
for blobs that way.  Where the object pool is shared with forks the caller narrows that
to objects reachable from this repository's refs.

Pushes (``receive_pack``): the pack is stored and published first; then every ref
update of the push is applied in ONE DynamoDB transaction conditional on the old values
the client sent, so a push lands whole or not at all, and a ref that moved since the
client looked is refused as stale (``ng <ref> stale old value ...``).  The caller may
supply that transaction (``commit_refs``) to write more with the refs: the service layer
adds branch records, repository metadata and the push's events to it.  Fast-forward
checks are the client's: git refuses a non-fast-forward push itself unless forced, and
what the server guarantees is that the ref still holds the old value the client based
its decision on (the compare-and-swap).  That is git's own default for servers
(``receive.denyNonFastForwards`` false).
"""
from __future__ import annotations

import logging
import zlib
from io import BytesIO
from typing import Callable, Iterator

from dulwich.errors import (ApplyDeltaError, ChecksumMismatch, GitProtocolError, HangupException,
                            ObjectFormatException)
from dulwich.object_store import PackInputTooLarge
from dulwich.pack import UnresolvedDeltas
from dulwich.protocol import (CAPABILITY_ATOMIC, CAPABILITY_NO_DONE, CAPABILITY_OFS_DELTA,
                              CAPABILITY_SIDE_BAND_64K, CAPABILITY_THIN_PACK,
                              SIDE_BAND_CHANNEL_FATAL, SIDE_BAND_CHANNEL_PROGRESS,
                              ReceivableProtocol)
from dulwich.server import (ReceivePackHandler, UploadPackHandler, _is_funny_ref,
                            _ProtocolGraphWalker)

from chalicelib.gitstore import protocol_v2, refdb
from chalicelib.gitstore.errors import (GitStoreError, ProtocolError, RefUpdateFailed, StaleRefs,
                                        TooManyRefUpdates)
from chalicelib.gitstore.pack_filter import FilterRefused, parse_filter
from chalicelib.gitstore.repo import NimbusRepo
from chalicelib.gitstore.upload_pack import NotOurRef, build_pack, check_wants

logger = logging.getLogger(__name__)

Update = tuple[str, str, str]  # (ref, old sha, new sha), hex; zeros mean absent
UPLOAD_PACK = "git-upload-pack"
# What a broken, oversized or incomplete pack raises (dulwich's list plus ours).
_BAD_PACK = (GitStoreError, PackInputTooLarge, UnresolvedDeltas, ChecksumMismatch,
             ApplyDeltaError, ObjectFormatException, AssertionError, zlib.error)
RECEIVE_PACK = "git-receive-pack"
# The most data one side-band-64k frame carries: a piece is one frame.
PACK_WRITE_SIZE = 65515


class _Backend:
    """dulwich handlers open their repository through a backend: hand ours over."""

    def __init__(self, repo: NimbusRepo):
        self.repo = repo

    def open_repository(self, path) -> NimbusRepo:
        return self.repo


def _always() -> bool:
    return True


def _scan_request(body: bytes) -> tuple[list[bytes], bytes | None]:
    """(wanted ids, filter spec) of a v0 fetch request, read ahead of dulwich."""
    wants, spec = [], None
    for line in protocol_v2.read_pkts(body):
        if not isinstance(line, bytes):
            break
        if line.startswith(b"want "):
            wants.append(line[5:45])
        elif line.startswith(b"filter "):
            spec = line[len(b"filter "):]
    return wants, spec


class _UploadPack(UploadPackHandler):
    """dulwich's v0/v1 negotiation; wants of unadvertised objects, filters and the pack
    are ours."""

    def __init__(self, backend, args, proto, *, body: bytes = b"",
                 any_object: Callable[[], bool] = _always, **kw):
        super().__init__(backend, args, proto, **kw)
        self.body = body
        self.any_object = any_object
        self.pending_pack: Iterator[bytes] | None = None

    # dulwich would parse the filter line into a spec it applies loosely (it filters
    # explicitly wanted blobs, ignores the haves): the filter is parsed from the request
    # here and applied by build_pack.
    @property
    def filter_spec(self):
        return None

    @filter_spec.setter
    def filter_spec(self, value) -> None:
        pass

    def capabilities(self) -> list[bytes]:
        # What git advertises under uploadpack.allowAnySHA1InWant; without them a v0
        # client refuses to ask for objects by id (a partial clone's lazy fetches).
        return [*super().capabilities(), b"allow-tip-sha1-in-want",
                b"allow-reachable-sha1-in-want"]

    def get_tagged(self, refs=None, repo=None):
        # dulwich looks for ``self.repo.repo`` (its disk backend) to peel tags for
        # include-tag; our repo peels from stored values, so pass it directly.
        return super().get_tagged(refs, repo=repo or self.repo)

    def handle(self) -> None:
        if self.advertise_refs:
            super().handle()
            return
        self._processing_have_lines = True
        store = self.repo.object_store
        walker = _ProtocolGraphWalker(self, store, self.repo.get_peeled,
                                      self.repo.refs.get_symrefs)
        refs = self.repo.get_refs()
        requested, spec = _scan_request(self.body)
        filter_spec = parse_filter(spec) if spec is not None else None
        advertised = set(refs.values())
        extra = [sha for sha in dict.fromkeys(requested) if sha not in advertised]
        check_wants(store, extra, any_object=self.any_object, tips=lambda: advertised)
        # dulwich accepts only wants among the refs it is given: hand the checked
        # unadvertised ones over under names no ref can have.
        heads = {**refs, **{b"\0want " + sha: sha for sha in extra}}
        wants = walker.determine_wants(heads)
        if not wants:
            return
        haves = store.find_common_revisions(walker)
        if not walker.handle_done(not self.has_capability(CAPABILITY_NO_DONE),
                                  self._done_received):
            return
        self._start_pack_send_phase()
        deepened = [p for sha in walker.unshallow for p in store[sha].parents]
        # The client's shallow commits it keeps shallow are boundaries as well.
        shallow = set(walker.shallow) | (set(walker.client_shallow) - set(walker.unshallow))
        # The pack is built while the answer streams (``pack_frames``), not here: a
        # generator, it runs only when iterated.
        self.pending_pack = build_pack(self.repo, wants + deepened, haves, shallow=shallow,
                                       client_shallow=walker.client_shallow,
                                       filter_spec=filter_spec,
                                       thin=self.has_capability(CAPABILITY_THIN_PACK),
                                       ofs_delta=self.has_capability(CAPABILITY_OFS_DELTA),
                                       tagged=self.get_tagged(refs, repo=self.repo),
                                       progress=self.progress)

    def pack_frames(self, out: BytesIO) -> Iterator[bytes]:
        """The pack section of the answer (side-band frames when negotiated), then the
        flush, as chunks of about PACK_WRITE_SIZE; ``out`` is the protocol's buffer.
        The pack's chunks are cut, not gathered: memory holds one chunk and one frame."""
        if self.pending_pack is None:
            return

        def taken() -> bytes:
            data = out.getvalue()
            out.seek(0)
            out.truncate()
            return data
        try:
            for piece in protocol_v2.pieces(self.pending_pack, PACK_WRITE_SIZE):
                self.write_pack_data(bytes(piece))
                del piece
                yield taken()
        except Exception as exc:  # noqa: BLE001 - the answer has begun: say it in-band
            logger.exception("upload-pack of %s failed while streaming", self.repo)
            if self.has_capability(CAPABILITY_SIDE_BAND_64K):
                reason = str(exc) if isinstance(exc, GitStoreError) else "internal error"
                self.proto.write_sideband(SIDE_BAND_CHANNEL_FATAL,
                                          f"upload-pack: {reason}\n".encode())
            yield taken()
            return
        self.proto.write_pkt_line(None)
        yield taken()


class _ReceivePack(ReceivePackHandler):
    """dulwich's handler with its one-by-one ref updates replaced by one transaction."""

    def __init__(self, backend, args, proto, *, before_commit=None, check_update=None,
                 commit_refs=None, check_push=None, check_refs=None, after_commit=None,
                 **kw):
        super().__init__(backend, args, proto, **kw)
        self.before_commit = before_commit
        self.after_commit = after_commit
        self.check_update = check_update
        self.check_push = check_push
        self.check_refs = check_refs
        self.commit_refs = commit_refs or self.repo.refs.commit_updates
        self.committed: list[Update] = []

    def _apply_pack(self, refs):
        zero = b"0" * self.repo.object_format.hex_length
        refusal = self.check_push([(ref.decode("utf-8", "replace"), old.decode(), new.decode())
                                   for old, new, ref in refs]) if self.check_push else None
        if refusal:
            # The whole push is refused before its pack is read (nothing is stored), as
            # a failing pre-receive hook refuses it: git prints "remote: <reason>" and
            # every ref as rejected with the reason.
            if self.has_capability(CAPABILITY_SIDE_BAND_64K):
                self.proto.write_sideband(SIDE_BAND_CHANNEL_PROGRESS,
                                          refusal.encode("utf-8") + b"\n")
            yield b"unpack", b"ok"
            for _, _, ref in refs:
                yield ref, refusal.replace("\n", " ").encode("utf-8")
            return
        if any(new != zero for _, new, _ in refs):
            # A push that only creates refs may bring a pack that is all they reach.
            created = ([new for old, new, _ in refs if new != zero]
                       if all(old == zero for old, _, _ in refs) else None)
            try:
                self.repo.object_store.add_thin_pack(
                    self.proto.read, getattr(self.proto, "recv", None),
                    max_input_size=self._receive_max_input_size(), closed_over=created)
            except _BAD_PACK as exc:
                # Nothing was published; tell the client why, for every ref.
                logger.info("push to %s refused: %s", self.repo, exc)
                message = str(exc).replace("\n", " ").encode("utf-8", "replace")
                yield b"unpack", message
                for _, _, ref in refs:
                    yield ref, b"unpacker error"
                return
        yield b"unpack", b"ok"

        # Statuses by position: the report lists refs in the order the client sent them.
        status: list[bytes | None] = []
        accepted: list[tuple[int, Update]] = []
        seen: set[bytes] = set()
        for old, new, ref in refs:
            problem = self._refusal(old, new, ref, zero, seen)
            seen.add(ref)
            status.append(problem)
            if problem is None:
                update = (ref.decode("utf-8"), old.decode(), new.decode())
                accepted.append((len(status) - 1, update))
        if accepted and len(accepted) < len(refs) and self.has_capability(CAPABILITY_ATOMIC):
            for i, _ in accepted:
                status[i] = b"atomic push failed"
            accepted = []
        if accepted and self.check_refs is not None:
            self._pre_receive(accepted, status)
        if accepted:
            self._commit(accepted, status)
        for (_, _, ref), problem in zip(refs, status):
            yield ref, problem or b"ok"

    def _refusal(self, old: bytes, new: bytes, ref: bytes, zero: bytes, seen: set) -> bytes | None:
        if _is_funny_ref(ref):
            return b"funny refname"
        if ref in seen:
            return b"ref updated twice in one push"
        try:
            refdb.check_ref_name(ref)
        except GitStoreError:
            return b"invalid ref name"
        if new != zero and new not in self.repo.object_store:
            return b"missing necessary objects"
        if self.check_update is not None:
            reason = self.check_update(ref.decode("utf-8"), old.decode(), new.decode())
            if reason:
                return reason.replace("\n", " ").encode("utf-8")
        return self._on_update(ref, old, new)

    def _pre_receive(self, accepted: list[tuple[int, Update]], status: list[bytes | None]) -> None:
        """``check_refs`` sees the whole push once its objects are stored (it may read
        the new commits) and may refuse it as git's pre-receive hook does: the message
        goes to the client's terminal ("remote: ..."), every ref is rejected with
        "pre-receive hook declined", and no ref moves."""
        message = self.check_refs([update for _, update in accepted])
        if not message:
            return
        if self.has_capability(CAPABILITY_SIDE_BAND_64K):
            self.proto.write_sideband(SIDE_BAND_CHANNEL_PROGRESS,
                                      b"\n" + message.encode("utf-8", "replace") + b"\n")
        for i, _ in accepted:
            status[i] = b"pre-receive hook declined"
        accepted.clear()

    def _commit(self, accepted: list[tuple[int, Update]], status: list[bytes | None]) -> None:
        updates = [update for _, update in accepted]
        if self.before_commit is not None:
            # Fault-injection point: an exception here is a crash between storing the
            # pack and moving refs; it propagates, the refs stay as they were.
            self.before_commit(list(updates))
        try:
            self.commit_refs(updates)
        except StaleRefs as exc:
            for i, (ref, _, _) in accepted:
                status[i] = (b"stale old value: ref moved since fetched" if ref in exc.refs
                             else b"atomic transaction failed")
        except (RefUpdateFailed, TooManyRefUpdates) as exc:
            for i, _ in accepted:
                status[i] = str(exc).encode("utf-8", "replace")
        else:
            self.committed = updates
            self._tell_after_commit(updates)

    def _tell_after_commit(self, updates: list[Update]) -> None:
        """``after_commit``'s message for the pusher's terminal ("remote: ..."), as git's
        post-receive hook output; the push landed whatever it says or raises."""
        if self.after_commit is None or not self.has_capability(CAPABILITY_SIDE_BAND_64K):
            return
        try:
            message = self.after_commit(list(updates))
        except Exception:  # noqa: BLE001 - a message is no reason to fail a push
            logger.exception("after_commit failed after a push to %s", self.repo)
            return
        if message:
            self.proto.write_sideband(SIDE_BAND_CHANNEL_PROGRESS,
                                      message.encode("utf-8", "replace"))


def wants_v2(git_protocol: str | None) -> bool:
    """Whether a ``Git-Protocol`` header asks for protocol version 2."""
    return "version=2" in (git_protocol or "").replace(" ", "").split(":")


def advertise(repo: NimbusRepo, service: str, git_protocol: str | None = None) -> bytes:
    """Body of ``GET info/refs?service=<service>``: the service line, a flush, then the
    refs advertisement with capabilities; for upload-pack and a client asking for
    protocol v2 (``git_protocol``, the ``Git-Protocol`` header), v2's capabilities."""
    if service == UPLOAD_PACK and wants_v2(git_protocol):
        return protocol_v2.capabilities(repo)
    handler_cls = {UPLOAD_PACK: _UploadPack, RECEIVE_PACK: _ReceivePack}.get(service)
    if handler_cls is None:
        raise ProtocolError(f"unsupported service {service!r}")
    out = BytesIO()
    proto = ReceivableProtocol(BytesIO().read, out.write)
    proto.write_pkt_line(b"# service=" + service.encode("ascii") + b"\n")
    proto.write_pkt_line(None)
    handler_cls(_Backend(repo), [b"/"], proto, stateless_rpc=True, advertise_refs=True).handle()
    return out.getvalue()


def upload_pack(repo: NimbusRepo, body: bytes, git_protocol: str | None = None, *,
                any_object: Callable[[], bool] = _always) -> bytes:
    """Body of ``POST git-upload-pack`` (fetch and clone, shallow and partial included),
    whole.  ``any_object()``: whether every stored object may be wanted, else only those
    reachable from the refs (see the module docstring)."""
    return b"".join(upload_pack_stream(repo, body, git_protocol, any_object=any_object))


def upload_pack_stream(repo: NimbusRepo, body: bytes, git_protocol: str | None = None, *,
                       any_object: Callable[[], bool] = _always) -> Iterator[bytes]:
    """``upload_pack`` as chunks, the pack built as they are taken: memory stays near
    one chunk whatever the pack's size.  Negotiation runs on the first ``next``, so
    refusals (ERR lines) and ProtocolError come before any pack byte; a failure later
    is reported in-band on side-band channel 3, which git shows as a remote error."""
    if wants_v2(git_protocol) or body[4:12] == b"command=":
        yield from protocol_v2.serve_stream(repo, body, any_object=any_object)
        return
    out = BytesIO()
    proto = ReceivableProtocol(BytesIO(body).read, out.write)
    handler = _UploadPack(_Backend(repo), [b"/"], proto, stateless_rpc=True, body=body,
                          any_object=any_object)
    try:
        _run(handler)
    except (FilterRefused, NotOurRef) as exc:
        yield protocol_v2.pkt_error(str(exc))
        return
    negotiated = out.getvalue()
    out.seek(0)
    out.truncate()
    yield negotiated
    yield from handler.pack_frames(out)


def receive_pack(repo: NimbusRepo, body: bytes, *,
                 on_updated: Callable[[list[Update]], None] | None = None,
                 before_commit: Callable[[list[Update]], None] | None = None,
                 check_update: Callable[[str, str, str], str | None] | None = None,
                 commit_refs: Callable[[list[Update]], None] | None = None,
                 check_push: Callable[[list[Update]], str | None] | None = None,
                 check_refs: Callable[[list[Update]], str | None] | None = None,
                 after_commit: Callable[[list[Update]], str | None] | None = None) -> bytes:
    """Body of ``POST git-receive-pack`` (push).

    ``check_update(ref, old, new)`` may refuse one ref update by returning a reason
    (protected branch, deleting the default branch): the client sees
    ``ng <ref> <reason>``; with ``--atomic`` the whole push is refused.
    ``on_updated(updates)`` runs after the ref transaction committed, with the
    ``(ref, old, new)`` hex tuples that landed; its errors are logged, not reported to
    the client, whose push did succeed.  ``before_commit(updates)`` runs after the pack
    is stored and before the refs move (tests use it to simulate a crash).
    ``commit_refs(updates)`` moves the refs instead of ``repo.refs.commit_updates``, all
    or nothing, raising StaleRefs / RefUpdateFailed / TooManyRefUpdates as that does.
    ``check_push(updates)`` may refuse the whole push before its pack is read (quota):
    git shows ``remote: <reason>`` and every ref rejected with the reason.
    ``check_refs(updates)`` sees the updates that passed the per-ref checks once the
    pack is stored, and may refuse them all as a pre-receive hook does (protection rules).
    ``after_commit(updates)`` may answer a message for the pusher once the refs moved
    (git prints it as "remote: ..." lines, as a post-receive hook's output).
    """
    out = BytesIO()
    proto = ReceivableProtocol(BytesIO(body).read, out.write)
    handler = _ReceivePack(_Backend(repo), [b"/"], proto, stateless_rpc=True,
                           before_commit=before_commit, check_update=check_update,
                           commit_refs=commit_refs, check_push=check_push,
                           check_refs=check_refs, after_commit=after_commit)
    _run(handler)
    if handler.committed and on_updated is not None:
        try:
            on_updated(list(handler.committed))
        except Exception:  # noqa: BLE001 - the refs moved; the client must hear "ok"
            logger.exception("on_updated failed after a push to %s", repo)
    return out.getvalue()


def _run(handler) -> None:
    try:
        handler.handle()
    except (GitProtocolError, HangupException) as exc:
        raise ProtocolError(f"git protocol error: {exc}") from exc
