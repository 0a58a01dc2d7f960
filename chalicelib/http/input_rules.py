"""The rules every text a client sends must meet, in one place.

Checked on every JSON request body before a handler sees it (``http.message.ApiRequest.json``),
so create and edit routes share them and a refused request writes nothing and takes no
number.  The table of limits is documented in ``docs/compatibility.md``.

- Text is valid Unicode: a lone UTF-16 surrogate (JSON ``"\\ud800"``) cannot be stored
  as UTF-8 by DynamoDB, nor sent back; it is refused with 422 naming the field.
- Every text field has a maximum: Forgejo's binding ``MaxSize`` where it has one, 65,536
  characters (GitHub's) for bodies, ``DEFAULT_MAX`` for anything not named.  Every stored
  item must fit DynamoDB's 400 KB limit, and a repository's labels and milestones share
  one tracker item, so their descriptions are kept short.
- A URL a page renders as a link (a website, a status's target) follows Forgejo's
  ``ValidUrl`` rule (``check_url``): empty, or an http(s) URL, else 422 ``[Field]: Url``.
- JSON nesting is bounded (``MAX_DEPTH``): deeper input is refused with 400 rather than
  recursing through it.
- No text holds NUL (git, C clients and Postgres-backed receivers cannot carry it);
  single-line fields (``SINGLE_LINE``: names, titles, refs, identities) hold no C0
  control character at all, tab and newline included; bodies and multi-line
  descriptions keep the others (logs pasted into issues carry escape sequences).
  Either is refused with 422 naming the field.
"""
from __future__ import annotations

import re
from typing import Mapping

from chalicelib.errors import BadInput, InvalidInput
from chalicelib.http import options

BODY_MAX = 65_536            # GitHub's limit for issue and comment bodies
DEFAULT_MAX = 65_536         # any text field its option does not name
MAX_DEPTH = 32               # the deepest Forgejo option object is 3 levels
MAX_REQUEST_BODY = 6 * 1024 * 1024   # Lambda's own request payload limit

# Forgejo's sizes for what several bodies carry (an account's name, a person's name, an
# e-mail address, a short description); each option declares its own fields' limits
# (``Option.max_lengths``, ``Option.single_line``), using these where they apply.
NAME_MAX, FULL_NAME_MAX, EMAIL_MAX, DESCRIPTION_MAX = 40, 100, 254, 255


def maxima(definition: str | None) -> Mapping[str, int]:
    """The text limits the body ``definition`` (a swagger definition name) declares."""
    option = options.option_type(definition or "")
    return option.max_lengths if option is not None else {}


def single_line(definition: str | None) -> frozenset[str]:
    option = options.option_type(definition or "")
    return option.single_line if option is not None else frozenset()


_SURROGATE = re.compile("[\ud800-\udfff]")
_NUL = re.compile("\x00")
_C0 = re.compile("[\x00-\x1f]")


def has_lone_surrogate(text: str) -> bool:
    """Python keeps a lone surrogate from JSON as a code point that UTF-8 cannot encode
    (a valid pair is already combined into one character by the JSON decoder)."""
    return _SURROGATE.search(text) is not None


def scrub(text: str) -> str:
    """The text with every lone surrogate replaced by U+FFFD (for rendering and repair)."""
    return _SURROGATE.sub("\ufffd", text)


def field_label(path: str) -> str:
    """Forgejo names a field by its Go name: ``full_name`` -> ``FullName``."""
    return ".".join("".join(part.capitalize() for part in segment.split("_"))
                    for segment in path.split(".")) or "[]"


def check_text(value: str, field: str, maximum: int = DEFAULT_MAX, *,
               single_line: bool = False) -> str:
    """One text field: valid Unicode, at most ``maximum`` characters, no NUL, and no
    control character at all when ``single_line``."""
    if has_lone_surrogate(value):
        raise InvalidInput(f"[{field_label(field)}]: invalid Unicode (lone surrogate)")
    if (_C0 if single_line else _NUL).search(value):
        what = "control characters" if single_line and "\x00" not in value else "NUL"
        raise InvalidInput(f"[{field_label(field)}]: must not contain {what}")
    if len(value) > maximum:
        raise InvalidInput(f"[{field_label(field)}]: MaxSize")
    return value


# Go's url package (``url.ParseRequestURI``, which Forgejo's ``IsValidURL`` calls):
# what a scheme, a host and user info may hold, and what a valid ``%`` escape is.
_URL_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*")
_URL_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_BAD_ESCAPE = re.compile(r"%(?![0-9A-Fa-f]{2})")
_HOST_MARKS = frozenset("-_.~!$&'()*+,;=:[]<>\"%")
_USERINFO_MARKS = frozenset("-._:~!$&'()*+,;=%@")


def _valid_host(host: str) -> bool:
    """Go's ``parseHost``: an optional numeric port after the last colon (after the
    bracket of an IPv6 literal), no ASCII character outside its set, escapes only of
    non-ASCII bytes (``%25`` aside)."""
    if host.startswith("["):
        end = host.rfind("]")
        if end < 0:
            return False
        port = host[end + 1:]
    else:
        port = host[host.rfind(":"):] if ":" in host else ""
    if port and not (port[0] == ":" and _digits(port[1:])):
        return False
    for at, char in enumerate(host):
        if char == "%":
            escape = host[at:at + 3]
            if _BAD_ESCAPE.match(escape) or (int(escape[1], 16) < 8 and escape != "%25"):
                return False
        elif char.isascii() and not char.isalnum() and char not in _HOST_MARKS:
            return False
    return True


def _digits(text: str) -> bool:
    """Go's port rule: ASCII digits only, none at all allowed."""
    return text == "" or (text.isascii() and text.isdigit())


def _port_only(host: str) -> str:
    """Go's ``portOnly`` (the first colon, unless a bracketed literal precedes one)."""
    if ":" not in host:
        return ""
    if "]:" in host:
        return host[host.index("]:") + 2:]
    return "" if "]" in host else host[host.index(":") + 1:]


def is_valid_url(value: str) -> bool:
    """Forgejo's ``IsValidURL``: Go's ``url.ParseRequestURI`` takes the text, its scheme
    is http or https (in any case) and the host's port, if any, is digits.  As in Go,
    a rootless ``http:x`` is an opaque URL and passes; it can only name an http(s)
    resource, so it is harmless as a link."""
    scheme, colon, rest = value.partition(":")
    if _URL_CONTROL.search(value) or not colon or not _URL_SCHEME.fullmatch(scheme) \
            or scheme.lower() not in ("http", "https"):
        return False
    rest = rest.partition("?")[0]           # Go does not check the query here
    if not rest.startswith("/"):
        return True
    host = ""
    if rest.startswith("//"):
        authority, slash, path = rest[2:].partition("/")
        rest = slash + path
        userinfo, at, host = authority.rpartition("@")
        if at and (_BAD_ESCAPE.search(userinfo) or not all(
                c.isascii() and (c.isalnum() or c in _USERINFO_MARKS) for c in userinfo)):
            return False
        if not _valid_host(host):
            return False
    return _BAD_ESCAPE.search(rest) is None and _digits(_port_only(host))


def check_url(value: str, field: str, label: str | None = None) -> str:
    """Forgejo's ``ValidUrl`` binding rule: an empty text passes (it clears the field),
    anything else must be an http(s) URL (``is_valid_url``), else 422 ``[Field]: Url``.
    ``label`` names the field where Go's name is not ``field_label``'s (``TargetURL``)."""
    if value and not is_valid_url(value):
        raise InvalidInput(f"[{label or field_label(field)}]: Url")
    return value


def check_body(data, definition: str | None = None) -> None:
    """Every text in a parsed JSON body, walked without recursion (depth is bounded)."""
    limits = maxima(definition)
    one_line = single_line(definition)
    stack: list[tuple[object, str, int]] = [(data, "", 0)]
    while stack:
        value, path, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise BadInput(f"[]: JSON nested deeper than {MAX_DEPTH} levels")
        if isinstance(value, str):
            check_text(value, path, limits.get(path.lower(), DEFAULT_MAX),
                       single_line=path.lower() in one_line)
        elif isinstance(value, dict):
            for key, inner in value.items():
                check_text(key, path, 255)
                stack.append((inner, f"{path}.{key}" if path else key, depth + 1))
        elif isinstance(value, list):
            stack.extend((inner, path, depth + 1) for inner in value)
