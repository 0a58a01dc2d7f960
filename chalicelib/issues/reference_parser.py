"""Issue references in text, as Forgejo finds them: ``#N`` (or ``!N``) for the text's
own repository, ``owner/repo#N`` for another, and an action when a keyword stands right
before the reference ("Closes #1", "fixes: owner/repo#2", "Reopens #3").

Forgejo's rules (``modules/references``), kept here:

- a reference starts the text or follows whitespace, ``(`` or ``[`` (a local one also a
  quote), and ends the text or is followed by whitespace, ``)``, ``]``, a quote, or one
  of ``:;,.?!`` that ends the text or is followed by whitespace;
- the keyword is one of the close or reopen words, any case, optionally followed by a
  colon, then exactly one space, then the reference; it starts the text or follows
  whitespace, ``(`` or ``[``;
- owner and repository names are compared in lower case.

Bodies and comments are Markdown: ``find_in_markdown`` leaves out what Forgejo's
stripper drops (code blocks, code spans, HTML comments — pull request templates hide
"Closes #" hints in those) and emphasis marks ("**Fixes #1**" counts).  Issue links by
URL and time logs (``@1h``) are not read.

The work is linear in the text and bounded: at most ``MAX_TEXT`` characters are read
and at most ``MAX_REFERENCES`` distinct references returned, so a hostile commit
message costs no more than an ordinary long one.  No pattern here can backtrack.
"""
from __future__ import annotations

import bisect
import re
import string
from dataclasses import dataclass

NONE, CLOSES, REOPENS = "none", "closes", "reopens"      # Forgejo's XRefAction names
CLOSE_WORDS = frozenset(("close", "closes", "closed", "fix", "fixes", "fixed",
                         "resolve", "resolves", "resolved"))
REOPEN_WORDS = frozenset(("reopen", "reopens", "reopened"))
LONGEST_WORD = max(len(w) for w in CLOSE_WORDS | REOPEN_WORDS)
MAX_REFERENCES = 50
MAX_TEXT = 65_536
# "owner/name" before a marker: names are at most 100 characters each on this forge.
MAX_QUALIFIER = 201
MAX_DIGITS = 18         # beyond that no issue number exists; keeps int() trivial

_SPACE = frozenset(" \t\n\f\r")          # Go's \s (RE2: ASCII only, no \v)
_BEFORE_CROSS = _SPACE | frozenset("([")
_BEFORE_LOCAL = _BEFORE_CROSS | frozenset("'\"")
_AFTER = _SPACE | frozenset(")]'\"")
_PUNCT = frozenset(":;,.?!")
_NAME = frozenset(string.ascii_letters + string.digits + "-_.")
_LETTERS = frozenset(string.ascii_letters)
# A marker and its digits; one more digit than allowed shows the number is too long.
_MARKER = re.compile(r"[#!]([0-9]{1,%d})" % (MAX_DIGITS + 1))


@dataclass(frozen=True)
class Reference:
    number: int
    owner: str = ""         # lower case; "" = the repository the text belongs to
    name: str = ""
    action: str = NONE

    @property
    def is_local(self) -> bool:
        return not self.owner


def find(text: str) -> list[Reference]:
    """The references in plain text (commit messages, titles), in order, each once."""
    text = text[:MAX_TEXT]
    found: dict[Reference, None] = {}
    for match in _MARKER.finditer(text):
        reference = _reference_at(text, match.start(), match.end())
        if reference is not None:
            found.setdefault(reference)
            if len(found) >= MAX_REFERENCES:
                break
    return list(found)


def find_in_markdown(text: str) -> list[Reference]:
    """The references in Markdown (bodies, comments), outside code and HTML comments."""
    return find(strip_markdown(text[:MAX_TEXT]))


def _reference_at(text: str, start: int, end: int) -> Reference | None:
    """The reference whose marker spans ``text[start:end]`` (marker and digits), or None."""
    if end - start - 1 > MAX_DIGITS or not _ends_reference(text, end):
        return None
    number = int(text[start + 1:end])
    begin = start
    while begin > 0 and start - begin <= MAX_QUALIFIER and \
            (text[begin - 1] in _NAME or text[begin - 1] == "/"):
        begin -= 1
    if begin == start:
        if start > 0 and text[start - 1] not in _BEFORE_LOCAL:
            return None
        return Reference(number, action=_action_before(text, start))
    qualifier = text[begin:start]
    if start - begin > MAX_QUALIFIER or qualifier.count("/") != 1:
        return None
    if begin > 0 and text[begin - 1] not in _BEFORE_CROSS:
        return None
    owner, _, name = qualifier.lower().partition("/")
    if not owner or not name:
        return None
    return Reference(number, owner, name, _action_before(text, begin))


def _ends_reference(text: str, end: int) -> bool:
    if end == len(text) or text[end] in _AFTER:
        return True
    return text[end] in _PUNCT and (end + 1 == len(text) or text[end + 1] in _SPACE)


def _action_before(text: str, start: int) -> str:
    """The action of a keyword that ends one space (and maybe a colon) before ``start``."""
    if start < 2 or text[start - 1] != " ":
        return NONE
    stop = start - 1
    if text[stop - 1] == ":":
        stop -= 1
    begin = stop
    while begin > 0 and stop - begin < LONGEST_WORD and text[begin - 1] in _LETTERS:
        begin -= 1
    if begin > 0 and text[begin - 1] not in _BEFORE_CROSS:
        return NONE       # a longer word ("unfixed") or glued to something else
    word = text[begin:stop].lower()
    if word in CLOSE_WORDS:
        return CLOSES
    if word in REOPEN_WORDS:
        return REOPENS
    return NONE


# Markdown ----------------------------------------------------------------------------------

_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")


def strip_markdown(text: str) -> str:
    """``text`` without code blocks (fenced or indented), code spans, HTML comments and
    emphasis asterisks; what is left out becomes a space so words stay apart."""
    text = _without_html_comments(text)
    kept: list[str] = []
    fence = ""
    previous_blank = True
    in_indented = False
    for line in text.split("\n"):
        if fence:
            stripped = line.lstrip(" ")
            closing = len(line) - len(stripped) <= 3 and stripped.startswith(fence) and \
                not stripped.rstrip().strip(fence[0])
            if closing:
                fence = ""
            kept.append("")
            continue
        opened = _FENCE.match(line)
        if opened is not None and not (opened.group(1)[0] == "`" and "`" in line[opened.end():]):
            fence = opened.group(1)
            kept.append("")
            previous_blank = False
            continue
        blank = not line.strip()
        indented = line.startswith(("    ", "\t"))
        if indented and not blank and (previous_blank or in_indented):
            in_indented = True
            kept.append("")
            continue
        if not blank:
            in_indented = False
        previous_blank = blank
        kept.append(line)
    return _without_code_spans("\n".join(kept)).replace("*", "")


def _without_html_comments(text: str) -> str:
    parts, at = [], 0
    while True:
        opening = text.find("<!--", at)
        if opening < 0:
            parts.append(text[at:])
            return "".join(parts)
        closing = text.find("-->", opening + 4)
        parts.append(text[at:opening])
        parts.append(" ")
        if closing < 0:
            return "".join(parts)       # an unclosed comment runs to the end, as in HTML
        at = closing + 3


def _without_code_spans(text: str) -> str:
    """CommonMark code spans: a run of N backticks up to the next run of exactly N.
    Runs are indexed by length once, so each opening finds its closing by bisection
    instead of a rescan (unmatched openings cannot make this quadratic)."""
    runs = [(m.start(), m.end()) for m in re.finditer(r"`+", text)]
    if len(runs) < 2:
        return text
    by_length: dict[int, list[int]] = {}
    for index, (start, end) in enumerate(runs):
        by_length.setdefault(end - start, []).append(index)
    parts, at, index = [], 0, 0
    while index < len(runs):
        start, end = runs[index]
        same = by_length[end - start]
        following = bisect.bisect_right(same, index)
        if following == len(same):
            index += 1          # no closing run: the backticks are literal
            continue
        closing = same[following]
        parts.append(text[at:start])
        parts.append(" ")
        at = runs[closing][1]
        index = closing + 1
    parts.append(text[at:])
    return "".join(parts)
