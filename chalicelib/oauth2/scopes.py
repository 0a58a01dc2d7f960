"""The scopes of an OAuth2 grant: OpenID Connect's words and Forgejo's token scopes.

A grant keeps the words it knows (``openid profile email groups`` and Forgejo's
``read:repository``-style token scopes, ``all``, ``public-only``); any other word a
client asks for is left out, not refused.  Its access tokens get the token scopes
named, or every scope when none is named — Forgejo's rule, which integrations that
ask only for ``openid profile`` rely on.  The consent page says which.
"""
from __future__ import annotations

from chalicelib.errors import BadInput
from chalicelib.http import scopes as token_scopes

OPENID_WORDS = ("openid", "profile", "email", "groups")


def _is_token_scope(word: str) -> bool:
    try:
        return bool(token_scopes.normalize([word]))
    except BadInput:
        return False


def kept(words) -> str:
    """The grant's scope string: the known words, in the order asked, once each."""
    seen: list[str] = []
    for word in words or []:
        if (word in OPENID_WORDS or _is_token_scope(word)) and word not in seen:
            seen.append(word)
    return " ".join(seen)


def api_scopes(words) -> list[str]:
    """What the grant's access tokens may do on the API and over git."""
    named = [w for w in (words or []) if w not in OPENID_WORDS and _is_token_scope(w)]
    if not [w for w in named if w != token_scopes.PUBLIC_ONLY]:
        named = [*named, token_scopes.ALL]
    return token_scopes.normalize(named)


def sees_private_groups(api: list[str]) -> bool:
    """Forgejo's rule for the ``groups`` claim: private memberships only with ``all``,
    ``read:organization`` or ``read:admin``."""
    return any(token_scopes.allows(api, category, "read") for category in ("organization", "admin"))


def describe(words) -> list[str]:
    """What the consent page says a grant of these words lets the application do."""
    said = []
    given = set(words or [])
    if "openid" in given:
        said.append("Know who you are (your user id)")
    if "profile" in given:
        said.append("Read your profile: names, picture, website, language")
    if "email" in given:
        said.append("Read your e-mail address")
    if "groups" in given:
        said.append("Read the organizations and teams you belong to")
    api = api_scopes(words)
    if token_scopes.ALL in api:
        said.append("Act as you on the API and over git: everything you can do")
    else:
        said += [f"API and git: {scope}" for scope in api if scope != token_scopes.PUBLIC_ONLY]
    if token_scopes.PUBLIC_ONLY in api:
        said.append("Public repositories and organizations only")
    return said
