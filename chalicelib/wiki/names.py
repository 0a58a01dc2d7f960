"""Wiki page names as Forgejo spells them (fj:services/wiki/wiki_path.go): a page has a
title ("Home Page"), a web path (``sub_url``, "Home-Page") and a file in the wiki's git
("Home-Page.md").

* A title becomes a web path by turning spaces into "-" and query-escaping the rest; a
  title that holds "-" itself (or ends in ".md") keeps its spaces and gets the dash
  marker ".-" instead, so "2000-01-02 meeting" is "2000-01-02+meeting.-".
* The file is the web path with "+" and "%20" back to spaces, plus ".md".
* A web path ending in ".md" names its file directly (a raw file name).
* "_pages", "_new", "_edit" and "raw" are reserved (the pages' own addresses).

Paths here arrive decoded once (API Gateway decodes the path before routing; Forgejo
reads the raw segment), so unescaping is lenient: a "%" that starts no escape is
itself.  No dulwich, no storage: pure text rules.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import quote_plus

from chalicelib.errors import BadInput

HOME = "Home"
SIDEBAR = "_Sidebar"
FOOTER = "_Footer"
RESERVED = ("_pages", "_new", "_edit", "raw")
DASH_MARKER = ".-"
EXTENSION = ".md"
_ESCAPE = re.compile(r"%([0-9A-Fa-f]{2})")


def _query_escape(text: str) -> str:
    """Go's url.QueryEscape: unreserved bytes kept, a space as "+", the rest %XX."""
    return quote_plus(text, safe="")


def _query_unescape(text: str) -> str:
    """Go's url.QueryUnescape, leniently: "+" is a space, %XX its byte, and a "%" that
    starts no escape stays (the path was decoded once already)."""
    raw = text.replace("+", " ").encode("utf-8")
    out = bytearray()
    i = 0
    while i < len(raw):
        if raw[i:i + 1] == b"%" and _ESCAPE.match(raw[i:i + 3].decode("latin-1")):
            out.append(int(raw[i + 1:i + 3], 16))
            i += 3
        else:
            out.append(raw[i])
            i += 1
    return out.decode("utf-8", "replace")


def _path_unescape(text: str) -> str:
    """Go's url.PathUnescape, leniently: like ``_query_unescape`` but "+" stays."""
    return _query_unescape(text.replace("+", "%2B"))


def _has_marker(segment: str) -> bool:
    return segment.endswith(DASH_MARKER)


def _unescape_segment(segment: str) -> str:
    if _has_marker(segment):
        segment = segment[:-len(DASH_MARKER)]
    else:
        segment = segment.replace("-", " ")
    return _query_unescape(segment)


def _escape_segment(segment: str, had_marker: bool) -> str:
    if had_marker or "-" in segment or segment.endswith(EXTENSION):
        segment += DASH_MARKER
    else:
        segment = segment.replace(" ", "-")
    return _query_escape(segment)


def _canonical(segment: str) -> str:
    return _escape_segment(_unescape_segment(segment), _has_marker(segment))


@dataclass(frozen=True)
class PageName:
    """A page by its web path (Forgejo's ``WebPath``: the API's ``sub_url``)."""
    web: str

    @property
    def title(self) -> str:
        """What a reader sees (Forgejo's DisplayName)."""
        display = self.web.rsplit("/", 1)[-1]
        if display.endswith(EXTENSION):
            display = _path_unescape(display[:-len(EXTENSION)])
        return _unescape_segment(display)

    @property
    def git_path(self) -> str:
        """The page's file in the wiki's tree."""
        if self.web.endswith(EXTENSION):
            return _path_unescape(self.web).strip("/")
        segments = [_canonical(s).replace("%20", " ").replace("+", " ")
                    for s in self.web.split("/")]
        return "/".join(segments) + EXTENSION

    def candidates(self) -> list[str]:
        """The file names a read looks for, in order: the escaped name, then its
        unescaped form (wikis written by older versions)."""
        names = [self.git_path]
        plain = _query_unescape(self.git_path)
        if plain not in names:
            names.append(plain)
        return names

    def write_candidates(self) -> list[str]:
        """The file names a write finds an existing page under (Forgejo's
        prepareGitPath): the web path as a file name first, then the escaped name."""
        names = [self.web + EXTENSION]
        if self.git_path not in names:
            names.append(self.git_path)
        return names

    def check_not_reserved(self) -> None:
        for segment in self.web.split("/"):
            word = _unescape_segment(segment)
            if word in RESERVED:
                raise BadInput(f"wiki title is reserved: {word}")


def from_title(title: str) -> PageName:
    """A page name from a title (Forgejo's TitleToPath): no subdirectories, a slash is
    part of the title; an empty title is "unnamed"."""
    web = _escape_segment(title.strip(), False)
    if web in ("", ".", ".."):
        web = "unnamed"
    return PageName(web)


def from_request(segment: str) -> PageName:
    """A page name from the address (``/wiki/page/{pageName}``, ``/wiki/{page}``),
    decoded once: a slash is part of the title, as Forgejo's RequestToPath makes it;
    an empty one is the home page."""
    text = segment.strip("/")
    if not text:
        return PageName(HOME)
    if text.endswith(EXTENSION):
        return PageName(text)
    return PageName("%2F".join(_canonical(part) for part in text.split("/") if part))


def from_git_path(path: str) -> PageName | None:
    """The page a file of the wiki's tree is (Forgejo's GitPathToPath); None for a
    file that is not a page (not ".md")."""
    if not path.endswith(EXTENSION):
        return None
    segments = path[:-len(EXTENSION)].split("/")
    return PageName("/".join(_canonical(s) for s in segments))


def go_quote(text: str) -> str:
    """Go's %q of a string, as Forgejo's default commit messages quote a title."""
    out = ['"']
    for ch in text:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\r":
            out.append("\\r")
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\x{ord(ch):02x}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)
