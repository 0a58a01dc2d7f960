"""Refs of a repository in DynamoDB, one item per ref (no dulwich; layout in models.py).

Every change is conditional: a create on ``attribute_not_exists(pk)``, an update or a
delete on ``sha = :old``.  ``commit_updates`` moves several refs in one transaction of
their own; ``stage_updates`` puts the same compare-and-swaps in a caller's unit of work,
so the service layer commits them together with what follows from them (branch records,
repository metadata, events).  Values are hex strings; an all-zero sha means "absent"
as in the git protocol.
"""
from __future__ import annotations

import random
import time
from dataclasses import dataclass
from typing import Callable, Iterable, Iterator, Mapping, Protocol, TypeVar

from pynamodb.exceptions import DeleteError, PutError, TransactWriteError
from pynamodb.transactions import TransactWrite

from chalicelib.errors import ConditionFailed
from chalicelib.gitstore.errors import InvalidName, RefsBusy, StaleRefs, TooManyRefUpdates
from chalicelib.gitstore.models import GitRef, gitkeys
from chalicelib.store import raw_query
from chalicelib.store.table import connection

MAX_REF_UPDATES = 100       # DynamoDB's limit of actions per transaction
# Refs a read of several name ranges takes in its first Query (load_prefixed): about
# 10 KB, a handful of read units, whatever the repository holds.
PROBE_REFS = 100
_BUSY_ATTEMPTS = 4
_MAX_KEY_BYTES = 1024       # DynamoDB's limit for a sort key
# Labels of staged ref writes start with this, followed by the ref name.
REF_LABEL = "ref "
Update = tuple[str, str, str]   # (ref, old sha, new sha), hex; zeros mean absent
T = TypeVar("T")


class Staging(Protocol):
    """What ``stage_updates`` needs of a unit of work (``chalicelib.store.unit_of_work``)."""

    def put(self, item, *, label: str = ..., condition=None,
            must_not_exist: bool = ...) -> None: ...

    def delete(self, item, *, label: str = ..., condition=None) -> None: ...

    def check(self, item, condition, *, label: str = ...) -> None: ...


@dataclass(frozen=True)
class RefValue:
    sha: str | None = None      # set for a plain ref
    symref: str | None = None   # set for a symbolic ref (HEAD)
    peeled: str | None = None   # the object after peeling tags, when known


def is_zero(sha: str | None) -> bool:
    return bool(sha) and not sha.strip("0")


def _text(value: str | bytes) -> str:
    if isinstance(value, bytes):
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError:
            raise InvalidName(f"ref name {value!r} is not UTF-8") from None
    return value


def check_ref_name(name: str | bytes) -> str:
    name = _text(name)
    if not name or "\0" in name or len(name.encode()) > _MAX_KEY_BYTES:
        raise InvalidName(f"invalid ref name {name!r}")
    return name


def _conditional_failure(exc: PutError | DeleteError) -> bool:
    return exc.cause_response_code == "ConditionalCheckFailedException"


def load_refs(repo_id: object) -> dict[str, RefValue]:
    """Every ref of a repository: one consistent Query."""
    found: dict[str, RefValue] = {}
    for page, _ in _query_refs(gitkeys.refs_pk(repo_id)):
        found.update(page)
    return found


# What a ref read takes of each item: the key and the value, not the partition key and
# the item's kind (less for moto to serialize and botocore to parse).
_REF_FIELDS = ["sk", "sha", "symref", "peeled"]


def _text_of(item: dict, name: str) -> str | None:
    value = item.get(name)
    return None if value is None else value["S"]


def _query_refs(pk: str, condition=None, *, start: dict | None = None,
                limit: int | None = None) -> Iterator[tuple[list[tuple[str, RefValue]],
                                                            dict | None]]:
    """A consistent Query of a repository's refs, page by page: (the page's (name,
    value) pairs, the key to resume after it, None after the last page).  ``limit``:
    one page of at most that many refs.  The items are read as DynamoDB sent them, not
    as models (``store.raw_query``): making a PynamoDB model of each of 5,000 refs
    (``git ls-remote`` of a repository with thousands of pull request refs) and
    botocore's parse of their attributes took most of the answer."""
    conn = connection()
    while True:
        with raw_query.strings(conn.client):
            page = conn.query(GitRef.Meta.table_name, pk, range_key_condition=condition,
                              attributes_to_get=_REF_FIELDS, consistent_read=True,
                              exclusive_start_key=start, limit=limit)
        start = page.get("LastEvaluatedKey")
        yield [(item["sk"]["S"], RefValue(_text_of(item, "sha"), _text_of(item, "symref"),
                                          _text_of(item, "peeled")))
               for item in page.get("Items", ())], start
        if start is None or limit is not None:
            return


def outermost_prefixes(prefixes: Iterable[str]) -> list[str]:
    """``prefixes`` sorted, without those another one covers (``refs/heads/main`` under
    ``refs/heads/``): each range is then read once."""
    kept: list[str] = []
    for prefix in sorted(set(prefixes)):
        if not kept or not prefix.startswith(kept[-1]):
            kept.append(prefix)
    return kept


def load_prefixed(repo_id: object, prefixes: Iterable[str]) -> dict[str, RefValue]:
    """The refs whose names start with one of ``prefixes`` (non-empty strings), in name
    order, without reading the refs between those ranges beyond one probe.

    One prefix is one Query.  Several start with one Query of at most ``PROBE_REFS``
    refs from the lowest prefix on: in most repositories that reaches past the last
    range, and everything asked for came in one call.  Otherwise each range the probe
    did not get through is read with a Query of its own (the one it stopped in resumes
    where it stopped): never more than one call over one Query per range, and never
    more than ``PROBE_REFS`` refs read outside the ranges (thousands of
    ``refs/pull/*`` between them stay unread)."""
    ranges = outermost_prefixes(prefixes)
    if not ranges or not all(ranges):
        raise ValueError("load_prefixed needs non-empty prefixes")
    pk = gitkeys.refs_pk(repo_id)
    found: dict[str, RefValue] = {}

    def keep(pages) -> tuple[str | None, dict | None]:
        last = resume = None
        for page, resume in pages:
            for name, value in page:
                last = name
                if name.startswith(tuple(ranges)):
                    found[name] = value
        return last, resume

    if len(ranges) == 1:
        keep(_query_refs(pk, GitRef.sk.startswith(ranges[0])))
        return found
    last, resume = keep(_query_refs(pk, GitRef.sk >= ranges[0], limit=PROBE_REFS))
    if resume is None or last is None:
        return dict(sorted(found.items()))
    for prefix in ranges:
        if last.startswith(prefix):
            keep(_query_refs(pk, GitRef.sk.startswith(prefix), start=resume))
        elif last < prefix:
            keep(_query_refs(pk, GitRef.sk.startswith(prefix)))
        # else the probe went past every name under it (names sort as DynamoDB sorts
        # them: UTF-8 bytes, the same order as code points).
    return dict(sorted(found.items()))


def _expecting(old: str | None):
    """The write condition for "the ref holds ``old``" (zero: absent; None: anything)."""
    if old is None:
        return None
    if is_zero(old):
        return GitRef.pk.does_not_exist()
    return GitRef.sha == old


def put_ref(repo_id: object, name: str | bytes, new: str, old: str | None = None,
            peeled: str | None = None) -> bool:
    """Set ``name`` to ``new`` if it holds ``old`` (zero: absent; None: whatever it
    holds - dulwich's unconditional set).  False when the condition failed."""
    condition = _expecting(old)
    item = GitRef(gitkeys.refs_pk(repo_id), check_ref_name(name), sha=new, peeled=peeled)
    try:
        item.save(condition=condition)
    except PutError as exc:
        if _conditional_failure(exc):
            return False
        raise
    return True


def delete_ref(repo_id: object, name: str | bytes, old: str | None = None) -> bool:
    """Delete ``name`` if it holds ``old`` (None: unconditionally; zero: succeeds only
    when it is already absent).  False when the condition failed."""
    condition = _expecting(old)
    item = GitRef(gitkeys.refs_pk(repo_id), check_ref_name(name))
    try:
        item.delete(condition=condition)
    except DeleteError as exc:
        if _conditional_failure(exc):
            return False
        raise
    return True


def put_symref(repo_id: object, name: str | bytes, target: str | bytes,
               *, only_if_new: bool = False) -> bool:
    item = GitRef(gitkeys.refs_pk(repo_id), check_ref_name(name),
                  symref=check_ref_name(target))
    try:
        item.save(condition=GitRef.pk.does_not_exist() if only_if_new else None)
    except PutError as exc:
        if _conditional_failure(exc):
            return False
        raise
    return True


def check_updates(updates: Iterable[tuple[str | bytes, str | bytes, str | bytes]]) -> list[Update]:
    """``(ref, old, new)`` changes as text, refused when they cannot be one transaction:
    TooManyRefUpdates beyond 100, InvalidName for a bad or repeated ref name or a delete
    of a ref expected to be absent."""
    changes = [(check_ref_name(ref), _text(old), _text(new)) for ref, old, new in updates]
    if len(changes) > MAX_REF_UPDATES:
        raise TooManyRefUpdates(len(changes), MAX_REF_UPDATES)
    names = [ref for ref, _, _ in changes]
    if len(set(names)) != len(names):
        raise InvalidName("a ref appears twice in one update")
    if any(is_zero(old) and is_zero(new) for _, old, new in changes):
        raise InvalidName("cannot delete a ref that is expected to be absent")
    return changes


def ref_label(name: str) -> str:
    return REF_LABEL + name


def stage_updates(unit: Staging, repo_id: object, changes: Iterable[Update], *,
                  peeled: Mapping[str, str] | None = None) -> None:
    """Stage checked ``(ref, old, new)`` changes (see ``check_updates``) in ``unit``,
    each conditional on the ref holding ``old``.  A stale one makes the unit's commit
    fail with ``ConditionFailed`` labelled ``ref_label(ref)`` (``stale_refs`` reads it)."""
    pk = gitkeys.refs_pk(repo_id)
    peeled = peeled or {}
    for ref, old, new in changes:
        if is_zero(new):
            unit.delete(GitRef(pk, ref), label=ref_label(ref), condition=GitRef.sha == old)
        else:
            unit.put(GitRef(pk, ref, sha=new, peeled=peeled.get(ref)), label=ref_label(ref),
                     condition=_expecting(old))


def stage_ref_check(unit: Staging, repo_id: object, name: str, sha: str) -> None:
    """Stage "``name`` still holds ``sha``" without writing it: a write that relies on
    a ref it read (a release naming an existing tag) fails as stale if the ref moved."""
    ref = check_ref_name(name)
    unit.check(GitRef(gitkeys.refs_pk(repo_id), ref), GitRef.sha == sha, label=ref_label(ref))


def stage_symref(unit: Staging, repo_id: object, name: str, target: str) -> None:
    """Stage ``name`` (HEAD) pointing at ``target``, whatever it held."""
    unit.put(GitRef(gitkeys.refs_pk(repo_id), check_ref_name(name),
                    symref=check_ref_name(target)), label=ref_label(name))


def stale_refs(failure: ConditionFailed) -> StaleRefs | None:
    """The StaleRefs a failed commit means, if the condition that failed was a ref's."""
    if failure.label.startswith(REF_LABEL):
        return StaleRefs([failure.label[len(REF_LABEL):]])
    return None


def _conflicted(exc: TransactWriteError) -> bool:
    codes = [r.code if r is not None else None for r in (exc.cancellation_reasons or [])]
    return "TransactionConflict" in codes and "ConditionalCheckFailed" not in codes


def retry_while_busy(names: list[str], write: Callable[[], T]) -> T:
    """Run ``write`` (a transaction moving ``names``), again when DynamoDB cancelled it
    for a concurrent transaction on the same items: it does so without checking the
    conditions, so a retry re-checks them.  RefsBusy when that kept happening."""
    for attempt in range(_BUSY_ATTEMPTS):
        try:
            return write()
        except TransactWriteError as exc:
            if not _conflicted(exc):
                raise
            time.sleep(random.uniform(0.02, 0.1) * (attempt + 1))
    raise RefsBusy(names)


def commit_updates(repo_id: object, updates: Iterable[tuple[str | bytes, str | bytes, str | bytes]],
                   *, peeled: Mapping[str, str] | None = None) -> None:
    """Apply ``(ref, old, new)`` changes all together or not at all, on their own.

    ``old`` zero creates (the ref must be absent), ``new`` zero deletes, otherwise the
    ref must hold ``old``.  ``peeled`` optionally maps a ref to its peeled value.
    Raises StaleRefs naming every ref whose condition failed, RefsBusy when concurrent
    transactions kept colliding, TooManyRefUpdates beyond 100 changes.
    """
    changes = check_updates(updates)
    if not changes:
        return
    pk = gitkeys.refs_pk(repo_id)
    peeled = peeled or {}
    # PynamoDB sends condition checks, then deletes, then puts, then updates, and
    # DynamoDB's cancellation reasons follow that order: keep ours the same.
    deletes = [(ref, old) for ref, old, new in changes if is_zero(new)]
    puts = [(ref, old, new) for ref, old, new in changes if not is_zero(new)]
    order = [ref for ref, _ in deletes] + [ref for ref, _, _ in puts]

    def write() -> None:
        try:
            with TransactWrite(connection=connection()) as tx:
                for ref, old in deletes:
                    tx.delete(GitRef(pk, ref), condition=GitRef.sha == old)
                for ref, old, new in puts:
                    tx.save(GitRef(pk, ref, sha=new, peeled=peeled.get(ref)),
                            condition=_expecting(old))
        except TransactWriteError as exc:
            codes = [r.code if r is not None else None for r in (exc.cancellation_reasons or [])]
            stale = [ref for ref, code in zip(order, codes) if code == "ConditionalCheckFailed"]
            if stale:
                raise StaleRefs(stale) from None
            raise

    retry_while_busy(order, write)


def delete_repo_refs(repo_id: object) -> int:
    """Delete every ref of a repository (repository deletion); returns how many."""
    items = list(GitRef.query(gitkeys.refs_pk(repo_id), consistent_read=True))
    with GitRef.batch_write() as batch:
        for item in items:
            batch.delete(item)
    return len(items)
