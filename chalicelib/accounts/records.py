"""User, PublicKey and AccessToken records (fj:services/convert/user.go), field for field."""
from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import quote

from chalicelib import avatars
from chalicelib.http import schemas
from chalicelib.http.formats import GO_ZERO_TIME, app_url, rfc3339
from chalicelib.http.schema_types import EMAIL, STRINGS, B, I, S, T, nullable, ref
from chalicelib.settings import get_settings

if TYPE_CHECKING:
    from chalicelib.accounts.key_store import PublicKey
    from chalicelib.accounts.store import Account
    from chalicelib.accounts.token_store import TokenRef

# The records' Swagger definitions: Forgejo's names, fields and types, published by
# /swagger.v1.json (``http.schemas``) and checked against what this module builds.
SCHEMAS = schemas.declare({
    "User": {
        "id": I, "login": S, "login_name": S, "source_id": I, "full_name": S, "email": EMAIL,
        "avatar_url": S, "html_url": S, "language": S, "is_admin": B, "last_login": T,
        "created": T, "restricted": B, "active": B, "prohibit_login": B, "location": S,
        "pronouns": S, "website": S, "description": S, "visibility": S, "followers_count": I,
        "following_count": I, "starred_repos_count": I, "username": S,
    },
    "PublicKey": {
        "id": I, "key": S, "url": S, "title": S, "fingerprint": S, "created_at": T,
        "updated_at": T, "user": ref("User"), "read_only": B, "key_type": S, "verified": B,
    },
    "AccessToken": {
        "id": I, "name": S, "sha1": S, "token_last_eight": S, "scopes": STRINGS,
        "created_at": T,
        "repositories": nullable({"type": "array", "items": {"type": "object"}}),
    },
    "UserSettings": {
        "full_name": S, "website": S, "description": S, "location": S, "pronouns": S,
        "language": S, "theme": S, "diff_view_style": S, "hide_email": B,
        "hide_activity": B, "hide_pronouns": B, "enable_repo_unit_hints": B,
    },
}, lists=("User", "PublicKey", "AccessToken"))

# What a user who never chose a theme sees (Forgejo's [ui] DEFAULT_THEME).
DEFAULT_THEME = "forgejo-auto"


def avatar_url(account: Account) -> str:
    """Served by Nimbus (chalicelib/avatars): the upload the item names, else the
    account's identicon; never an outside service, so pages work offline."""
    return avatars.avatar_link(avatars.ACCOUNT_AVATAR, account.id, account.avatar)


def visible_email(account: Account, viewer: Account | None) -> str:
    """Anonymous callers, and others when the user hides it, see the no-reply address."""
    settings = get_settings()
    placeholder = f"{account.lower_name}@{settings.no_reply_address}"
    if viewer is None:
        return placeholder
    if account.keep_email_private and viewer.id != account.id and not viewer.is_admin:
        return placeholder
    return account.email


def user(account: Account, viewer: Account | None) -> dict:
    """A User record as ``viewer`` may see it: private fields only for self and admins."""
    privileged = viewer is not None and (viewer.id == account.id or viewer.is_admin)
    return {
        "id": int(account.id),
        "login": account.login,
        "login_name": account.login_name if privileged else "",
        "source_id": int(account.source_id) if privileged else 0,
        "full_name": account.full_name,
        "email": visible_email(account, viewer),
        "avatar_url": avatar_url(account),
        "html_url": app_url() + quote(account.login),
        "language": account.language if privileged else "",
        "is_admin": bool(account.is_admin) if privileged else False,
        "last_login": rfc3339(account.last_login) if privileged else GO_ZERO_TIME,
        "created": rfc3339(account.created),
        "restricted": bool(account.restricted),
        "active": bool(account.active) if privileged else False,
        "prohibit_login": bool(account.prohibit_login) if privileged else False,
        "location": account.location,
        # Hidden pronouns are kept from anonymous callers only (Forgejo's GetPronouns).
        "pronouns": account.pronouns
        if viewer is not None or not account.keep_pronouns_private else "",
        "website": account.website,
        "description": account.description,
        "visibility": account.visibility,
        "followers_count": int(account.num_followers or 0),
        "following_count": int(account.num_following or 0),
        "starred_repos_count": 0,
        "username": account.login,
    }


def user_settings(account: Account) -> dict:
    """The UserSettings record: the user's own settings, only ever shown to the user."""
    return {
        "full_name": account.full_name,
        "website": account.website,
        "description": account.description,
        "location": account.location,
        "pronouns": account.pronouns,
        "language": account.language,
        "theme": account.theme or DEFAULT_THEME,
        "diff_view_style": account.diff_view_style,
        "hide_email": bool(account.keep_email_private),
        "hide_activity": bool(account.keep_activity_private),
        "hide_pronouns": bool(account.keep_pronouns_private),
        "enable_repo_unit_hints": bool(account.enable_repo_unit_hints),
    }


def public_key(key: PublicKey, owner: Account, viewer: Account | None) -> dict:
    return {
        "id": int(key.id),
        "key": key.content,
        "url": f"{app_url()}api/v1/user/keys/{int(key.id)}",
        "title": key.title,
        "fingerprint": key.fingerprint,
        "created_at": rfc3339(key.created),
        "updated_at": rfc3339(key.updated),
        "user": user(owner, viewer),
        "read_only": bool(key.read_only),
        "key_type": key.key_type,
        "verified": False,
    }


def access_token(token: TokenRef, secret: str = "") -> dict:
    """``sha1`` holds the secret only in the creation response."""
    return {
        "id": int(token.id),
        "name": token.name,
        "sha1": secret,
        "token_last_eight": token.last_eight,
        "scopes": list(token.scopes),
        "created_at": rfc3339(token.created),
        "repositories": None,
    }


def payload_user(name: str, email: str, username: str = "") -> dict:
    return {"name": name, "email": email, "username": username}


EMAIL_SCHEMAS = schemas.declare({
    "Email": {"email": EMAIL, "verified": B, "primary": B, "user_id": I, "username": S},
}, lists=("Email",))


def email(address) -> dict:
    """An Email record; ``address`` is an ``emails.Address``."""
    return {
        "email": address.email,
        "verified": bool(address.verified),
        "primary": bool(address.primary),
        "user_id": int(address.user_id),
        "username": address.username,
    }
