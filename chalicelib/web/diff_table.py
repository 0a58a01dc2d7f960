"""A unified diff (what ``git diff`` prints for a pull request) as rows with their old
and new line numbers, and the review comments placed under the line they were made on.

Each code row also carries its text highlighted by Pygments (the file's lexer by its
name; each side of a file highlighted as one text, so a string or comment spanning
lines keeps its colour), and ``split_rows`` pairs a file's rows for the side-by-side
view.

Pure: no I/O.  A code comment's line is Forgejo's signed line (``> 0`` a line of the
new side, ``< 0`` of the old side), so a row is addressed by ``new`` when it has one
(added and unchanged lines) and by ``-old`` otherwise (removed lines); an unchanged line
also takes the comments made on its old number.  A comment whose line the diff no
longer shows (the head moved on) is listed under its file as outdated, or under the
diff when its file left the pull request.
"""
from __future__ import annotations

import codecs
import io
import re
from dataclasses import dataclass, field

# Files whose changed text is larger than this are shown without colours.
MAX_HIGHLIGHT = 256 * 1024
HUNK = re.compile(r"^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@(.*)$")
# Rows shown at most: the rest of a larger diff is in its ``.diff`` download.
MAX_ROWS = 4000


@dataclass
class Row:
    kind: str              # "hunk", "add", "del", "ctx" or "note"
    text: str
    old: int = 0
    new: int = 0
    comments: list = field(default_factory=list)
    html: str = ""         # the text highlighted (escaped HTML), "" when not highlighted

    @property
    def line(self) -> int:
        """The signed line a comment on this row is made on (0: none can be)."""
        if self.kind in ("add", "ctx"):
            return self.new
        return -self.old if self.kind == "del" else 0


@dataclass
class FileDiff:
    path: str
    rows: list[Row] = field(default_factory=list)
    outdated: list = field(default_factory=list)

    @property
    def pairs(self) -> list[Pair]:
        """The rows of the side-by-side view (``split_rows``)."""
        return split_rows(self)


@dataclass
class DiffTable:
    files: list[FileDiff] = field(default_factory=list)
    truncated: bool = False
    orphans: list = field(default_factory=list)     # comments on files no longer changed


def _unquote(name: str) -> str:
    """A path as git prints it: C-quoted when it holds unusual characters."""
    name = name.strip()
    if len(name) >= 2 and name[0] == name[-1] == '"':
        raw = codecs.escape_decode(name[1:-1].encode("utf-8"))[0]
        return raw.decode("utf-8", "replace")
    return name


def _side(name: str) -> str | None:
    name = _unquote(name)
    if name == "/dev/null":
        return None
    return name[2:] if name[:2] in ("a/", "b/") else name


def _header_path(line: str) -> str:
    """``diff --git a/x b/x``: the new path, for a file with no ---/+++ lines (binary,
    a mode change)."""
    rest = line[len("diff --git "):]
    if rest.startswith('"'):
        end = rest.rfind(' "')
        return _side(rest[end + 1:]) or "" if end > 0 else rest
    half = rest.split(" b/", 1)
    return half[1] if len(half) == 2 else rest


def parse(text: str, *, colour: bool = True) -> DiffTable:
    table = _parse(text)
    if colour:
        for diff in table.files:
            highlight(diff)
    return table


def _parse(text: str) -> DiffTable:
    table = DiffTable()
    current: FileDiff | None = None
    old = new = 0
    in_hunk = False
    shown = 0
    for line in text.split("\n"):
        if line.startswith("diff --git "):
            current = FileDiff(_header_path(line))
            table.files.append(current)
            in_hunk = False
            continue
        if current is None:
            continue
        if not in_hunk:
            if line.startswith("--- "):
                current.path = _side(line[4:]) or current.path
            elif line.startswith("+++ "):
                current.path = _side(line[4:]) or current.path
            elif line.startswith("Binary files"):
                current.rows.append(Row("note", "Binary file not shown."))
        found = HUNK.match(line)
        if found:
            old, new, in_hunk = int(found.group(1)), int(found.group(2)), True
            row = Row("hunk", line)
        elif not in_hunk or not line:
            continue
        elif line[0] == "+":
            row, new = Row("add", line[1:], new=new), new + 1
        elif line[0] == "-":
            row, old = Row("del", line[1:], old=old), old + 1
        elif line[0] == " ":
            row, old, new = Row("ctx", line[1:], old=old, new=new), old + 1, new + 1
        elif line[0] == "\\":
            row = Row("note", line[1:].strip())
        else:
            continue
        if shown >= MAX_ROWS:
            table.truncated = True
            continue
        current.rows.append(row)
        shown += 1
    return table


def attach(table: DiffTable, comments: list) -> DiffTable:
    """Each comment (anything with ``path``, ``line``) under its row, in the given order."""
    by_file = {f.path: f for f in table.files}
    for comment in comments:
        diff = by_file.get(comment.path)
        if diff is None:
            table.orphans.append(comment)
            continue
        row = next((r for r in diff.rows if r.line and r.line == comment.line), None) \
            or next((r for r in diff.rows if r.kind == "ctx" and -r.old == comment.line), None)
        if row is None:
            diff.outdated.append(comment)
        else:
            row.comments.append(comment)
    return table


def highlight(diff: FileDiff) -> None:
    """Set ``html`` of the file's code rows: the old side (unchanged and removed lines)
    and the new side (unchanged and added lines) each highlighted as one text."""
    from pygments import lex
    from pygments.formatters import HtmlFormatter
    from pygments.lexers import get_lexer_for_filename
    from pygments.util import ClassNotFound

    if sum(len(r.text) for r in diff.rows) > MAX_HIGHLIGHT:
        return
    try:
        lexer = get_lexer_for_filename(diff.path, stripnl=False, ensurenl=False)
    except ClassNotFound:
        return
    formatter = HtmlFormatter(nowrap=True)
    for kinds in (("ctx", "del"), ("ctx", "add")):
        rows = [r for r in diff.rows if r.kind in kinds]
        if not rows:
            continue
        source = "\n".join(r.text.rstrip("\r") for r in rows) + "\n"
        out = io.StringIO()
        formatter.format(lex(source, lexer), out)
        lines = out.getvalue().split("\n")
        if len(lines) < len(rows):
            continue        # the lexer changed the line count: leave the plain text
        for row, html in zip(rows, lines):
            row.html = html


@dataclass
class Pair:
    """A line of the side-by-side view: the old row on the left, the new on the right
    (the same row on both sides when unchanged; ``wide``: a hunk header or a note)."""
    left: Row | None
    right: Row | None
    wide: bool = False

    @property
    def comments(self) -> list:
        found = list(self.left.comments) if self.left is not None else []
        if self.right is not None and self.right is not self.left:
            found += self.right.comments
        return found


def split_rows(diff: FileDiff) -> list[Pair]:
    """Removed lines beside the added lines that replace them, in order."""
    pairs: list[Pair] = []
    removed: list[Row] = []
    added: list[Row] = []

    def flush() -> None:
        for i in range(max(len(removed), len(added))):
            pairs.append(Pair(removed[i] if i < len(removed) else None,
                              added[i] if i < len(added) else None))
        removed.clear()
        added.clear()

    for row in diff.rows:
        if row.kind == "del":
            if added:
                flush()
            removed.append(row)
        elif row.kind == "add":
            added.append(row)
        else:
            flush()
            wide = row.kind in ("hunk", "note")
            pairs.append(Pair(row, row, wide=wide))
    flush()
    return pairs
