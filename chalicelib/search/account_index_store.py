"""The account index in the table: each account's entries (``models.AccountEntry``) in
the gram lists, its document, and the read a user search makes (``account_index``
says what it is for).
"""
from __future__ import annotations

from chalicelib.search import entry_store, terms
from chalicelib.search.models import AccountEntry, AccountIndexDoc, keys
from chalicelib.store import unit_of_work
from chalicelib.store.table import Item

DOC = "account search index"
ENTRY = "account search entry"


def entries_for(account) -> list[AccountEntry]:
    """The entries an account has: one per piece of its name, full name and e-mail."""
    lname = account.lower_name
    lfull = (account.full_name or "").lower()
    lemail = (account.email or "").lower()
    account_type = "organization" if account.account_type == "organization" else "user"
    grams = terms.grams(lname) | terms.grams(lfull) | terms.grams(lemail)
    sk = f"{lname}#{int(account.id):015d}"
    return [AccountEntry(keys.account_gram_list(gram), sk, account_id=int(account.id),
                         account_type=account_type, lname=lname, lfull=lfull, lemail=lemail,
                         email_public=not account.keep_email_private,
                         vis=account.visibility or "public")
            for gram in sorted(grams)]


def doc_of(account_id: int) -> AccountIndexDoc | None:
    return unit_of_work.get(AccountIndexDoc, keys.account_doc(account_id), consistent=True)


def stage_index(account, doc: AccountIndexDoc | None) -> None:
    entry_store.stage_entries(AccountIndexDoc(*keys.account_doc(int(account.id))), doc,
                              entries_for(account), AccountEntry, label=DOC, entry_label=ENTRY)


def stage_remove(doc: AccountIndexDoc) -> None:
    entry_store.stage_removal(doc, AccountEntry, label=DOC, entry_label=ENTRY)


def _condition(keyword: str, kind: str, viewer):
    """Entries of ``kind`` holding ``keyword`` where ``viewer`` may see it."""
    by_email = AccountEntry.lemail.contains(keyword)
    if viewer is None:
        by_email = by_email & (AccountEntry.email_public == True)  # noqa: E712
    elif not viewer.is_admin:
        by_email = by_email & ((AccountEntry.email_public == True)  # noqa: E712
                               | (AccountEntry.account_id == int(viewer.id)))
    matches = AccountEntry.lname.contains(keyword) | AccountEntry.lfull.contains(keyword) \
        | by_email
    seen = None
    if viewer is None:
        seen = AccountEntry.vis == "public"
    elif not viewer.is_admin:
        seen = AccountEntry.vis.is_in("public", *(() if viewer.restricted else ("limited",))) \
            | (AccountEntry.account_id == int(viewer.id))
    condition = matches & (AccountEntry.account_type == kind)
    return condition & seen if seen is not None else condition


def read(gram: str, keyword: str, kind: str, viewer) -> list[int]:
    """The ids of the entries of one gram's list that hold ``keyword`` where ``viewer``
    may see it, by name."""
    return [int(entry.account_id)
            for entry in Item.query(keys.account_gram_list(gram),
                                    filter_condition=_condition(keyword, kind, viewer))
            if isinstance(entry, AccountEntry)]
