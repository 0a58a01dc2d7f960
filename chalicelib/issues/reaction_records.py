"""Forgejo's Reaction record (``structs.Reaction``), declared beside its one builder."""
from __future__ import annotations

from typing import TYPE_CHECKING

from chalicelib.accounts import user_record
from chalicelib.http import schemas
from chalicelib.http.formats import rfc3339
from chalicelib.http.schema_types import S, T, ref

if TYPE_CHECKING:
    from chalicelib.accounts import Account

SCHEMAS = schemas.declare({"Reaction": {"user": ref("User"), "content": S, "created_at": T}},
                          lists=("Reaction",))


def reaction(content: str, created_ms: int, user: Account, viewer: Account | None,
             original_author: str = "") -> dict:
    """A Reaction: who, with what, when (Forgejo's creation time, in whole seconds).
    A migrated reaction whose person matched no local user (``original_author``) names
    that person, as Forgejo's stand-in user for an original author does (id -1, no
    e-mail), not the migrating user it is stored under."""
    shown = user_record(user, viewer)
    if original_author:
        shown = dict(shown, id=-1, login=original_author, login_name="", full_name="",
                     email="")
    return {"user": shown, "content": content, "created_at": rfc3339(int(created_ms) // 1000)}


# How the pages show the default reactions (Forgejo's emoji for them); any other
# configured content is shown by name, as ``:name:``.
REACTION_EMOJI = {"+1": "\U0001F44D", "-1": "\U0001F44E", "laugh": "\U0001F604",
                  "hooray": "\U0001F389", "confused": "\U0001F615", "heart": "\u2764\ufe0f",
                  "rocket": "\U0001F680", "eyes": "\U0001F440"}
