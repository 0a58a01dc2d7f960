"""What the repository index is made of, without storage: the grams a name is listed
under, the one gram a keyword is looked up by, and the sort lists with their keys.

Forgejo matches a keyword anywhere in a repository's name (SQL ``LIKE %kw%``).  A name
is listed under every two- and three-letter piece of it (a 20-letter name: about 37
lists), so a keyword of two or more letters is looked up in the list of one of its
pieces — the rarest by letter frequency, which needs no read — and DynamoDB's filter
keeps the entries whose name holds the whole keyword.  What a page reads is the entries
of that one gram (a name holding "zq" or "xyl" is rare, one holding "re" is common and
then fills a page at once), not the instance.  A one-letter keyword matches so many
names that the name list itself fills a page as fast.
"""
from __future__ import annotations

# The sort lists every repository is in, and how Forgejo's sort words map to them:
# (list, descending).  Creation order is id order (ids come from a counter).
ORDERS = ("name", "id", "updated", "size")
SORTS = {
    "alpha": ("name", False), "name": ("name", False), "alphabetically": ("name", False),
    "reversealphabetically": ("name", True),
    "id": ("id", False), "created": ("id", False), "oldest": ("id", False),
    "newest": ("id", True),
    "updated": ("updated", False), "leastupdate": ("updated", False),
    "recentupdate": ("updated", True),
    "size": ("size", False),
}
# The orders a gram's list is kept in, so a keyword search in them reads as far as its
# page: name and creation (ids never change).  Update time and size change with every
# push; a keyword search in those orders reads every match of the gram instead.
GRAM_ORDERS = ("name", "id")
GRAM_SIZES = (2, 3)
# Letters from most to least frequent in repository names (English text and code):
# a gram of late letters is listed for few names.
_FREQUENT = "eaoirtnslcdmupghbfy-ywkv_x.zjq0123456789"


def sort_of(sort: str | None, order: str | None) -> tuple[str, bool]:
    """The sort list and direction for Forgejo's ``sort`` and ``order`` words (unknown
    words sort by name, as Forgejo does); ``order`` asc/desc overrides the direction."""
    name, descending = SORTS.get((sort or "alpha").lower(), SORTS["alpha"])
    if order in ("asc", "desc"):
        descending = order == "desc"
    return name, descending


def grams(lower_name: str) -> set[str]:
    """Every two- and three-letter piece of a (lower-case) name."""
    return {lower_name[i:i + n] for n in GRAM_SIZES for i in range(len(lower_name) - n + 1)}


def gram_for(keyword: str) -> str | None:
    """The gram whose list a (lower-case) keyword is looked up in: its rarest
    three-letter piece (two letters: the keyword itself); None for one letter, which
    the name list serves."""
    if len(keyword) < 2:
        return None
    if len(keyword) == 2:
        return keyword
    pieces = {keyword[i:i + 3] for i in range(len(keyword) - 2)}
    return max(sorted(pieces), key=_rarity)


def _rarity(piece: str) -> int:
    return sum(_FREQUENT.find(ch) if ch in _FREQUENT else len(_FREQUENT) for ch in piece)


def sort_key(order: str, *, lname: str, repo_id: int, updated: int, size: int) -> str:
    """An entry's sort key in the list ``order`` (fixed width, so strings sort as the
    values do), ending with the id so equal values keep one order."""
    value = {"name": lname, "id": "", "updated": f"{int(updated):012d}",
             "size": f"{int(size):015d}"}[order]
    return f"{value}#{int(repo_id):015d}"
