"""Hooks' branch filters (``branch_filter``): gobwas/glob patterns without separators, as
Forgejo matches them (``*`` crosses ``/``; empty or ``*`` lets every branch through)."""
from __future__ import annotations

import functools
import re


def branch_matches(pattern: str, branch: str) -> bool:
    if pattern in ("", "*"):
        return True
    try:
        return compile_glob(pattern).fullmatch(branch) is not None
    except ValueError:   # refused when stored; a bad stored filter matches nothing
        return False


@functools.lru_cache(maxsize=256)
def compile_glob(pattern: str) -> re.Pattern:
    """gobwas/glob's syntax as a regex: ``*``/``**`` any run, ``?`` one character,
    ``[abc]``, ``[a-z]``, ``[!…]``, ``{a,b}`` alternatives, ``\\`` escapes.  Raises
    ValueError with gobwas's message for what it refuses."""
    out, depth, i = [], 0, 0
    while i < len(pattern):
        c = pattern[i]
        if c == "{":
            depth += 1
            out.append("(?:")
        elif c == "," and depth:
            out.append("|")
        elif c == "}" and depth:
            depth -= 1
            out.append(")")
        elif c == "*":
            out.append(".*")
            if pattern[i + 1:i + 2] == "*":
                i += 1
        elif c == "?":
            out.append(".")
        elif c == "[":
            cls, i = _glob_class(pattern, i + 1)
            out.append(cls)
            continue
        elif c == "\\":
            i += 1   # a trailing backslash escapes nothing; gobwas drops it
            if i < len(pattern):
                out.append(re.escape(pattern[i]))
        else:
            out.append(re.escape(c))
        i += 1
    # gobwas's parser ends an unclosed {…} group at the end of the pattern.
    return re.compile("".join(out) + ")" * depth, re.DOTALL)


def _glob_class(pattern: str, i: int) -> tuple[str, int]:
    """One ``[...]`` starting after the ``[``: a single range or a set of characters."""
    def at(j: int) -> str:
        if j >= len(pattern):
            raise ValueError("unexpected end of input")
        return pattern[j]

    negate = at(i) == "!"
    if negate:
        i += 1
    if pattern[i + 1:i + 2] == "-":
        lo, hi = at(i), at(i + 2)
        if at(i + 3) != "]":
            raise ValueError("expected close range character")
        if hi < lo:
            raise ValueError(f"hi character '{hi}' should be greater than lo '{lo}'")
        body, i = f"{re.escape(lo)}-{re.escape(hi)}", i + 4
    else:
        chars = []
        while at(i) != "]":
            if pattern[i] == "\\":
                i += 1
            chars.append(at(i))
            i += 1
        if not chars:
            raise ValueError("could not parse range")
        body, i = "".join(re.escape(ch) for ch in chars), i + 1
    return f"[{'^' if negate else ''}{body}]", i
