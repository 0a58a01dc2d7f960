"""Writing commits: identities, dates, parents, the message, and the signature.

Signing is the caller's decision (``[repository.signing]`` rules, the instance key):
it passes a ``Signer``, which gets the commit's bytes without ``gpgsig`` (exactly what
``git verify-commit`` checks) and returns the armored signature, or None to leave the
commit unsigned.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

from dulwich.object_store import BaseObjectStore
from dulwich.objects import Commit

from chalicelib import clock
from chalicelib.gitops import trees
from chalicelib.gitops.objects import read_commit

Signer = Callable[[bytes], "bytes | None"]


@dataclass(frozen=True)
class Identity:
    """An author or committer: ``Name <email>`` at a time (None: now) and a UTC offset
    in seconds east (git's ``+0200`` is 7200)."""
    name: str
    email: str
    time: int | None = None
    timezone: int = 0

    @property
    def raw(self) -> bytes:
        return f"{self.name} <{self.email}>".encode("utf-8")

    @classmethod
    def parse(cls, raw: bytes, when: int | None = None, timezone: int = 0) -> "Identity":
        """``Name <email>`` as stored in a commit (a value without ``<>`` is a name)."""
        text = raw.decode("utf-8", "replace")
        if "<" in text and text.endswith(">"):
            name, _, email = text[:-1].partition("<")
            return cls(name.strip(), email.strip(), when, timezone)
        return cls(text.strip(), "", when, timezone)


def commit_message(message: str | bytes) -> bytes:
    """The message as Forgejo stores it: one line feed at the end (``git commit-tree``
    is given the text followed by a newline)."""
    raw = message.encode("utf-8") if isinstance(message, str) else message
    return raw if raw.endswith(b"\n") else raw + b"\n"


def write_commit(store: BaseObjectStore, *, tree: bytes, parents: Sequence[bytes] = (),
                 author: Identity, committer: Identity | None = None,
                 message: str | bytes, sign: Signer | None = None) -> Commit:
    """Make a commit of ``tree`` and add it to ``store``; signed when ``sign`` gives a
    signature."""
    committer = committer or author
    now = clock.seconds()
    commit = Commit()
    commit.tree = tree
    commit.parents = list(parents)
    commit.author, commit.committer = author.raw, committer.raw
    commit.author_time = author.time if author.time is not None else now
    commit.commit_time = committer.time if committer.time is not None else now
    commit.author_timezone, commit.commit_timezone = author.timezone, committer.timezone
    commit.message = commit_message(message)
    if sign is not None:
        signature = sign(commit.as_raw_string())
        if signature:
            commit.gpgsig = signature
    store.add_object(commit)
    return commit


def commit_edits(store: BaseObjectStore, *, parent: bytes | None, edits: list[trees.FileEdit],
                 author: Identity, committer: Identity | None = None, message: str | bytes,
                 sign: Signer | None = None) -> Commit:
    """A commit on ``parent`` (None: a root commit) whose tree is the parent's with
    ``edits`` applied."""
    base_tree = read_commit(store, parent).tree if parent is not None else None
    tree = trees.build_tree(store, base_tree, edits)
    return write_commit(store, tree=tree, parents=[parent] if parent is not None else [],
                        author=author, committer=committer, message=message, sign=sign)
