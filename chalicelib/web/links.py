"""Which URLs a page may put in ``href``/``src``: the output half of "a URL from a user
is a link only when it is http(s)".

Input rules refuse other schemes (``http.input_rules.check_url``), but records
stored before those rules, or written by another path, may still hold ``javascript:``
or ``data:`` URLs.  Autoescaping keeps such a value inside its attribute, yet the
browser would still follow the scheme, so templates pass every user-supplied URL
through ``link_url`` and render the text, not a link, when it answers None.

The test is made on the URL as a browser reads it (the WHATWG URL parser): leading and
trailing C0 controls and spaces are stripped, ASCII tabs and newlines vanish anywhere
(``java\\tscript:`` is ``javascript:``), and the scheme is case-insensitive.  Entities
need no care: the value is escaped on output, so the browser sees exactly this text.
"""
from __future__ import annotations

import re

_EDGES = "".join(chr(code) for code in range(0x21))     # C0 controls and space
_TAB_OR_NEWLINE = re.compile("[\t\n\r]")
_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.\-]*):")
_LINK_SCHEMES = ("http", "https")


def link_url(value) -> str | None:
    """``value`` as the browser would read it if it is an http(s) URL or a path on this
    site (one leading ``/``: ``//host`` and ``/\\host`` lead to another host); else None."""
    if not isinstance(value, str):
        return None
    url = _TAB_OR_NEWLINE.sub("", value.strip(_EDGES))
    if url.startswith("/"):
        return url if url[1:2] not in ("/", "\\") else None
    scheme = _SCHEME.match(url)
    if scheme is not None and scheme.group(1).lower() in _LINK_SCHEMES:
        return url
    return None
