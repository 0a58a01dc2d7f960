"""Branches, from the records kept with every ref change (no git reads)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from chalicelib import accounts
from chalicelib.contents import branch_store
from chalicelib.errors import NotFoundError

if TYPE_CHECKING:
    from chalicelib.contents.branch_store import BranchInfo


def list_branches(view) -> list[BranchInfo]:
    return branch_store.list_branches(int(view.repo.id))


def get_branch(view, name: str) -> BranchInfo:
    info = branch_store.get(int(view.repo.id), name)
    if info is None:
        raise NotFoundError(f"branch does not exist [name: {name}]")
    return info


def usernames_for(infos: list[BranchInfo]) -> dict[str, str]:
    """Logins of the accounts owning the commits' e-mail addresses (two batched reads)."""
    emails = {e.lower() for b in infos for e in (b.author_email, b.committer_email) if e}
    return {email: account.login for email, account in accounts.accounts_by_email(emails).items()}
