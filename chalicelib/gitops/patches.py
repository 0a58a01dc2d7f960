"""Applying a git-style unified diff to files, without a work tree (Forgejo's
repoApplyDiffPatch runs ``git apply --cached`` for it).

``parse`` reads the patch into one ``FilePatch`` per file: ``diff --git`` headers (new,
deleted, renamed and copied files, modes, ``index`` lines) or plain ``---``/``+++``
pairs, then the hunks.  ``apply_hunks`` applies a file's hunks to its old content.

As ``git apply``: a hunk's context and removed lines must be found in the file exactly
(``\\ No newline at end of file`` honoured); where the header's line number is off, the
nearest place the hunk fits is taken (hunks in order, never overlapping); the counts in
``@@`` lines are not trusted (``--recount``: the hunk's body says how long it is).  What
it refuses, with a ``PatchError`` naming the file and hunk: a hunk that fits nowhere,
a file to create that exists or to change that does not, binary patches, a mode other
than a regular file's, and text that is no patch at all.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from chalicelib.errors import InvalidInput

DEV_NULL = "/dev/null"
REGULAR_MODE = "100644"
_HUNK = re.compile(rb"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_ESCAPES = {"n": "\n", "t": "\t", '"': '"', "\\": "\\", "a": "\a", "b": "\b", "f": "\f",
            "r": "\r", "v": "\v"}


class PatchError(InvalidInput):
    """The patch cannot be read, or does not apply (422)."""


@dataclass
class Hunk:
    old_start: int
    lines: list[bytes] = field(default_factory=list)     # each with its ' ', '-' or '+'
    header: str = ""

    def old(self) -> list[bytes]:
        return [line[1:] for line in self.lines if line[:1] in (b" ", b"-")]

    def new(self) -> list[bytes]:
        return [line[1:] for line in self.lines if line[:1] in (b" ", b"+")]


@dataclass
class FilePatch:
    old_path: str | None          # None: a new file
    new_path: str | None          # None: a deleted file
    hunks: list[Hunk] = field(default_factory=list)
    copy: bool = False            # a copy keeps the old file (a rename does not)
    binary: bool = False
    mode: str = ""                # a new file's or a changed mode, as written

    @property
    def path(self) -> str:
        return self.new_path or self.old_path or ""


def _unquote(text: str) -> str:
    """A path as git writes it: C-quoted when it holds special characters."""
    if len(text) < 2 or not (text.startswith('"') and text.endswith('"')):
        return text
    body, out, i = text[1:-1], bytearray(), 0
    while i < len(body):
        ch = body[i]
        if ch == "\\" and i + 1 < len(body):
            nxt = body[i + 1]
            if nxt in "01234567" and re.match(r"[0-7]{3}", body[i + 1:i + 4]):
                out.append(int(body[i + 1:i + 4], 8))
                i += 4
                continue
            out += _ESCAPES.get(nxt, nxt).encode()
            i += 2
            continue
        out += ch.encode()
        i += 1
    return out.decode("utf-8", "replace")


def _side(text: str, prefix: str) -> str | None:
    """A ``---``/``+++`` path: None for /dev/null, without its a/ or b/ prefix."""
    text = text.split("\t", 1)[0].rstrip("\r")
    text = _unquote(text.strip())
    if text == DEV_NULL:
        return None
    return text.removeprefix(prefix)


def _git_header_paths(rest: str) -> tuple[str | None, str | None]:
    """``a/x b/x`` of a ``diff --git`` line: certain when quoted or when both names are
    the same; the ---/+++ or rename lines settle the others."""
    rest = rest.rstrip("\r")
    if rest.startswith('"'):
        end = rest.find('"', 1) + 1 or len(rest)
        return _side(rest[:end], "a/"), _side(rest[end:].strip(), "b/")
    same = (len(rest) - 5) // 2
    if len(rest) % 2 == 1 and rest.startswith("a/") and rest[2 + same:5 + same] == " b/" \
            and rest[2:2 + same] == rest[5 + same:]:
        return rest[2:2 + same], rest[5 + same:]
    parts = rest.split(" b/", 1)
    return (_side(parts[0], "a/"), parts[1]) if len(parts) == 2 else (None, None)


def _in_hunk(lines: list[bytes], i: int, pending: tuple[int, int]) -> bool:
    """Whether line ``i`` still belongs to the hunk being read.  The counts of the
    ``@@`` line are not trusted (``git apply --recount``): a hunk goes on while lines
    start with a space, ``-`` or ``+``, up to the next file's ``---``/``+++``/``@@``
    header; an empty line is taken as empty context only while the counts expect more."""
    line = lines[i]
    if line[:1] in (b"\n", b"\r"):
        return pending[0] > 0 or pending[1] > 0
    if line[:1] not in (b" ", b"-", b"+"):
        return False
    next_file = line.startswith(b"--- ") and i + 2 < len(lines) and \
        lines[i + 1].startswith(b"+++ ") and lines[i + 2].startswith(b"@@ ")
    return not next_file


def parse(text: bytes) -> list[FilePatch]:
    """Every file the patch changes, in order."""
    lines = text.splitlines(keepends=True)
    patches: list[FilePatch] = []
    current: FilePatch | None = None
    hunk: Hunk | None = None
    pending: tuple[int, int] = (0, 0)     # lines of the hunk still expected (old, new)
    i = 0
    while i < len(lines):
        line = lines[i]
        if hunk is not None and _in_hunk(lines, i, pending):
            if line[:1] in (b"\n", b"\r"):      # an empty context line some tools write
                line = b" " + line
            hunk.lines.append(line)
            old, new = pending
            kind = line[:1]
            pending = (old - (kind != b"+"), new - (kind != b"-"))
            i += 1
            continue
        if line.startswith(b"\\ ") and hunk is not None and hunk.lines:
            last = hunk.lines[-1]
            hunk.lines[-1] = last[:-1] if last.endswith(b"\n") else last
            i += 1
            continue
        hunk = None
        text_line = line.decode("utf-8", "replace").rstrip("\n")
        if text_line.startswith("diff --git "):
            old_path, new_path = _git_header_paths(text_line[len("diff --git "):])
            current = FilePatch(old_path, new_path)
            patches.append(current)
        elif current is not None and not current.hunks and _extended(current, text_line):
            pass
        elif text_line.startswith("--- ") and i + 1 < len(lines) and \
                lines[i + 1].startswith(b"+++ "):
            old_path = _side(text_line[4:], "a/")
            new_path = _side(lines[i + 1].decode("utf-8", "replace")[4:].rstrip("\n"), "b/")
            if current is None or current.hunks or current.binary:
                current = FilePatch(old_path, new_path)
                patches.append(current)
            else:
                current.old_path, current.new_path = old_path, new_path
            i += 1
        elif line.startswith(b"@@ "):
            found = _HUNK.match(line)
            if current is None or found is None:
                raise PatchError(f"corrupt patch at line {i + 1}")
            old_len = int(found.group(2)) if found.group(2) is not None else 1
            new_len = int(found.group(4)) if found.group(4) is not None else 1
            hunk = Hunk(int(found.group(1)), header=text_line)
            current.hunks.append(hunk)
            pending = (old_len, new_len)
        elif text_line.startswith(("GIT binary patch", "Binary files ")) and current is not None:
            current.binary = True
        i += 1
    if not patches:
        raise PatchError("the content is not a patch: no file changes found")
    return patches


def _extended(patch: FilePatch, line: str) -> bool:
    """The extended header lines of ``diff --git`` (git's own order does not matter)."""
    for prefix, action in (("new file mode ", "new"), ("deleted file mode ", "deleted"),
                           ("rename from ", "from"), ("rename to ", "to"),
                           ("copy from ", "cfrom"), ("copy to ", "cto"),
                           ("new mode ", "mode"), ("old mode ", None),
                           ("similarity index ", None), ("dissimilarity index ", None),
                           ("index ", None)):
        if not line.startswith(prefix):
            continue
        value = line[len(prefix):].rstrip("\r")
        if action in ("new", "deleted", "mode") and not re.fullmatch(r"[0-7]{6}", value.strip()):
            raise PatchError(f"invalid mode in the patch: {line!r}")
        if action == "new":
            patch.old_path, patch.mode = None, value.strip()
        elif action == "deleted":
            patch.new_path = None
        elif action in ("from", "cfrom"):
            patch.old_path = _unquote(value)
            patch.copy = action == "cfrom"
        elif action in ("to", "cto"):
            patch.new_path = _unquote(value)
        elif action == "mode":
            patch.mode = value.strip()
        return True
    return False


def _fits(content: list[bytes], at: int, old: list[bytes]) -> bool:
    return content[at:at + len(old)] == old


def apply_hunks(patch: FilePatch, content: bytes) -> bytes:
    """The file's new content: each hunk where it fits, nearest its stated line, after
    the previous one."""
    lines = content.splitlines(keepends=True)
    out: list[bytes] = []
    done = 0           # lines of ``lines`` already consumed
    for number, hunk in enumerate(patch.hunks, 1):
        old, new = hunk.old(), hunk.new()
        stated = max(hunk.old_start - 1, 0) if old else hunk.old_start
        at = _place(lines, done, stated, old)
        if at is None:
            raise PatchError(f"patch does not apply to '{patch.path}': hunk #{number} "
                             f"({hunk.header}) does not match the file")
        out += lines[done:at]
        out += new
        done = at + len(old)
    out += lines[done:]
    return b"".join(out)


def _place(lines: list[bytes], start: int, stated: int, old: list[bytes]) -> int | None:
    """Where ``old`` is, at or after ``start``: the stated line if it fits there, else
    the nearest line where it does."""
    last = len(lines) - len(old)
    if not old:
        return min(max(stated, start), len(lines)) if stated <= len(lines) else None
    for offset in range(max(last, 0) + len(lines) + 1):
        for at in (stated - offset, stated + offset) if offset else (stated,):
            if start <= at <= last and _fits(lines, at, old):
                return at
        if stated - offset < start and stated + offset > last:
            break
    return None
