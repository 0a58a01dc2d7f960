"""Branches, from the records kept on every ref change (no git reads)."""
from __future__ import annotations

from chalicelib.services.errors import NotFoundError
from chalicelib.store import session
from chalicelib.store.table import Account, BranchInfo, Claim, Item, keys


def list_branches(view) -> list[BranchInfo]:
    items = Item.query(keys.repo_partition(int(view.repo.id)),
                       Item.sk.startswith(keys.BRANCH_PREFIX))
    return sorted(items, key=lambda b: b.name)


def get_branch(view, name: str) -> BranchInfo:
    info = session.get(BranchInfo, keys.branch(int(view.repo.id), name))
    if info is None:
        raise NotFoundError(f"branch does not exist [name: {name}]")
    return info


def usernames_for(infos: list[BranchInfo]) -> dict[str, str]:
    """Logins of the accounts owning the commits' e-mail addresses (two batched reads)."""
    emails = {e.lower() for b in infos for e in (b.author_email, b.committer_email) if e}
    if not emails:
        return {}
    session.prefetch(keys.email(e) for e in emails)
    claims = {e: session.get(Claim, keys.email(e)) for e in emails}
    session.prefetch(keys.account(int(c.owner_id)) for c in claims.values() if c)
    found = {}
    for email, claim in claims.items():
        account = session.get(Account, keys.account(int(claim.owner_id))) if claim else None
        if account is not None:
            found[email] = account.login
    return found
