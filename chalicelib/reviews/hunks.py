"""The diff hunk a code comment shows: the lines of the file's diff up to the commented
line, as Forgejo keeps it (fj:services/gitdiff CutDiffAroundLine: the hunk cut to end
at the line, with at most ``BEFORE`` lines before it).  Pure: contents in, text out."""
from __future__ import annotations

import difflib
import re

BEFORE = 4          # Forgejo's setting.UI.CodeCommentLines
CONTEXT = 3
_HEADER = re.compile(r"^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@")


def _lines(data: bytes) -> list[str]:
    return data.decode("utf-8", "replace").splitlines()


def line_text(data: bytes, number: int) -> str | None:
    """Line ``number`` (1-based) of a file, None past its end."""
    lines = _lines(data)
    return lines[number - 1] if 0 < number <= len(lines) else None


def hunk_for(path: str, old: bytes, new: bytes, line: int) -> str:
    """``line`` > 0: a line of the new file; < 0: of the old one.  "" when the diff
    does not reach it (a line outside every hunk)."""
    diff = list(difflib.unified_diff(_lines(old), _lines(new), lineterm="", n=CONTEXT))
    rows: list[tuple[str, int, int]] = []      # (text, old number, new number)
    old_no = new_no = 0
    found = None
    for text in diff[2:]:
        head = _HEADER.match(text)
        if head:
            old_no, new_no = int(head.group(1)) - 1, int(head.group(2)) - 1
            if found is not None:
                break
            rows = []
            continue
        kind = text[:1]
        if kind in (" ", "-"):
            old_no += 1
        if kind in (" ", "+"):
            new_no += 1
        rows.append((text, old_no if kind != "+" else 0, new_no if kind != "-" else 0))
        if (line > 0 and kind != "-" and new_no == line) or \
                (line < 0 and kind != "+" and old_no == -line):
            found = len(rows)
            break
    if found is None:
        return ""
    kept = rows[max(0, found - 1 - BEFORE):found]
    first_old = next((o for _, o, _ in kept if o), 0) or max(1, old_no)
    first_new = next((n for _, _, n in kept if n), 0) or max(1, new_no)
    olds = sum(1 for t, _, _ in kept if t[:1] != "+")
    news = sum(1 for t, _, _ in kept if t[:1] != "-")
    header = f"diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n" \
             f"@@ -{first_old},{olds} +{first_new},{news} @@"
    return "\n".join([header, *(t for t, _, _ in kept)])
