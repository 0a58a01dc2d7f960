"""The account index: users and organizations by the pieces of their names, full names
and e-mail addresses, so that userSearch with a keyword reads the accounts holding
one of its pieces, not every account (``accounts.search`` asks ``ids_matching``).

Forgejo matches a keyword anywhere in the login or the full name, and in the e-mail
address where the viewer may see it (a site admin always, the user themself, others
when it is not kept private).  An account is in the list of every two- and
three-letter piece of those three (``terms.grams``); a keyword of two or more letters
reads the list of its rarest piece, and DynamoDB's filter keeps the entries that hold
the whole keyword where the viewer may see it.

Kept current by the ``search-index`` consumer (creation, edits, renames, deletion of
users and organizations), which reads the account as it is now.
"""
from __future__ import annotations

from chalicelib import accounts
from chalicelib.search import account_index_store, entry_store, terms
from chalicelib.store import unit_of_work


def index_account(account_id: int) -> None:
    """Bring one account's entries to what it is now (or remove them if it is gone),
    retrying when another indexing of it committed first."""
    def index_once() -> None:
        account = accounts.account_by_id(int(account_id), consistent=True)
        with unit_of_work.writing():
            doc = account_index_store.doc_of(account_id)
            if account is None:
                if doc is not None:
                    account_index_store.stage_remove(doc)
            else:
                account_index_store.stage_index(account, doc)

    entry_store.until_current(account_index_store.DOC, index_once, f"account {account_id}")


def ids_matching(viewer, keyword: str, kind: str = "user") -> list[int] | None:
    """The ids of every account of ``kind`` whose name, full name or (visible) e-mail
    holds ``keyword``, by name; None for a keyword under two letters (the name index
    serves it)."""
    keyword = keyword.strip().lower()
    gram = terms.gram_for(keyword)
    if gram is None:
        return None
    return account_index_store.read(gram, keyword, kind, viewer)
