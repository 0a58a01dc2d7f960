"""Users and organizations (accounts) in the table.

Access patterns:
- by id: GetItem ``A#<id>/A``                              (token auth, owners of records)
- by name: Query gsi1 ``LOGIN#<lower>``, one call; on a miss a consistent GetItem of the
  name claim guards against index lag right after a create
- names and e-mails are unique through claim items written in the same transaction.
"""
from __future__ import annotations

from pynamodb.exceptions import DoesNotExist, PutError, TransactWriteError
from pynamodb.transactions import TransactWrite

from chalicelib.services.errors import AlreadyExists, ConflictError
from chalicelib.store import session
from chalicelib.store.table import Account, Claim, Item, connection, keys
from chalicelib.store.transact import put_new


def get_by_id(account_id: int) -> Account | None:
    return session.get(Account, keys.account(account_id))


def get_by_name(name: str) -> Account | None:
    lower = name.lower()
    hit = next(iter(Item.gsi1.query(keys.login_gsi(lower)[0],
                                    Item.gsi1sk == keys.login_gsi(lower)[1], limit=1)), None)
    if hit is not None:
        session.remember(keys.account(hit.id), hit)
        return hit
    try:
        claim = Claim.get(*keys.login(lower), consistent_read=True)
    except DoesNotExist:
        return None
    return get_by_id(int(claim.owner_id))


def name_taken(name: str) -> bool:
    """One consistent read of the name claim (no index lag)."""
    try:
        Claim.get(*keys.login(name.lower()), consistent_read=True)
    except DoesNotExist:
        return False
    return True


def _claim(key: tuple[str, str], owner_id: int) -> Claim:
    return Claim(*key, owner_id=owner_id)


def create(account: Account) -> None:
    """Write the account with its name (and e-mail) claims, all or nothing.

    Raises AlreadyExists("name") or AlreadyExists("email").
    """
    claims = [("name", _claim(keys.login(account.lower_name), account.id))]
    if account.email:
        claims.append(("email", _claim(keys.email(account.email.lower()), account.id)))
    put_new(*claims, ("account", account))


def save_changes(account: Account, *, old_email: str | None = None,
                 old_name: str | None = None) -> None:
    """Write an edited account if nobody else changed it since it was read.

    Pass ``old_email``/``old_name`` when the e-mail or name changed: the claim moves in
    the same transaction.
    """
    expected = account.version
    account.version = expected + 1
    condition = Account.version == expected
    moves = []
    if old_email is not None and old_email.lower() != account.email.lower():
        moves.append(("email", keys.email(old_email.lower()) if old_email else None,
                      keys.email(account.email.lower()) if account.email else None))
    if old_name is not None and old_name != account.lower_name:
        moves.append(("name", keys.login(old_name), keys.login(account.lower_name)))
    try:
        if not moves:
            account.save(condition=condition)
            return
        with TransactWrite(connection=connection()) as tx:
            for _, old_key, new_key in moves:
                if new_key:
                    tx.save(_claim(new_key, account.id), condition=Claim.pk.does_not_exist())
                if old_key:
                    tx.delete(Claim(*old_key))
            tx.save(account, condition=condition)
    except (PutError, TransactWriteError) as exc:
        account.version = expected
        if isinstance(exc, TransactWriteError):
            # PynamoDB sends deletes, then puts (new claims in order, the account last).
            reasons = [r.code if r else None for r in exc.cancellation_reasons or []]
            deletes = sum(1 for m in moves if m[1])
            claimed = [m[0] for m in moves if m[2]]
            for what, code in zip(claimed, reasons[deletes:]):
                if code == "ConditionalCheckFailed":
                    raise AlreadyExists(what) from None
        if _condition_failed(exc):
            raise ConflictError("the account changed while it was being edited") from None
        raise


def _condition_failed(exc: Exception) -> bool:
    if isinstance(exc, TransactWriteError):
        return any(r and r.code == "ConditionalCheckFailed" for r in exc.cancellation_reasons or [])
    return getattr(exc, "cause_response_code", "") == "ConditionalCheckFailedException"


def partition(account_id: int, prefix: str):
    """Items of one kind in the account's partition (tokens, keys ...)."""
    return Item.query(keys.account(account_id)[0], Item.sk.startswith(prefix))


def delete(account: Account) -> None:
    """Remove the account, its claims and everything in its partition.

    The account and its claims go in one transaction conditional on the version read;
    creating a repository bumps the owner's ``num_repos`` and version, so a repository
    created meanwhile makes this fail instead of being orphaned.  Partition items
    (tokens, keys) are removed afterwards and are unreachable once the account is gone.
    """
    try:
        with TransactWrite(connection=connection()) as tx:
            tx.delete(account, condition=Account.version == account.version)
            tx.delete(Claim(*keys.login(account.lower_name)))
            if account.email:
                tx.delete(Claim(*keys.email(account.email.lower())))
    except TransactWriteError as exc:
        if _condition_failed(exc):
            raise ConflictError("the account changed while it was being deleted") from None
        raise
    session.forget(keys.account(account.id))
    pk = keys.account(account.id)[0]
    leftovers = list(Item.query(pk))
    with Item.batch_write() as batch:
        for item in leftovers:
            batch.delete(item)
            token_hash = getattr(item, "token_hash", None)
            if token_hash:
                batch.delete(Item(*keys.token(token_hash)))
            fingerprint = getattr(item, "fingerprint", None)
            if fingerprint:
                batch.delete(Item(*keys.key_fingerprint(fingerprint)))


