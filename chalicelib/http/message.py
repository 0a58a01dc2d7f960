"""Request and response objects of the API layer, independent of Chalice.

The gateway builds an :class:`ApiRequest` from an API Gateway proxy event and turns an
:class:`ApiResponse` back into the proxy result, so handlers never see event dicts.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterable, Iterator, TypeVar
from urllib.parse import parse_qs

from chalicelib.http import input_rules
from chalicelib.http.errors import (BadRequest, PayloadTooLarge, UnsupportedMediaType,
                                    ValidationFailed)

if TYPE_CHECKING:
    from chalicelib.http.options import Option

O = TypeVar("O", bound="Option")

JSON_CONTENT_TYPE = "application/json;charset=utf-8"
# The policy of a repository's files served as they are (raw, media): a file must never
# run script or load anything in the site's origin, even if a browser renders it.
FILE_CSP = "default-src 'none'; style-src 'unsafe-inline'; sandbox"


class Headers:
    """Case-insensitive, single-valued view of request headers."""

    def __init__(self, items: Iterable[tuple[str, str]] = ()):
        self._items = {k.lower(): v for k, v in items}

    def get(self, name: str, default: str | None = None) -> str | None:
        return self._items.get(name.lower(), default)

    def __contains__(self, name: str) -> bool:
        return name.lower() in self._items

    def items(self):
        return self._items.items()


@dataclass
class ApiRequest:
    method: str
    path: str                       # below /api/v1 for API routes, e.g. "/users/alice"
    raw_path: str                   # the full path as received, e.g. "/api/v1/users/alice"
    query: dict[str, list[str]]
    headers: Headers
    body: bytes
    source_ip: str = ""
    params: dict[str, str] = field(default_factory=dict)
    principal: Any = None           # set by auth (chalicelib.http.auth.Principal)
    credential: Any = None          # parsed once per request (chalicelib.http.auth.Credential)
    # A credential the route does not take (a token sent to a page), kept to refuse forms.
    refused_credential: bool = False
    session: Any = None             # the session cookie's fields, on routes that read it
    route: Any = None
    request_id: str = ""            # API Gateway's requestContext.requestId (or generated)

    @property
    def actor(self):
        """The signed-in account (after Sudo), or None for anonymous requests."""
        return self.principal.user if self.principal is not None else None

    def arg(self, name: str, default: str | None = None) -> str | None:
        values = self.query.get(name)
        return values[0] if values else default

    def int_param(self, name: str) -> int:
        """A path parameter that must be an integer ({id}, {index})."""
        raw = self.params[name]
        try:
            return int(raw)
        except ValueError:
            raise ValidationFailed(f"{name} must be an integer") from None

    @property
    def _body_definition(self) -> str | None:
        """The swagger definition of the route's body: it names the fields' maxima."""
        return self.route.body if self.route is not None else None

    @property
    def content_type(self) -> str:
        return (self.headers.get("content-type") or "").split(";")[0].strip().lower()

    def form(self) -> dict[str, list[str]]:
        if self.content_type == "application/x-www-form-urlencoded":
            return parse_qs(self.body.decode("utf-8", "replace"), keep_blank_values=True)
        return {}

    def option(self, cls: type[O], *, required: bool = True) -> O:
        """The body as ``cls``, a typed option (``http.options``) checked once, here: the
        JSON (or form) body, its limits (``input_rules``), then the fields' types, enums
        and required fields, with Forgejo's 422 texts."""
        from chalicelib.http import options

        data = self.json(required=required)
        return options.decode(cls, data,
                              from_form=self.content_type == "application/x-www-form-urlencoded")

    def json(self, *, required: bool = True) -> dict:
        """The JSON object body.

        Forgejo's binding refuses an empty Content-Type on POST/PUT and ignores JSON
        sent without one on PATCH/DELETE; we keep the refusal and accept the PATCH
        case so clients that forget the header are not silently ignored.
        """
        if not self.body.strip():
            if required and self.method in ("POST", "PUT") and not self.content_type:
                raise ValidationFailed("[]: Empty Content-Type")
            return {}
        if self.content_type and "json" not in self.content_type \
                and self.content_type != "text/plain":
            if self.content_type == "application/x-www-form-urlencoded":
                fields = {k: v[-1] for k, v in self.form().items()}
                input_rules.check_body(fields, self._body_definition)
                return fields
            raise UnsupportedMediaType("[]: Unsupported Content-Type")
        if len(self.body) > input_rules.MAX_REQUEST_BODY:
            raise PayloadTooLarge()
        try:
            data = json.loads(self.body)
        except RecursionError:
            raise BadRequest(f"[]: JSON nested deeper than {input_rules.MAX_DEPTH} levels") from None
        except (ValueError, UnicodeDecodeError) as exc:
            raise ValidationFailed(f"[]: invalid JSON body: {input_rules.scrub(str(exc))}") from None
        if not isinstance(data, dict):
            raise ValidationFailed("[]: the request body must be a JSON object")
        input_rules.check_body(data, self._body_definition)
        return data


def go_json(data: Any) -> bytes:
    """JSON as Go's encoder writes it: <, > and & escaped, trailing newline.

    A lone surrogate stored before the input rules existed becomes U+FFFD, as Go's
    encoder does with invalid UTF-8, so one odd record never fails a whole response."""
    text = input_rules.scrub(json.dumps(data, ensure_ascii=False, separators=(",", ":")))
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return (text + "\n").encode("utf-8")


@dataclass
class ApiResponse:
    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    # Header names that may carry several values (Set-Cookie, Link is single here).
    multi_headers: dict[str, list[str]] = field(default_factory=dict)
    # A body produced while it is sent (a clone's pack), instead of ``body``: only the
    # streaming function (chalicelib/streaming) sends one, and only routes it serves
    # set it.
    stream: Iterator[bytes] | None = None

    @classmethod
    def json(cls, data: Any, status: int = 200, headers: dict | None = None) -> "ApiResponse":
        h = {"Content-Type": JSON_CONTENT_TYPE}
        h.update(headers or {})
        return cls(status=status, body=go_json(data), headers=h)

    @classmethod
    def empty(cls, status: int = 204) -> "ApiResponse":
        return cls(status=status)

    @classmethod
    def text(cls, text: str | bytes, status: int = 200,
             content_type: str = "text/plain; charset=utf-8") -> "ApiResponse":
        body = text.encode("utf-8") if isinstance(text, str) else text
        return cls(status=status, body=body, headers={"Content-Type": content_type})

    def expose(self, *names: str) -> None:
        """Append to Access-Control-Expose-Headers, as Forgejo does per header set."""
        current = self.headers.get("Access-Control-Expose-Headers")
        parts = [p for p in (current.split(", ") if current else []) if p]
        parts.extend(n for n in names if n not in parts)
        self.headers["Access-Control-Expose-Headers"] = ", ".join(parts)
