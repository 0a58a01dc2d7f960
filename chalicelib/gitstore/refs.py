"""``DynamoRefsContainer``: dulwich's refs interface over ``refdb`` (one item per ref).

Reads come from a snapshot loaded with one Query on first use (a container lives for
one request); every write is a conditional DynamoDB write and then updates the
snapshot.  ``refresh()`` reloads.
"""
from __future__ import annotations

from typing import Callable, Iterable, Mapping

from dulwich.objects import ZERO_SHA
from dulwich.refs import SYMREF, RefsContainer

from chalicelib.gitstore import refdb
from chalicelib.gitstore.models import check_id

Peel = Callable[[bytes], "bytes | None"]


def _b(text: str | None) -> bytes | None:
    return None if text is None else text.encode("utf-8")


def _s(value: bytes | str) -> str:
    return value.decode("utf-8") if isinstance(value, bytes) else value


class DynamoRefsContainer(RefsContainer):
    def __init__(self, repo_id: object, *, peel: Peel | None = None):
        super().__init__()
        self.repo_id = check_id(repo_id, "repository id")
        # Maps a sha to its peeled sha (None if unknown); set by NimbusRepo so ref items
        # record peeled values and advertisements need no object reads.
        self.peel = peel
        self._snapshot: dict[bytes, refdb.RefValue] | None = None

    def refresh(self) -> None:
        self._snapshot = None

    def _refs(self) -> dict[bytes, refdb.RefValue]:
        if self._snapshot is None:
            self._snapshot = {name.encode("utf-8"): value
                              for name, value in refdb.load_refs(self.repo_id).items()}
        return self._snapshot

    def _remember(self, name: bytes, value: refdb.RefValue | None) -> None:
        if self._snapshot is None:
            return
        if value is None:
            self._snapshot.pop(name, None)
        else:
            self._snapshot[name] = value

    def _peeled(self, sha: bytes) -> str | None:
        if self.peel is None:
            return None
        try:
            peeled = self.peel(sha)
        except KeyError:
            return None
        return _s(peeled) if peeled is not None else None

    # -- reads ----------------------------------------------------------------------
    def allkeys(self) -> set[bytes]:
        return set(self._refs())

    def read_loose_ref(self, name: bytes) -> bytes | None:
        value = self._refs().get(name)
        if value is None:
            return None
        if value.symref is not None:
            return SYMREF + _b(value.symref)
        return _b(value.sha)

    def get_packed_refs(self) -> dict[bytes, bytes]:
        return {}

    def get_peeled(self, name: bytes) -> bytes | None:
        value = self._refs().get(name)
        return _b(value.peeled) if value is not None else None

    # -- writes ---------------------------------------------------------------------
    def set_symbolic_ref(self, name: bytes, other: bytes, committer=None, timestamp=None,
                         timezone=None, message=None) -> None:
        self._check_refname(name)
        self._check_refname(other)
        refdb.put_symref(self.repo_id, name, other)
        self._remember(name, refdb.RefValue(symref=_s(other)))

    def set_if_equals(self, name: bytes, old_ref: bytes | None, new_ref: bytes,
                      committer=None, timestamp=None, timezone=None, message=None) -> bool:
        self._check_ref_value(new_ref)
        # Like dulwich's containers, follow symrefs: setting HEAD moves its branch.
        refnames, _ = self.follow(name)
        target = refnames[-1] if refnames else name
        self._check_refname(target)
        peeled = self._peeled(new_ref)
        ok = refdb.put_ref(self.repo_id, target, _s(new_ref),
                           None if old_ref is None else _s(old_ref), peeled)
        if ok:
            self._remember(target, refdb.RefValue(sha=_s(new_ref), peeled=peeled))
        return ok

    def add_if_new(self, name: bytes, ref: bytes, committer=None, timestamp=None,
                   timezone=None, message=None) -> bool:
        self._check_ref_value(ref)
        self._check_refname(name)
        peeled = self._peeled(ref)
        ok = refdb.put_ref(self.repo_id, name, _s(ref), _s(ZERO_SHA), peeled)
        if ok:
            self._remember(name, refdb.RefValue(sha=_s(ref), peeled=peeled))
        return ok

    def remove_if_equals(self, name: bytes, old_ref: bytes | None, committer=None,
                         timestamp=None, timezone=None, message=None) -> bool:
        ok = refdb.delete_ref(self.repo_id, name, None if old_ref is None else _s(old_ref))
        if ok:
            self._remember(name, None)
        return ok

    def pack_refs(self, all: bool = False) -> None:  # noqa: A002 - dulwich's signature
        """Nothing to pack: every ref is its own item."""

    def checked_updates(self, updates: Iterable[tuple[bytes | str, bytes | str, bytes | str]]
                        ) -> list[refdb.Update]:
        """``(ref, old, new)`` changes as text, checked to fit one transaction (see
        refdb.check_updates) and to be well-formed ref names for git."""
        changes = refdb.check_updates((_s(ref), _s(old), _s(new)) for ref, old, new in updates)
        for ref, _, _ in changes:
            self._check_refname(ref.encode("utf-8"))
        return changes

    def peeled_values(self, changes: Iterable[refdb.Update]) -> dict[str, str]:
        """The peeled value of each ref a change sets (tags peel to their target)."""
        return {ref: p for ref, _, new in changes if not refdb.is_zero(new)
                and (p := self._peeled(new.encode())) is not None}

    def stage_updates(self, unit: refdb.Staging, changes: list[refdb.Update],
                      peeled: Mapping[str, str]) -> None:
        """Stage checked changes in a unit of work (refdb.stage_updates); call
        ``record_applied`` once it committed."""
        refdb.stage_updates(unit, self.repo_id, changes, peeled=peeled)

    def record_applied(self, changes: Iterable[refdb.Update], peeled: Mapping[str, str]) -> None:
        """Bring the snapshot in line with changes that were committed."""
        for ref, _, new in changes:
            self._remember(ref.encode("utf-8"), None if refdb.is_zero(new)
                           else refdb.RefValue(sha=new, peeled=peeled.get(ref)))

    def commit_updates(self, updates: Iterable[tuple[bytes | str, bytes | str, bytes | str]],
                       *, peeled: Mapping[str, str] | None = None) -> None:
        """Apply ``(ref, old, new)`` changes in one transaction of their own (see
        refdb.commit_updates); peeled values are computed with ``peel`` unless given."""
        changes = self.checked_updates(updates)
        if peeled is None:
            peeled = self.peeled_values(changes)
        refdb.commit_updates(self.repo_id, changes, peeled=peeled)
        self.record_applied(changes, peeled)
