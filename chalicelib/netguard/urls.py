"""A user's URL read strictly: scheme, host (IDNA, IP literals in every spelling), port
and path, refused with Forgejo's texts when malformed; credentials added and redacted."""
from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass
from typing import Iterable
from urllib.parse import quote, urlsplit, urlunsplit

from chalicelib.errors import InvalidInput
from chalicelib.netguard.policy import (INVALID_WEBHOOK_URL, LOCAL_IMPORT_REFUSED, MIGRATION,
                                        URL_HAS_CREDENTIALS, IPAddress)

_DEFAULT_PORTS = {"http": 80, "https": 443, "git": 9418}
_MIGRATION_SCHEMES = ("http", "https", "git")
_WEBHOOK_SCHEMES = ("http", "https")

_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_ENCODED_CRLF = re.compile(r"%0[ad]", re.IGNORECASE)
_SCP = re.compile(r"^(?:[^@/:]+@)?(?P<host>[^@/:]+):")
_LABEL = re.compile(r"^[a-z0-9_](?:[a-z0-9_-]{0,62})$")
_NUMERIC_LABEL = re.compile(r"^(?:[0-9]+|0x[0-9a-f]*)$")
_URL_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.\-]*://)[^\s/?#]*@")
# --- parsing ----------------------------------------------------------------------

@dataclass(frozen=True)
class ParsedURL:
    url: str                    # normalized
    scheme: str
    host: str                   # ASCII, lower case, IPv6 without brackets
    ip: IPAddress | None        # set when the host is an IP literal
    port: int                   # explicit or the scheme's default
    request_path: str


def _printable(text: str) -> str:
    # escape first, so that a control character cannot cut a URL short for redact()
    return redact(_CONTROL.sub(lambda m: "\\x%02x" % ord(m.group()), text))


def _protocol_refused(host: str) -> InvalidInput:
    return InvalidInput(f"migration/cloning from '{_printable(host)}' is not allowed: "
                        "the provided url protocol is not allowed")


def _url_refused(host: str) -> InvalidInput:
    return InvalidInput(f"migration/cloning from '{_printable(host)}' is not allowed: "
                        "the provided url is invalid")


def _normalize_host(raw: str) -> tuple[str, IPAddress | None]:
    """ASCII lower-case host name, or an IP literal; ValueError when malformed."""
    if raw.startswith("["):
        if not raw.endswith("]") or "%" in raw:
            raise ValueError("bad IPv6 literal")
        return raw[1:-1].lower(), ipaddress.IPv6Address(raw[1:-1])
    if not raw:
        raise ValueError("empty host")
    try:
        host = raw.encode("idna").decode("ascii") if not raw.isascii() else raw
    except UnicodeError as exc:
        raise ValueError("bad international host name") from exc
    host = host.lower()
    try:   # fullwidth digits become an IP literal only after the IDNA step
        return host, ipaddress.IPv4Address(host)
    except ValueError:
        pass
    labels = host[:-1].split(".") if host.endswith(".") else host.split(".")
    if len(host) > 254 or not all(_LABEL.match(label) for label in labels):
        raise ValueError("bad host name")
    # 127.1, 0x7f.0.0.1, 2130706433: numeric forms some resolvers read as IPv4
    if _NUMERIC_LABEL.match(labels[-1]):
        raise ValueError("numeric host name")
    return host, None


def _split_hostport(hostport: str) -> tuple[str, str]:
    if hostport.startswith("["):
        end = hostport.find("]")
        if end < 0:
            raise ValueError("unterminated IPv6 literal")
        host, rest = hostport[:end + 1], hostport[end + 1:]
        if rest and not rest.startswith(":"):
            raise ValueError("junk after IPv6 literal")
        return host, rest[1:]
    host, sep, port = hostport.rpartition(":")
    return (host, port) if sep else (hostport, "")


def parse_url(raw: str, purpose: str, *, allow_userinfo: bool) -> ParsedURL:
    """Check the form of ``raw`` (no DNS); raise InvalidInput with the purpose's text."""
    migration = purpose == MIGRATION
    # Forgejo trims clone addresses but takes webhook URLs as they are.
    text = (raw or "").strip() if migration else (raw or "")

    def invalid(host: str) -> InvalidInput:
        return _url_refused(host) if migration else InvalidInput(INVALID_WEBHOOK_URL)

    if _CONTROL.search(text) or _ENCODED_CRLF.search(text) or text != text.strip():
        raise invalid(text)
    if "://" not in text:
        if not migration:
            raise InvalidInput(INVALID_WEBHOOK_URL)
        if text[:5].lower() == "file:":
            raise InvalidInput(LOCAL_IMPORT_REFUSED)
        scp = _SCP.match(text)
        if scp:          # user@host:path is ssh, which migrations do not take
            raise _protocol_refused(scp["host"])
        raise InvalidInput(LOCAL_IMPORT_REFUSED)
    try:
        parts = urlsplit(text)
    except ValueError:
        raise invalid(text) from None
    scheme = parts.scheme.lower()
    hostport = parts.netloc.rpartition("@")[2]
    if scheme in ("", "file"):
        if migration:
            raise InvalidInput(LOCAL_IMPORT_REFUSED)
        raise InvalidInput(INVALID_WEBHOOK_URL)
    if scheme not in (_MIGRATION_SCHEMES if migration else _WEBHOOK_SCHEMES):
        if migration:
            raise _protocol_refused(hostport)
        raise InvalidInput(INVALID_WEBHOOK_URL)
    userinfo = parts.netloc.rpartition("@")[0] if "@" in parts.netloc else None
    if userinfo is not None and not allow_userinfo:
        raise InvalidInput(URL_HAS_CREDENTIALS)
    try:
        raw_host, raw_port = _split_hostport(hostport)
        host, ip = _normalize_host(raw_host)
        if raw_port and not raw_port.isdigit():
            raise ValueError("bad port")
        port = int(raw_port) if raw_port else _DEFAULT_PORTS[scheme]
        if not 0 < port < 65536:
            raise ValueError("port out of range")
    except ValueError:
        raise invalid(hostport) from None
    netloc = f"[{host}]" if ip is not None and ip.version == 6 else host
    if raw_port:
        netloc += f":{port}"
    if userinfo is not None:
        netloc = f"{userinfo}@{netloc}"
    url = urlunsplit((scheme, netloc, parts.path, parts.query, parts.fragment))
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return ParsedURL(url, scheme, host, ip, port, path)


# --- credentials ------------------------------------------------------------------

def add_credentials(url: str, username: str | None, password_or_token: str | None) -> str:
    """Put ``username:secret@`` into an http(s) URL, percent-encoded.

    Nothing happens when both are empty, or for git:// (the git daemon has no
    authentication).  For a token, pass ``("oauth2", token)`` as Forgejo does.
    """
    username, secret = username or "", password_or_token or ""
    if not username and not secret:
        return url
    if _CONTROL.search(username) or _CONTROL.search(secret):
        raise InvalidInput("The credentials contain control characters.")
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme == "git":
        return url
    if scheme not in ("http", "https"):
        raise _protocol_refused(parts.netloc.rpartition("@")[2])
    userinfo = quote(username, safe="") + ":" + quote(secret, safe="")
    netloc = userinfo + "@" + parts.netloc.rpartition("@")[2]
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """Drop ``userinfo@`` from every URL in ``text``; also mask the given secrets
    (as written and percent-encoded) wherever they appear."""
    text = _URL_USERINFO.sub(r"\1", text or "")
    for secret in secrets:
        if secret:
            for form in {secret, quote(secret, safe="")}:
                text = text.replace(form, "******")
    return text
