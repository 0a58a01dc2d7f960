"""Access-token scopes, as Forgejo defines them.

``write:X`` implies ``read:X``; ``all`` is every write scope; ``public-only`` limits a
token to public resources.  Stored scope lists are normalised the way Forgejo
normalises them, so clients see the same strings back.
"""
from __future__ import annotations

from chalicelib.errors import BadInput

CATEGORIES = ("activitypub", "admin", "misc", "notification", "organization", "package",
              "issue", "repository", "user")
ALL = "all"
PUBLIC_ONLY = "public-only"


def normalize(scopes: list[str]) -> list[str]:
    """Deduplicate, validate and order scopes; the full write set becomes ``all``."""
    wanted: set[str] = set()
    for raw in scopes:
        for scope in (s.strip() for s in str(raw).split(",")):
            if not scope:
                continue
            if scope not in (ALL, PUBLIC_ONLY) and not _is_category_scope(scope):
                raise BadInput("invalid access token scope provided: "
                               f"invalid access token scope: {scope}")
            wanted.add(scope)
    if ALL in wanted:
        wanted = {f"write:{c}" for c in CATEGORIES} | (wanted & {PUBLIC_ONLY})
    out = [PUBLIC_ONLY] if PUBLIC_ONLY in wanted else []
    writes = 0
    for category in CATEGORIES:
        if f"write:{category}" in wanted:
            out.append(f"write:{category}")
            writes += 1
        elif f"read:{category}" in wanted:
            out.append(f"read:{category}")
    if writes == len(CATEGORIES):
        out = ([PUBLIC_ONLY] if PUBLIC_ONLY in wanted else []) + [ALL]
    return out


def _is_category_scope(scope: str) -> bool:
    level, _, category = scope.partition(":")
    return level in ("read", "write") and category in CATEGORIES


def allows(scopes: list[str], category: str, level: str) -> bool:
    """Does a token with ``scopes`` grant ``level`` ('read'|'write') on ``category``?"""
    if ALL in scopes:
        return True
    if f"write:{category}" in scopes:
        return True
    return level == "read" and f"read:{category}" in scopes


def is_public_only(scopes: list[str]) -> bool:
    return PUBLIC_ONLY in scopes
