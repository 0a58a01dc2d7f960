"""A user's own settings (getUserSettings, updateUserSettings): profile texts, language,
theme, diff view style and the privacy switches, stored on the user's account item.

``hide_email`` is the account's ``keep_email_private``, which the User record others see
reads (``records.visible_email``); ``hide_pronouns`` keeps the pronouns from anonymous
callers (``records.user``).  ``hide_activity`` and ``enable_repo_unit_hints`` are kept
for the pages and feeds that will read them.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from chalicelib import clock, events
from chalicelib.accounts import store
from chalicelib.accounts.options import UserSettingsOptions
from chalicelib.accounts.service import actor_of_event, apply_fields
from chalicelib.errors import ConditionFailed, ConflictError, PermissionDenied
from chalicelib.http import input_rules
from chalicelib.http.options import given_fields
from chalicelib.store import unit_of_work

if TYPE_CHECKING:
    from chalicelib.accounts.store import Account

# Option field -> account attribute.
SETTINGS_FIELDS = {
    "full_name": "full_name", "website": "website", "description": "description",
    "location": "location", "pronouns": "pronouns", "language": "language",
    "theme": "theme", "diff_view_style": "diff_view_style",
    "hide_email": "keep_email_private", "hide_activity": "keep_activity_private",
    "hide_pronouns": "keep_pronouns_private",
    "enable_repo_unit_hints": "enable_repo_unit_hints",
}


def own_settings(actor: Account | None) -> Account:
    """The account whose settings the caller reads: only ever the caller's own."""
    if actor is None or actor.account_type != "user":
        raise PermissionDenied("token is required")
    return actor


def update_settings(actor: Account | None, option: UserSettingsOptions) -> Account:
    """updateUserSettings: the fields sent (not null) change, the others stay; nothing
    is written when nothing changes.  One conditional write on the account's version
    with its ``UserEdited`` event (409 when an edit won meanwhile)."""
    account = own_settings(actor)
    # Forgejo's binding rule (ValidUrl, empty clears) answers before anything is read.
    input_rules.check_url(option.website or "", "website")
    sent = {name: value for name, value in given_fields(option).items() if value is not None}
    changed = apply_fields(account, sent, SETTINGS_FIELDS)
    if not changed:
        return account
    account.updated = clock.seconds()
    try:
        with unit_of_work.writing() as uow:
            store.stage_save(account)
            uow.raise_event(events.UserEdited(**actor_of_event(actor), user_id=int(account.id),
                                              changed=tuple(changed)))
    except ConditionFailed:
        raise ConflictError("the account changed while it was being edited") from None
    return account
