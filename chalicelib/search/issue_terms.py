"""What the issue index is made of, without storage: the words an issue is listed
under, the words a keyword asks for, and the one list a search reads.

Forgejo's issue indexer (bleve by default) splits titles, bodies and comments into
lower-case words and matches a keyword's words as words, not as pieces of them
("index" finds "the index is stale", not "reindexing").  The index here does the same:
an issue is in the list of each distinct word of its title, body and comments (and of
its number, as Forgejo finds an issue by it), and a keyword of several words reads the
list of its longest (a long word is a rare one) and keeps, by DynamoDB's filter, the
entries holding the others.
"""
from __future__ import annotations

import re

WORD = re.compile(r"[^\W_]+")
# Words of one letter are in nearly every text: they are not listed (numbers are: "#5"
# finds issue 5), and a keyword made only of them matches by its other filters alone.
MIN_WORD = 2
# Longer words are cut: a 300-letter "word" (a hash, a URL's path) is still found by its
# first 64 letters, and an entry stays small.
MAX_WORD = 64
# The words one issue is listed under at most (a pasted log can hold thousands); past
# it the rest are not listed, and docs/search.md says so.
MAX_WORDS = 1000
# A mention as the tracker writes it (notifications use the same shape).
MENTION = re.compile(r"(?<![\w.@/`])@([A-Za-z0-9](?:[\w.-]*[A-Za-z0-9_])?)")


def words(*texts: str) -> list[str]:
    """The distinct words of ``texts`` an issue is listed under, first seen first."""
    found: dict[str, None] = {}
    for text in texts:
        for word in WORD.findall((text or "").lower()):
            if _listed(word):
                found.setdefault(word[:MAX_WORD], None)
                if len(found) >= MAX_WORDS:
                    return list(found)
    return list(found)


def keyword_words(keyword: str) -> list[str]:
    """The words a keyword asks for, longest first (the first is the list read)."""
    asked = dict.fromkeys(w[:MAX_WORD] for w in WORD.findall((keyword or "").lower())
                          if _listed(w))
    return sorted(asked, key=lambda w: (-len(w), w))


def _listed(word: str) -> bool:
    return len(word) >= MIN_WORD or word.isdigit()


def mentioned_names(*texts: str) -> set[str]:
    """The lower-case names ``@name`` mentions in ``texts``."""
    return {m.group(1).lower() for text in texts for m in MENTION.finditer(text or "")}


def sort_key(created: int, issue_id: int) -> str:
    """An entry's sort key: creation time then id, fixed width (read in reverse for
    Forgejo's newest first)."""
    return f"{int(created):012d}#{int(issue_id):015d}"
