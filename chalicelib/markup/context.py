"""What rendering markdown in a context needs to know (``markup/routes.py``): which
@mentions name public users, and which SHAs are commits of the context's repository,
so that only those become links.  A caller who may not read the repository gets no
commit links (nothing leaks)."""
from __future__ import annotations

from typing import Iterable

from chalicelib import accounts
from chalicelib.errors import ServiceError
from chalicelib.repos import Caller, find_repo

# Names looked up per render (two batched reads however many there are).
MAX_MENTIONS = 50


def public_logins(names: Iterable[str]) -> set[str]:
    """The names (lower case) of public accounts among ``names``."""
    wanted = sorted(n.lower() for n in names)[:MAX_MENTIONS]
    return {name for name, account in accounts.accounts_by_login(wanted).items()
            if account.visibility == "public"}


def existing_commits(caller: Caller, owner: str, repo: str, shas: Iterable[str]) -> set[str]:
    """The full SHAs among ``shas`` that are commits of ``owner/repo`` as the caller
    sees it (each costs at most one object-store lookup)."""
    from chalicelib.gitstore import repo as gitrepo

    shas = list(shas)
    if not shas:
        return set()
    try:
        view = find_repo(caller, owner, repo)
    except ServiceError:
        return set()   # unknown or not readable by the caller: no links, no leak
    git = gitrepo.open_repo(int(view.repo.id), int(view.repo.pool_id))
    found = set()
    for sha in shas:
        try:
            if sha.encode() in git.object_store and \
                    git.object_store[sha.encode()].type_name == b"commit":
                found.add(sha)
        except Exception:  # noqa: BLE001 - a broken lookup is just no link
            continue
    return found
