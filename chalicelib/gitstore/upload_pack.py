"""What a fetch sends, once negotiation is over: the object walk and the pack.

``build_pack`` is the one place a pack for a fetch or clone is made (protocol v0/v1 in
``smart_http`` and v2 in ``protocol_v2`` both end here), so a faster way to make some
packs (reusing a stored pack verbatim for a plain full clone) plugs in at one spot.

The walk follows git's rev-list: commits are visited newest first from the wants
(interesting) and the client's common haves (uninteresting); uninteresting marks spread
to parents, and the walk stops once only uninteresting commits are queued.  Trees and
blobs of the uninteresting commits at the edge are what the client is known to have:
they are skipped, and with ``thin`` they may serve as delta bases; as in git's sparse
walk, only the paths where a sent tree differs from the edge's are compared
(``_TreeWalk``).  Shallow boundaries
are grafts: a commit in ``shallow`` is walked as if it had no parents, and so is one
the client says it has shallow when spreading uninteresting marks (the client does not
have its parents).
"""
from __future__ import annotations

import heapq
import stat
from collections import deque
from typing import Callable, Iterable, Iterator, Mapping

from dulwich.objects import S_ISGITLINK, Blob, Commit, Tag, Tree

from chalicelib.gitstore import pack_reuse, pack_subset
from chalicelib.gitstore.errors import ProtocolError
from chalicelib.gitstore.pack_filter import ObjectFilter

# Re-exported: callers import names_by_offset from this module.
from chalicelib.gitstore.pack_writer import names_by_offset as names_by_offset
from chalicelib.gitstore.pack_writer import write_pack
from chalicelib.gitstore.repo import NimbusRepo

Progress = Callable[[bytes], None]


class NotOurRef(ProtocolError):
    """A want the server will not serve (absent, or not reachable when that matters)."""

    def __init__(self, sha: bytes):
        super().__init__(f"upload-pack: not our ref {sha.decode('ascii', 'replace')}")
        self.sha = sha


def check_wants(store, wants: Iterable[bytes], *, any_object: Callable[[], bool],
                tips: Callable[[], Iterable[bytes]],
                known_tips: Iterable[bytes] = ()) -> None:
    """NotOurRef for the first want that may not be served.  With ``any_object()``
    (git's allowAnySHA1InWant, which Forgejo sets) every stored object may be wanted;
    otherwise (an object pool shared with forks) only those reachable from ``tips()``,
    git's allowReachableSHA1InWant.  ``known_tips``: wants already known to be ref
    tips (want-ref values), for which neither is asked."""
    wants = list(dict.fromkeys(wants))
    for sha in wants:
        if sha not in store:
            raise NotOurRef(sha)
    known_tips = set(known_tips)
    if any(sha not in known_tips for sha in wants) and not any_object():
        tip_set = set(tips()) | known_tips
        rest = [sha for sha in wants if sha not in tip_set]
        reached = reachable_from(store, tip_set, rest) if rest else set()
        for sha in rest:
            if sha not in reached:
                raise NotOurRef(sha)


def commit_or_none(store, sha: bytes) -> Commit | None:
    try:
        obj = store[sha]
    except KeyError:
        return None
    return obj if isinstance(obj, Commit) else None


def peel_wants(store, wants: Iterable[bytes]) -> tuple[list[bytes], list[bytes], list[bytes]]:
    """(tags, commits, other objects) among the wants, tags followed to their targets."""
    tags, commits, other = [], [], []
    pending = deque(dict.fromkeys(wants))
    seen: set[bytes] = set()
    while pending:
        sha = pending.popleft()
        if sha in seen:
            continue
        seen.add(sha)
        try:
            obj = store[sha]
        except KeyError:
            raise NotOurRef(sha) from None
        if isinstance(obj, Tag):
            tags.append(sha)
            pending.append(obj.object[1])
        elif isinstance(obj, Commit):
            commits.append(sha)
        else:
            other.append(sha)
    return tags, commits, other


def walk_commits(store, wants: Iterable[bytes], haves: Iterable[bytes], *,
                 shallow: frozenset | set = frozenset(),
                 client_shallow: frozenset | set = frozenset()) -> tuple[list[bytes], set[bytes]]:
    """(commits to send, newest first; uninteresting commits at the edge)."""
    uninteresting: set[bytes] = set()
    queued: set[bytes] = set()
    heap: list[tuple[int, int, bytes]] = []
    # Queued commits still thought interesting: the walk ends when there are none.
    hopeful: set[bytes] = set()
    objects: dict[bytes, Commit] = {}

    def push(sha: bytes, bad: bool) -> None:
        if bad:
            uninteresting.add(sha)
            hopeful.discard(sha)
        if sha in queued:
            return
        commit = objects.get(sha) or commit_or_none(store, sha)
        if commit is None:
            return
        objects[sha] = commit
        queued.add(sha)
        heapq.heappush(heap, (-commit.commit_time, len(queued), sha))
        if not bad:
            hopeful.add(sha)

    for sha in haves:
        push(sha, True)
    for sha in wants:
        push(sha, sha in uninteresting)
    sent: list[bytes] = []
    edge: set[bytes] = set()
    while heap and hopeful:
        _, _, sha = heapq.heappop(heap)
        hopeful.discard(sha)
        commit = objects[sha]
        bad = sha in uninteresting
        grafted = sha in shallow or (bad and sha in client_shallow)
        parents = [] if grafted else commit.parents
        if bad:
            for parent in parents:
                push(parent, True)
            continue
        sent.append(sha)
        for parent in parents:
            push(parent, parent in uninteresting)
    for sha in sent:
        edge.update(p for p in objects[sha].parents if p in uninteresting)
    sent = [sha for sha in sent if sha not in uninteresting]
    return sent, edge


def _tree_objects(store, tree_id: bytes, into: set[bytes]) -> None:
    """Every tree and blob under a tree (what a client holding that tree has)."""
    pending = [tree_id]
    while pending:
        sha = pending.pop()
        if sha in into:
            continue
        into.add(sha)
        try:
            tree = store[sha]
        except KeyError:
            continue
        for entry in tree.iteritems():
            if S_ISGITLINK(entry.mode) or entry.sha in into:
                continue
            if stat.S_ISDIR(entry.mode):
                pending.append(entry.sha)
            else:
                into.add(entry.sha)


class _TreeWalk:
    """Trees and blobs to send, below roots, minus what the client has, cut by a filter.

    What the client has is learnt the way git's sparse walk (pack.useSparse, its
    default) learns it: a sent tree is compared with the trees the client's edge
    commits hold at the same path, and only subtrees that differ are opened, so a small
    fetch reads the few trees along its changed paths, not the whole tree of the
    commit it builds on.  An entry equal to the one at its path is known; a version of
    a path the client holds is known too (a delta base for a thin pack).  Like git's,
    the walk may send again an object the client holds at another path (a rename)."""

    def __init__(self, store, known: set[bytes], filter_spec: ObjectFilter | None):
        self.store = store
        self.known = known
        self.filter = filter_spec
        self.out: dict[bytes, int] = {}
        self.depth_seen: dict[bytes, int] = {}
        self.too_big: set[bytes] = set()
        self.entries: dict[tuple, dict[bytes, list[tuple[int, bytes]]]] = {}

    def _by_name(self, trees: list[bytes]) -> dict[bytes, list[tuple[int, bytes]]]:
        """{name: [(mode, id)]} of the entries of ``trees``, kept: the same trees come
        back for every sent commit (the edge's root trees)."""
        key = tuple(trees)
        merged = self.entries.get(key)
        if merged is None:
            merged = {}
            for tree in trees:
                try:
                    items = self.store[tree].iteritems()
                except KeyError:
                    items = []
                for entry in items:
                    merged.setdefault(entry.path, []).append((entry.mode, entry.sha))
            self.entries[key] = merged
        return merged

    def add_tree(self, root: bytes, depth: int = 0, *, given: bool = False,
                 bases: Iterable[bytes] = ()) -> None:
        """``bases``: the client's trees at the path of ``root``."""
        pending = [(root, depth, given, list(bases))]
        while pending:
            sha, depth, given, bases = pending.pop()
            if sha in self.known:
                continue
            if not given and self.filter is not None and self.filter.omits_tree(depth):
                continue
            previous = self.depth_seen.get(sha)
            if previous is not None and previous <= depth:
                continue
            # A tree met again nearer the root may keep entries a deeper visit cut.
            self.depth_seen[sha] = depth
            self.out.setdefault(sha, Tree.type_num)
            theirs = self._by_name(bases) if bases else {}
            for entry in self.store[sha].iteritems():
                if S_ISGITLINK(entry.mode) or entry.sha in self.known:
                    continue
                at_path = theirs.get(entry.path, ())
                self.known.update(other for _, other in at_path)
                if entry.sha in self.known:
                    continue
                if stat.S_ISDIR(entry.mode):
                    pending.append((entry.sha, depth + 1, False,
                                    [other for mode, other in at_path if stat.S_ISDIR(mode)]))
                else:
                    self.add_blob(entry.sha, depth + 1)

    def add_blob(self, sha: bytes, depth: int, *, given: bool = False) -> None:
        if sha in self.out or sha in self.known:
            return
        if not given and self.filter is not None:
            if self.filter.omits_blob_at(depth) or sha in self.too_big:
                return
            if self.filter.needs_sizes and self.filter.omits_blob_of_size(
                    len(self.store[sha].as_raw_string())):
                self.too_big.add(sha)
                return
        self.out[sha] = Blob.type_num


def objects_to_send(repo: NimbusRepo, wants: Iterable[bytes], haves: Iterable[bytes], *,
                    shallow: Iterable[bytes] = (), client_shallow: Iterable[bytes] = (),
                    filter_spec: ObjectFilter | None = None,
                    tagged: Mapping[bytes, bytes] | None = None) -> tuple[dict[bytes, int], set[bytes]]:
    """({object id: type number} to send, objects the client is known to have)."""
    store = repo.object_store
    tags, commit_wants, others = peel_wants(store, wants)
    commits, edge = walk_commits(store, commit_wants, haves, shallow=set(shallow),
                                 client_shallow=set(client_shallow))
    edge_trees = [store[sha].tree for sha in sorted(edge)]
    known: set[bytes] = set(edge) | set(edge_trees)
    out: dict[bytes, int] = {sha: Commit.type_num for sha in commits}
    walk = _TreeWalk(store, known, filter_spec)
    for sha in others:
        obj = store[sha]
        if isinstance(obj, Tree):
            walk.add_tree(sha, given=True)
        else:
            walk.add_blob(sha, 0, given=True)
    for sha in commits:
        walk.add_tree(store[sha].tree, bases=edge_trees)
    out.update(walk.out)
    for sha in tags:
        out[sha] = Tag.type_num
    if tagged:
        _add_tags(store, out, tagged)
    return out, known


def _add_tags(store, out: dict[bytes, int], tagged: Mapping[bytes, bytes]) -> None:
    """include-tag: annotated tags (and tags of tags) whose target is being sent."""
    for peeled, tag in tagged.items():
        if peeled not in out or tag in out:
            continue
        sha = tag
        while sha not in out:
            obj = store[sha]
            if not isinstance(obj, Tag):
                break
            out[sha] = Tag.type_num
            sha = obj.object[1]


def build_pack(repo: NimbusRepo, wants: Iterable[bytes], haves: Iterable[bytes], *,
               shallow: Iterable[bytes] = (), client_shallow: Iterable[bytes] = (),
               filter_spec: ObjectFilter | None = None, thin: bool = False,
               ofs_delta: bool = True, tagged: Mapping[bytes, bytes] | None = None,
               progress: Progress | None = None) -> Iterator[bytes]:
    """The pack for a negotiated fetch, as chunks.

    ``wants``: any objects; ``haves``: commits the client has (present here);
    ``shallow``: commits the client will hold without parents after this fetch;
    ``client_shallow``: commits it holds without parents now; ``tagged``: {peeled id:
    tag id} of tags to add when their target is sent (include-tag); ``thin``: deltas
    may use objects the client has as bases; ``ofs_delta``: the client takes OFS_DELTA
    entries.  Stored deltas are reused, their entries copied in bounded pieces
    (``pack_writer``): memory does not grow with object sizes.

    A clone (no haves, nothing shallow, no filter) is first offered to
    ``pack_reuse``: when the main pack covers it, that pack's bytes are streamed as
    stored, plus what was pushed since, instead of building the pack object by object.
    A ``blob:none`` clone is offered to ``pack_subset`` the same way: the main pack's
    entries that are not blobs, copied as stored."""
    wants = list(wants)
    haves = list(haves)
    client_shallow = list(client_shallow)
    shallow = list(shallow)
    reused = pack_reuse.reuse_stream(
        repo, set(wants), set(haves), shallow=bool(shallow or client_shallow),
        filtered=filter_spec is not None, include_tag=tagged is not None,
        ofs_delta=ofs_delta)
    if reused is None:
        reused = pack_subset.blobless_stream(
            repo, set(wants), set(haves), shallow=bool(shallow or client_shallow),
            filter_spec=filter_spec, include_tag=tagged is not None, ofs_delta=ofs_delta)
    if reused is not None:
        yield from reused
        return
    objects, known = objects_to_send(repo, wants, haves, shallow=shallow,
                                     client_shallow=client_shallow,
                                     filter_spec=filter_spec, tagged=tagged)
    if progress is not None:
        progress(f"Enumerating objects: {len(objects)}, done.\n".encode("ascii"))
    yield from write_pack(repo.object_store, objects, known=known if thin else frozenset(),
                          ofs_delta=ofs_delta)


def reachable_from(store, tips: Iterable[bytes], targets: Iterable[bytes]) -> set[bytes]:
    """Which of ``targets`` are reachable from ``tips`` (whole-history walk, stopping
    once every target was found): the check for wants of a shared object pool."""
    missing = set(targets)
    seen: set[bytes] = set()
    trees: set[bytes] = set()
    pending = deque(tips)
    while pending and missing:
        sha = pending.popleft()
        if sha in seen:
            continue
        seen.add(sha)
        missing.discard(sha)
        try:
            obj = store[sha]
        except KeyError:
            continue
        if isinstance(obj, Tag):
            pending.append(obj.object[1])
        elif isinstance(obj, Commit):
            pending.extend(obj.parents)
            if obj.tree not in trees:
                _tree_objects(store, obj.tree, trees)
                missing -= trees
        elif isinstance(obj, Tree):
            _tree_objects(store, sha, trees)
            missing -= trees
    return set(targets) - missing
