"""Users and organizations (accounts) in the table.

Access patterns:
- by id: GetItem ``A#<id>/A``                              (token auth, owners of records)
- by name: Query gsi1 ``LOGIN#<lower>``, one call; on a miss a consistent GetItem of the
  name claim guards against index lag right after a create
- names and e-mails are unique through claim items, staged as must-not-exist puts in the
  same transaction as the account (labels ``NAME_TAKEN`` / ``EMAIL_TAKEN``).
- every user (not organization), by name: Query gsi2 ``USERS`` (sort key the lower-case
  name), read a DynamoDB page at a time (``users``).  A user is indexed when created or
  saved; ``admin repair`` indexes users written before the index existed.
- every organization, by name: Query gsi2 ``ORGS`` the same way (``organizations``),
  indexed when created or saved (a rename moves the sort key), gone with the item;
  ``admin repair`` indexes organizations written before the index existed.

Writes are staged in the current unit of work; the caller commits.
"""
from __future__ import annotations

from typing import Any, Iterable, Iterator, Mapping

from chalicelib import clock
from chalicelib.accounts.models import Account, LoginRedirect, keys
from chalicelib.store import partitions, unit_of_work
from chalicelib.store.attributes import values_for
from chalicelib.store.table import Claim, Item

__all__ = ["Account", "NAME_TAKEN", "EMAIL_TAKEN", "CHANGED", "account_key", "new_account",
           "stored_values", "from_snapshot", "get_by_id", "get_many", "get_by_name",
           "name_taken", "stage_create", "stage_save", "stage_delete", "stage_end_sessions",
           "stage_repo_count", "index_user", "user_index_key", "users", "login_claim_key",
           "org_index_key", "account_index_key", "organizations",
           "fingerprint_claim_key", "index_login", "stage_name_move", "redirected_to"]

# Labels of staged operations, as a failed commit names them (ConditionFailed.label).
NAME_TAKEN = "name"
EMAIL_TAKEN = "email"
CHANGED = "account"        # the account's version moved since it was read


def account_key(account_id: int) -> tuple[str, str]:
    return keys.account(account_id)


def new_account(account_id: int, login: str, *, account_type: str, created: int,
                **fields) -> Account:
    """An account item (not yet written) with its keys and name index filled in."""
    lower = login.lower()
    gsi1pk, gsi1sk = keys.login_gsi(lower)
    account = Account(*keys.account(account_id), id=account_id, account_type=account_type,
                      login=login, lower_name=lower, created=created,
                      updated=fields.pop("updated", created), gsi1pk=gsi1pk, gsi1sk=gsi1sk,
                      **fields)
    index_user(account)
    return account


def user_index_key(account: Account) -> tuple[str, str] | None:
    """Where a user is listed in gsi2 (None for an organization)."""
    if account.account_type != "user":
        return None
    return keys.ALL_USERS_GSI, account.lower_name


def org_index_key(account: Account) -> tuple[str, str] | None:
    """Where an organization is listed in gsi2 (None for a user)."""
    if account.account_type != "org":
        return None
    return keys.ALL_ORGS_GSI, account.lower_name


def account_index_key(account: Account) -> tuple[str, str] | None:
    """Where an account is listed in gsi2: the user index or the organization index."""
    return user_index_key(account) or org_index_key(account)


def index_user(account: Account) -> None:
    """List an account in its index: a user in the user index, an organization in the
    organization index (never in both: each list reads only its own kind)."""
    key = account_index_key(account)
    if key is not None:
        account.gsi2pk, account.gsi2sk = key


def users(*, descending: bool = False) -> Iterator[Account]:
    """Every user in name order (or reversed), lazily: DynamoDB pages are read only as
    far as the caller iterates, never a scan."""
    return Item.gsi2.query(keys.ALL_USERS_GSI, scan_index_forward=not descending)


def organizations(*, descending: bool = False) -> Iterator[Account]:
    """Every organization in name order (or reversed), lazily, a DynamoDB page at a time
    as far as the caller iterates (``orgGetAll``, ``adminGetAllOrgs``)."""
    return Item.gsi2.query(keys.ALL_ORGS_GSI, scan_index_forward=not descending)


def stored_values(account: Account | None) -> dict:
    """The account's stored attributes, without PynamoDB's discriminator (a class, which
    ``events.snapshot`` cannot serialise)."""
    if account is None:
        return {}
    return {name: value for name, value in account.attribute_values.items() if name != "kind"}


def from_snapshot(values: Mapping[str, Any] | None) -> Account:
    """An account record rebuilt from the snapshot an event, issue or comment keeps
    (``stored_values``, ``snapshots.snapshot``; rendering needs no read of the account);
    never saved.  Nothing known gives the account of id 0 with no name."""
    values = values_for(Account, values)
    values.setdefault("login", "")
    values.setdefault("lower_name", values["login"].lower())
    values.setdefault("created", 0)
    values.setdefault("updated", 0)
    return Account(*keys.account(int(values.get("id") or 0)), **values)


def get_by_id(account_id: int, *, consistent: bool = False) -> Account | None:
    return unit_of_work.get(Account, keys.account(account_id), consistent=consistent)


def get_many(account_ids: Iterable[int]) -> list[Account]:
    """Accounts by id in one batch, in the order asked; missing ones left out."""
    wanted = [keys.account(int(account_id)) for account_id in account_ids]
    unit_of_work.prefetch(wanted)
    found = (unit_of_work.get(Account, key) for key in wanted)
    return [account for account in found if account is not None]


def login_claim_key(name: str) -> tuple[str, str]:
    """The claim that keeps a login name unique among users and organizations (routes
    naming an account preload it)."""
    return keys.login(name.lower())


def fingerprint_claim_key(fingerprint: str) -> tuple[str, str]:
    """The claim that keeps an SSH key on one account or repository of the instance."""
    return keys.key_fingerprint(fingerprint)


def get_by_name(name: str) -> Account | None:
    lower = name.lower()
    hit = next(iter(Item.gsi1.query(keys.login_gsi(lower)[0],
                                    Item.gsi1sk == keys.login_gsi(lower)[1], limit=1)), None)
    if hit is not None:
        unit_of_work.remember(keys.account(hit.id), hit)
        return hit
    claim = unit_of_work.get(Claim, keys.login(lower), consistent=True)
    return get_by_id(int(claim.owner_id)) if claim is not None else None


def index_login(account: Account) -> None:
    """Find the account by its (new) name in the name index."""
    account.gsi1pk, account.gsi1sk = keys.login_gsi(account.lower_name)


def stage_name_move(account_id: int, old_lower: str, new_lower: str) -> None:
    """A rename's name items: the new name claimed (``NAME_TAKEN`` when someone holds
    it), the old claim let go (``CHANGED`` unless it is this account's), a redirect left
    on the old name, and any redirect on the new name removed (a live account's now)."""
    uow = unit_of_work.current()
    uow.put(_claim(keys.login(new_lower), account_id), label=NAME_TAKEN, must_not_exist=True)
    uow.delete(Claim(*keys.login(old_lower)), label=CHANGED,
               condition=Claim.owner_id == account_id)
    # A later rename away from the same name points it elsewhere: the newest one wins.
    uow.put(LoginRedirect(*keys.login_redirect(old_lower), account_id=account_id,
                          created=clock.seconds()), label="redirect")
    uow.delete(LoginRedirect(*keys.login_redirect(new_lower)), label="redirect")


def redirected_to(lower_name: str) -> int | None:
    """The id of the account a rename took away from ``lower_name``, unless an account
    holds the name now: one Query of the name's partition (its claim and its redirect)."""
    found = {item.sk: item for item in Item.query(keys.login(lower_name)[0])}
    if keys.login(lower_name)[1] in found:
        return None
    redirect = found.get(keys.login_redirect(lower_name)[1])
    return int(redirect.account_id) if isinstance(redirect, LoginRedirect) else None


def name_taken(name: str) -> bool:
    """One consistent read of the name claim (no index lag)."""
    return unit_of_work.get(Claim, keys.login(name.lower()), consistent=True) is not None


def _claim(key: tuple[str, str], owner_id: int) -> Claim:
    return Claim(*key, owner_id=owner_id)


def stage_create(account: Account, *, label: str = CHANGED, name_label: str = NAME_TAKEN) -> None:
    """The account with its name (and, for a user, e-mail) claims, all or nothing; the
    name claim is staged first, so a taken name is reported before a taken e-mail.  An
    organization's e-mail is contact data and claims nothing; the organizations domain
    names its own labels."""
    uow = unit_of_work.current()
    uow.put(_claim(keys.login(account.lower_name), account.id), label=name_label,
            must_not_exist=True)
    if account.email and account.account_type == "user":
        uow.put(_claim(keys.email(account.email.lower()), account.id), label=EMAIL_TAKEN,
                must_not_exist=True)
    uow.put(account, label=label, must_not_exist=True)


def stage_save(account: Account, *, old_email: str | None = None, label: str = CHANGED) -> None:
    """An edited account, on condition that nobody changed it since it was read
    (``label``).  Pass ``old_email`` when the e-mail changed: its claim moves in the
    same transaction (``EMAIL_TAKEN`` when the new address is someone else's)."""
    uow = unit_of_work.current()
    expected = account.version
    account.version = expected + 1
    index_user(account)
    if old_email is not None and old_email.lower() != account.email.lower():
        _stage_claim_move(account.id, EMAIL_TAKEN,
                          keys.email(old_email.lower()) if old_email else None,
                          keys.email(account.email.lower()) if account.email else None)
    uow.put(account, label=label, condition=Account.version == expected)


def stage_repo_count(owner_id: int, delta: int, *, label: str, lower_name: str = "") -> None:
    """The owner's ``num_repos`` moved by ``delta`` with its version (a deletion that
    read the owner before fails instead of orphaning the repository); ``label`` when
    the owner is gone, or no longer called ``lower_name`` (the repositories domain,
    creating or deleting one)."""
    condition = Account.pk.exists()
    if lower_name:
        condition = condition & (Account.lower_name == lower_name)
    unit_of_work.current().update(Account(*keys.account(owner_id)),
                                  [Account.num_repos.add(delta), Account.version.add(1)],
                                  label=label, condition=condition)


def stage_end_sessions(account_id: int) -> None:
    """Add one to the account's session generation.  ``version`` moves with it because
    ``stage_save`` puts the whole item: an edit that read the account before this would
    otherwise write the old generation back and revive the sessions.  ``CHANGED`` when
    the account is gone."""
    unit_of_work.current().update(
        Account(*keys.account(account_id)),
        [Account.session_generation.add(1), Account.version.add(1)], label=CHANGED,
        condition=Account.pk.exists())


def _stage_claim_move(owner_id: int, label: str, old_key, new_key) -> None:
    uow = unit_of_work.current()
    if new_key:
        uow.put(_claim(new_key, owner_id), label=label, must_not_exist=True)
    if old_key:
        uow.delete(Claim(*old_key), label=label)


def stage_delete(account: Account, *, label: str = CHANGED, name_label: str = NAME_TAKEN,
                 purge: bool = True) -> None:
    """The account, its claims and every item of its partition (with what those items
    own elsewhere: ``Item.owned_elsewhere``), on condition that the account is unchanged
    since it was read (``label``): creating a repository bumps the owner's
    ``num_repos`` and version, so a repository created meanwhile fails this instead of
    being orphaned.  Callers stage only what lives outside the partition (an
    organization's teams' links), or the whole partition themselves (``purge=False``:
    the organizations domain).  Reads the partition (one Query).

    A partition past DynamoDB's 100-item transaction limit commits as the unit of
    work's documented sequence.  The account and its claims are staged first, so they
    go in the first chunk and the version check decides before anything is written;
    the event goes in the last.  Should a later chunk fail, the account is gone (a
    retry answers 404) and the items left behind are unreachable through it; only a
    leftover key claim would still keep that key from being added elsewhere.
    """
    uow = unit_of_work.current()
    uow.delete(account, label=label, condition=Account.version == account.version)
    uow.delete(Claim(*keys.login(account.lower_name)), label=name_label)
    if account.email and account.account_type == "user":
        uow.delete(Claim(*keys.email(account.email.lower())), label=EMAIL_TAKEN)
    if purge:
        partitions.stage_purge(keys.account(account.id)[0], keep=(account.pk, account.sk),
                               label="account data")
