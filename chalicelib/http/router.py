"""The in-app route table: method + path pattern -> one handler per Forgejo operationId.

API Gateway sees a single catch-all route; everything below is ours (why:
``shared/spec/serverless-stack.md`` §1).  Patterns use ``{name}`` for one path segment
and ``{name:path}`` for a greedy parameter that may hold slashes (raw file paths,
branch names).  The same table drives the service's own ``/swagger.v1.json``.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable

_PARAM = re.compile(r"\{(\w+)(?::(path))?\}")
WRITE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})

# Who may call a route, and with which credential (docs/security.md).  Every route
# declares one; the gateway enforces it (``chalicelib.http.auth.authorize``).
TOKEN = "token"        # the API: tokens, Basic (password or token), Sudo; no session cookie
SESSION = "session"    # pages and forms: the session cookie only; API tokens are refused
DOWNLOAD = "download"  # raw, media, attachments, archives: the session, or a token with
                       # read access to ``scope`` (Forgejo's isGitRawOrAttachOrLFSPath)
GIT = "git"            # git over HTTP: a token or Basic with ``scope``; no session cookie
CLIENT = "client"      # the OAuth2 token endpoint: its client authenticates itself in the
                       # handler (RFC 6749 §2.3), so no user credential is read at all
CREDENTIALS = (TOKEN, SESSION, DOWNLOAD, GIT, CLIENT)


class _Undeclared:
    """The default of what a route must declare: a route left without it is refused
    when registered, so a new route cannot forget who may call it."""

    def __repr__(self) -> str:
        return "UNDECLARED"


UNDECLARED = _Undeclared()


class RouteDeclarationError(ValueError):
    """A route that does not say who may call it (or says something that cannot hold)."""


@dataclass
class Param:
    """A declared query parameter (for validation docs and swagger)."""
    name: str
    type: str = "string"
    description: str = ""
    required: bool = False
    # Where it is sent: "query", or "formData" (multipart uploads; type "file" for files).
    location: str = "query"


@dataclass
class Route:
    method: str
    pattern: str
    operation_id: str
    handler: Callable
    tag: str
    summary: str = ""
    # Token scope category (read:/write: chosen by method); None = no scope needed
    # (Forgejo's routes outside every scope group: version, signing keys).  Required.
    scope: str | None | _Undeclared = UNDECLARED
    # Which credentials the route takes (TOKEN, SESSION, DOWNLOAD, GIT): API routes
    # default to TOKEN, routes outside /api/v1 must say.
    credentials: str | _Undeclared = UNDECLARED
    # The scope level when the method does not tell it (git: a POST fetch only reads).
    scope_level: str | None = None
    # Extra categories that are all required as well (e.g. user + organization).
    extra_scopes: tuple[str, ...] = ()
    signed_in: bool = False      # reqToken: anonymous callers get 401
    site_admin: bool = False     # reqSiteAdmin: others get 403
    basic_auth_only: bool = False  # token creation: a password login is required
    query: tuple[Param, ...] = ()
    body: str | None = None      # swagger definition name of the JSON body
    consumes: tuple[str, ...] = ("application/json",)
    produces: tuple[str, ...] = ("application/json",)
    responses: dict[int, str] = field(default_factory=dict)
    deprecated: bool = False
    in_swagger: bool = True
    # Served outside /api/v1 (git smart HTTP, swagger page).
    raw: bool = False
    # Keys to read before authentication, batched with the token (e.g. the repository
    # in the path), and keys that depend on them and on the caller's id.
    preload: Callable | None = None        # (req) -> list[key]
    preload_more: Callable | None = None   # (req, user_id | None) -> list[key]
    # Routes a setting switches off (quota): when this answers False the route is
    # treated as unknown (404), before authentication.
    available: Callable[[], bool] | None = None
    regex: re.Pattern = field(init=False, repr=False)
    param_names: tuple[str, ...] = field(init=False, repr=False)

    def __post_init__(self):
        if self.credentials is UNDECLARED and not self.raw:
            self.credentials = TOKEN
        self._check_declaration()
        self.regex = re.compile(pattern_regex(self.pattern))
        self.param_names = tuple(m.group(1) for m in _PARAM.finditer(self.pattern))

    def _check_declaration(self) -> None:
        where = f"{self.method} {self.pattern} ({self.operation_id})"
        if self.credentials not in CREDENTIALS:
            raise RouteDeclarationError(f"{where}: declare credentials= one of {CREDENTIALS}")
        if self.scope is UNDECLARED:
            raise RouteDeclarationError(f"{where}: declare scope= (a category, or None)")
        if self.credentials in (SESSION, CLIENT) and self.scope is not None:
            raise RouteDeclarationError(f"{where}: a page takes no token, so no scope")
        if self.credentials in (DOWNLOAD, GIT) and self.scope is None:
            raise RouteDeclarationError(f"{where}: a token must have a scope to download")
        if self.scope_level not in (None, "read", "write"):
            raise RouteDeclarationError(f"{where}: scope_level is read, write or None")

    @property
    def accepts_tokens(self) -> bool:
        return self.credentials not in (SESSION, CLIENT)

    @property
    def accepts_session(self) -> bool:
        return self.credentials in (SESSION, DOWNLOAD)

    @property
    def key(self) -> tuple[str, str, bool, str]:
        """What identifies a route in the table and in the route index."""
        return (self.method, self.pattern, self.raw, self.operation_id)

    @property
    def swagger_path(self) -> str:
        return _PARAM.sub(lambda m: "{" + m.group(1) + "}", self.pattern)


def pattern_regex(pattern: str) -> str:
    """The regular expression of a path pattern (the route index builds the same one)."""
    parts, pos = [], 0
    for m in _PARAM.finditer(pattern):
        parts.append(re.escape(pattern[pos:m.start()]))
        parts.append(f"(?P<{m.group(1)}>.+)" if m.group(2) else f"(?P<{m.group(1)}>[^/]+)")
        pos = m.end()
    parts.append(re.escape(pattern[pos:]))
    return "^" + "".join(parts) + "$"


class RouteTable:
    def __init__(self):
        self.routes: list[Route] = []
        self._by_op: dict[str, Route] = {}
        self._by_key: dict[tuple, Route] = {}

    def add(self, route: Route) -> Route:
        self.routes.append(route)
        self._by_op.setdefault(route.operation_id, route)
        self._by_key.setdefault(route.key, route)
        return route

    def by_operation(self, operation_id: str) -> Route:
        return self._by_op[operation_id]

    def find(self, key: tuple) -> Route | None:
        """The route registered under ``Route.key``, if its module was imported."""
        return self._by_key.get(key)

    def arrange(self, order: dict[tuple, int]) -> None:
        """Put the routes in the order given by key (matching precedence); routes the
        order does not know keep their registration order, after the others.

        Area modules imported one at a time (the gateway imports only the one a request
        needs) register in another order than one import of every area does.
        """
        # New objects, swapped in whole: a request matching in another thread sees the
        # old order or the new one, never a list being sorted in place.
        routes = sorted(self.routes, key=lambda r: order.get(r.key, len(order)))
        by_op: dict[str, Route] = {}
        for route in routes:
            by_op.setdefault(route.operation_id, route)
        self.routes, self._by_op = routes, by_op

    def match(self, method: str, path: str, *, raw: bool = False):
        """Return (route, params), or (None, allowed_methods) when nothing matches.

        ``allowed_methods`` is non-empty when the path exists under another method
        (the caller answers 405), empty when the path is unknown (404).
        """
        allowed: list[str] = []
        for route in self.routes:
            if route.raw != raw:
                continue
            m = route.regex.match(path)
            if not m:
                continue
            if route.method == method or (method == "HEAD" and route.method == "GET"):
                return route, m.groupdict()
            if route.method not in allowed:
                allowed.append(route.method)
        return None, allowed


TABLE = RouteTable()


def route(method: str, pattern: str, operation_id: str, *, tag: str, **options):
    """Register the decorated function as the handler of ``operation_id``."""
    def register(func: Callable) -> Callable:
        TABLE.add(Route(method=method, pattern=pattern, operation_id=operation_id,
                        handler=func, tag=tag, **options))
        return func
    return register


def alias(method: str, pattern: str, operation_id: str, *, same_as: str, **options) -> None:
    """Serve another path (the seed's older one, or Forgejo's modern one) with an existing handler."""
    original = TABLE.by_operation(same_as)
    fields = {k: getattr(original, k) for k in (
        "tag", "summary", "scope", "credentials", "scope_level", "extra_scopes", "signed_in", "site_admin", "basic_auth_only",
        "query", "body", "consumes", "produces", "responses", "raw", "preload", "preload_more",
        "available")}
    fields.update(options)
    TABLE.add(Route(method=method, pattern=pattern, operation_id=operation_id,
                    handler=original.handler, **fields))


def normalize_path(path: str) -> str:
    """Collapse '//' and drop a trailing slash, as Forgejo does before routing."""
    path = re.sub(r"/{2,}", "/", path)
    if len(path) > 1 and path.endswith("/"):
        path = path.rstrip("/") or "/"
    return path
