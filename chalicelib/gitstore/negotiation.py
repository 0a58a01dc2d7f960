"""Negotiation helpers of a fetch that is not v0 (dulwich negotiates v0): when the
client may stop sending haves, and where a shallow fetch cuts history."""
from __future__ import annotations

from collections import deque
from typing import Iterable

from dulwich.objects import Commit

from chalicelib.gitstore.upload_pack import commit_or_none


def all_wants_reached(store, wants: Iterable[bytes], common: Iterable[bytes]) -> bool:
    """Whether every wanted commit has a common commit among its ancestors (git's
    "ok to give up": the client may stop sending haves)."""
    common = set(common)
    if not common:
        return False
    times = [c.commit_time for sha in common if (c := commit_or_none(store, sha)) is not None]
    oldest = min(times, default=0)
    reached: set[bytes] = set(common)
    for want in wants:
        start = commit_or_none(store, want)
        if start is None:
            continue
        pending, seen, found = [start], {want}, False
        while pending and not found:
            commit = pending.pop()
            for parent in commit.parents:
                if parent in reached:
                    found = True
                    break
                if parent in seen:
                    continue
                seen.add(parent)
                obj = commit_or_none(store, parent)
                if obj is not None and obj.commit_time >= oldest:
                    pending.append(obj)
        if not found and want not in reached:
            return False
        reached.add(want)
    return True


def shallow_boundary(store, wants: Iterable[bytes], *, depth: int | None = None,
                     since: int | None = None, excluded: Iterable[bytes] = (),
                     ) -> tuple[set[bytes], set[bytes]]:
    """(commits kept, commits among them whose parents are cut) for ``deepen <depth>``,
    ``deepen-since <time>`` or ``deepen-not`` (commits reachable from ``excluded``)."""
    not_wanted: set[bytes] = set()
    pending = deque(excluded)
    while pending:
        sha = pending.popleft()
        if sha in not_wanted:
            continue
        commit = commit_or_none(store, sha)
        if commit is None:
            continue
        not_wanted.add(sha)
        pending.extend(commit.parents)

    def keeps(commit: Commit, level: int) -> bool:
        return (commit.id not in not_wanted and (depth is None or level < depth)
                and (since is None or commit.commit_time >= since))

    kept: dict[bytes, int] = {}
    boundary: set[bytes] = set()
    queue = deque((sha, 0) for sha in wants)
    while queue:
        sha, level = queue.popleft()
        if sha in kept and kept[sha] <= level:
            continue
        commit = commit_or_none(store, sha)
        if commit is None or (not keeps(commit, level) and level > 0):
            continue
        kept[sha] = level
        cut = [p for p in commit.parents
               if (pc := commit_or_none(store, p)) is None or not keeps(pc, level + 1)]
        if cut:
            boundary.add(sha)
        else:
            boundary.discard(sha)
        queue.extend((p, level + 1) for p in commit.parents if p not in cut)
    return set(kept), boundary
