"""Users' second factors in the table: the TOTP item and the recovery codes.

Access patterns (all in the user's partition, so deleting the account takes them along):
- the TOTP item: GetItem ``A#<user>/TWOFA`` (a sign-in's second step);
- the TOTP item and every unused recovery code: one Query of the ``TWOFA`` prefix (the
  settings page, regenerating or removing the codes), which reads the security keys too
  (``TWOFA#KEY#``: ``security_key_store``);
- a code accepted: UpdateItem of ``last_step`` on condition that it is below the code's
  step (``CODE_USED`` otherwise: that code, or a later one, was used already);
- a recovery code used: DeleteItem on condition that it exists (``CODE_USED``).

Turning the second factor on or off moves the account's ``two_factor`` flag and version
in the same transaction (``store.stage_save`` writes whole items: a save that read the
account before would otherwise put the old flag back).  Writes are staged in the
current unit of work; the caller commits.
"""
from __future__ import annotations

from chalicelib import clock
from chalicelib.accounts.models import (
    Account,
    RecoveryCode,
    SecurityKey,
    TwoFactor,
    keys,
)
from chalicelib.store import unit_of_work
from chalicelib.store.table import Item

__all__ = [
    "ABSENT",
    "CODE_USED",
    "ENROLLED",
    "RecoveryCode",
    "TwoFactor",
    "get",
    "second_factors",
    "stage_codes",
    "stage_enable",
    "stage_remove",
    "stage_step",
    "stage_use_code",
    "with_codes",
]

# Labels of staged operations, as a failed commit names them (ConditionFailed.label).
ENROLLED = "two-factor enrolled"     # turning it on when it is on already
ABSENT = "two-factor absent"         # the account is gone, or its second factor is
CODE_USED = "code used"


def get(user_id: int, *, consistent: bool = False) -> TwoFactor | None:
    return unit_of_work.get(TwoFactor, keys.two_factor(user_id), consistent=consistent)


def second_factors(user_id: int) -> tuple[TwoFactor | None, list[RecoveryCode],
                                          list[SecurityKey]]:
    """The TOTP item, the unused recovery codes and the security keys (oldest first),
    in one consistent Query."""
    found = list(Item.query(keys.account(user_id)[0],
                            Item.sk.startswith(keys.TWO_FACTOR_PREFIX), consistent_read=True))
    totp = next((item for item in found if isinstance(item, TwoFactor)), None)
    security_keys = sorted((item for item in found if isinstance(item, SecurityKey)),
                           key=lambda item: (int(item.created), item.name))
    return totp, [item for item in found if isinstance(item, RecoveryCode)], security_keys


def with_codes(user_id: int) -> tuple[TwoFactor | None, list[RecoveryCode]]:
    """The TOTP item and the unused recovery codes, in one consistent Query."""
    totp, codes, _ = second_factors(user_id)
    return totp, codes


def _flag(user_id: int, on: bool) -> None:
    unit_of_work.current().update(
        Account(*keys.account(user_id)), [Account.two_factor.set(on), Account.version.add(1)],
        label=ABSENT, condition=Account.pk.exists())


def stage_enable(user_id: int, sealed_secret: str, step: int, digests: list[str]) -> None:
    """The TOTP item (``ENROLLED`` when there is one), its first recovery codes and the
    account's flag.  ``step`` is the confirming code's: it cannot sign in afterwards."""
    uow = unit_of_work.current()
    now = clock.seconds()
    uow.put(TwoFactor(*keys.two_factor(user_id), secret=sealed_secret, last_step=step,
                      created=now), label=ENROLLED, must_not_exist=True)
    for digest in digests:
        uow.put(RecoveryCode(*keys.recovery_code(user_id, digest), created=now),
                label="recovery code", must_not_exist=True)
    _flag(user_id, True)


def stage_codes(user_id: int, old: list[RecoveryCode], digests: list[str]) -> None:
    """New recovery codes in place of ``old``, on condition that the second factor is
    still on (``ABSENT``)."""
    uow = unit_of_work.current()
    now = clock.seconds()
    uow.check(TwoFactor(*keys.two_factor(user_id)), TwoFactor.pk.exists(), label=ABSENT)
    for code in old:
        uow.delete(code, label="recovery code")
    for digest in digests:
        uow.put(RecoveryCode(*keys.recovery_code(user_id, digest), created=now),
                label="recovery code", must_not_exist=True)


def stage_step(user_id: int, step: int) -> None:
    """Accept a code of time step ``step``: ``CODE_USED`` when that step or a later one
    was accepted already, ``ABSENT`` when the second factor was removed meanwhile."""
    uow = unit_of_work.current()
    uow.update(TwoFactor(*keys.two_factor(user_id)), [TwoFactor.last_step.set(step)],
               label=CODE_USED, condition=TwoFactor.pk.exists() & (TwoFactor.last_step < step))


def stage_use_code(user_id: int, digest: str) -> None:
    """Use up a recovery code: ``CODE_USED`` when it is not (or no longer) there."""
    unit_of_work.current().delete(RecoveryCode(*keys.recovery_code(user_id, digest)),
                                  label=CODE_USED, condition=RecoveryCode.pk.exists())


def stage_remove(user_id: int, totp: TwoFactor | None, codes: list[RecoveryCode]) -> None:
    """The second factor gone: its item, its codes and the account's flag."""
    uow = unit_of_work.current()
    if totp is not None:
        uow.delete(totp, label=ABSENT, condition=TwoFactor.pk.exists())
    for code in codes:
        uow.delete(code, label="recovery code")
    _flag(user_id, False)
