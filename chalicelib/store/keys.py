"""The table's shared key layouts: the partitions several domains' items live in, and
the store kernel's own items (counters, claims).

Each domain spells its own items' keys in its ``models.py`` (docs/data-model.md).  What
is here is what many domains share: every item that belongs to a repository lives in
the repository's partition ``R#<id>`` (so deleting the repository purges them with one
query), and every item that belongs to an account in ``A#<id>``.
"""
from __future__ import annotations


class keys:  # noqa: N801 - a namespace of key builders
    """Key layouts shared by every domain (see docs/data-model.md)."""

    @staticmethod
    def counter(name: str) -> tuple[str, str]:
        return f"SEQ#{name}", "SEQ"

    @staticmethod
    def repo_partition(repo_id: int) -> str:
        """The partition of everything that belongs to one repository."""
        return f"R#{repo_id}"

    @staticmethod
    def account_partition(account_id: int) -> str:
        """The partition of everything that belongs to one user or organization."""
        return f"A#{account_id}"

    @staticmethod
    def claim(namespace: str, value: str) -> tuple[str, str]:
        """The claim item that keeps ``value`` unique in ``namespace`` (``LOGIN``,
        ``EMAIL``, ``KEYFP`` …): whoever writes it first holds the value."""
        return f"{namespace}#{value}", "CLAIM"
