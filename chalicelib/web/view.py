"""The page-route helper, the template renderer and the web request's state.

``page(method, pattern, name)`` registers a handler in the same route table as the API
(raw, outside /api/v1, not in swagger).  The wrapper it adds:

- takes the caller the gateway found in the session cookie (pages take no token:
  ``Route.credentials``, docs/security.md), who acts as a password login would (every
  scope), so services see the same caller the API would see for that user;
- checks the CSRF token of every POST (403 when missing or wrong);
- sends a user whose site admin set ``must_change_password`` to the password form
  (``CHANGE_PASSWORD``) before any other page, as Forgejo does; the pages a visitor
  may always open (``anonymous``: sign-in and sign-out, assets) and the form stay open;
- turns service errors into HTML error pages with the API's status codes (a private
  repository is a 404 page, exactly as the API answers 404), and any other exception
  into an HTML 500 page naming the request id (the exception goes to the log);
- adds the session cookie when the page handed out a new one.

Handlers take ``(req, web)`` and return ``render(web, template, **values)`` or any
``ApiResponse``.  Jinja2 is imported on the first render only, never on the API's path.
"""
from __future__ import annotations

import contextvars
import dataclasses
import functools
import gzip
import hashlib
import hmac
import json
import logging
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable
from urllib.parse import parse_qs, quote, urlencode, urlsplit

from chalicelib import accounts, errors
from chalicelib.http import auth, sessions
from chalicelib.http import errors as api_errors
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.http.router import DOWNLOAD, SESSION, route
from chalicelib.repos import current_repo, repo_preload, repo_preload_more
from chalicelib.settings import get_settings
from chalicelib.web import links

log = logging.getLogger("nimbus.web")
HERE = Path(__file__).parent
TEMPLATES = HERE / "templates"
STATIC = HERE / "static"
STATIC_TYPES = {".css": "text/css; charset=utf-8", ".js": "text/javascript; charset=utf-8",
                ".svg": "image/svg+xml"}
HTML = "text/html; charset=utf-8"
# Bodies smaller than this go uncompressed: gzip's header would eat the gain.
MIN_COMPRESS = 1024
# A message for the top of the page being rendered (a form whose token had expired).
FLASH: contextvars.ContextVar[str] = contextvars.ContextVar("nimbus_web_flash", default="")
STALE_FORM = "The form had expired (its security token was stale or missing): nothing was " \
             "saved. Check it and send it again."
# Forgejo's address of the form a user must fill in first (chalicelib/web/password_pages.py).
CHANGE_PASSWORD = "/user/settings/change_password"
_STATUS = ((errors.NotFoundError, 404), (errors.PermissionDenied, 403),
           (errors.InvalidInput, 422), (errors.BadInput, 400), (errors.ConflictError, 409),
           (errors.AlreadyExists, 422), (errors.ArchivedRepository, 423))


@dataclass
class Web:
    """One page request: who is signed in, the session and what goes out with the page."""
    req: ApiRequest
    session: sessions.Session | None = None
    user: object = None                 # the signed-in Account, or None
    new_cookie: str | None = None       # a Set-Cookie value to send
    values: dict = field(default_factory=dict)

    @property
    def csrf(self) -> str:
        """The form token; hands out an anonymous session when there is none yet."""
        if self.session is None:
            self.session = sessions.new_session()
            self.new_cookie = sessions.set_cookie(sessions.encode(self.session))
        return self.session.csrf_token()

    def sign_in(self, account) -> None:
        self.session = sessions.new_session(account)
        self.user = account
        self.new_cookie = sessions.set_cookie(sessions.encode(self.session, account))

    def sign_out(self) -> None:
        self.session, self.user = None, None
        self.new_cookie = sessions.clear_cookie()


def _load_session(req: ApiRequest) -> Web:
    """The page's state from what the gateway authenticated: the session it verified
    and the caller (on a download, a token's owner may be the caller instead)."""
    web = Web(req, session=req.session)
    if req.principal is not None:
        web.user = req.principal.user
    return web


def _check_csrf(web: Web) -> None:
    """The form field, or the ``X-Csrf-Token`` header for bodies that are not
    url-encoded forms (a script's request, a multipart upload)."""
    sent = (web.req.form().get(sessions.CSRF_FIELD) or [""])[-1] \
        or web.req.headers.get("x-csrf-token") or _multipart_csrf(web.req)
    if web.session is None or not sent or not hmac.compare_digest(sent, web.session.csrf_token()):
        raise StaleForm("Invalid CSRF token: reload the page and try again")


class StaleForm(errors.PermissionDenied):
    """A POST without its form's token (or with another session's): refused, 403."""


def _form_again(req: ApiRequest) -> ApiResponse | None:
    """The form's page again (the GET page at the form's own address, else the page the
    browser sent it from, on this site) with a fresh token and a message saying nothing
    was saved, answered 403; None when neither renders (the error page answers)."""
    referer = urlsplit(req.headers.get("referer") or "")
    back = referer.path if referer.netloc and referer.netloc == req.headers.get("host") \
        else ""
    for path, query in ((req.path, {}), (back, parse_qs(referer.query))):
        if path:
            response = _page_again(req, path, query)
            if response is not None:
                return response
    return None


def _page_again(req: ApiRequest, path: str, query: dict) -> ApiResponse | None:
    from chalicelib.http import route_index

    found, params = route_index.resolve("GET", path, raw=True)
    if found is None or found.tag != "web" or found.credentials != req.route.credentials:
        return None
    again = dataclasses.replace(req, method="GET", body=b"", query=query, route=found,
                                params=params, path=path, raw_path=path)
    token = FLASH.set(STALE_FORM)
    try:
        response = found.handler(again)
    finally:
        FLASH.reset(token)
    if response.status != 200:
        return None
    response.status = 403
    return response


def _multipart_csrf(req: ApiRequest) -> str:
    """The token field of an upload form (``multipart/form-data``, which a browser sends
    for a file without script); parsed only for such a body, a malformed one is a 400."""
    if req.content_type != "multipart/form-data":
        return ""
    from chalicelib.http import multipart

    return multipart.parse(req.headers.get("content-type") or "", req.body).value(
        sessions.CSRF_FIELD)


def _repo_more(req: ApiRequest, user_id: int | None) -> list:
    """The caller's access items, for the session's user when no token names one."""
    user_id = user_id or auth.session_user_id(req)
    keys = repo_preload_more(req, user_id)
    return keys + ([accounts.account_key(user_id)] if user_id else [])


def page(method: str, pattern: str, name: str, *, in_repo: bool = False,
         anonymous: bool = False, signed_in: bool = False, download: bool = False) -> Callable:
    """Register ``func(req, web)`` as the page at ``pattern`` (Forgejo's URL).

    ``in_repo``: the path names ``{owner}/{repo}``, read with the caller's access in the
    request's two batched reads.  ``anonymous``: served even when REQUIRE_SIGNIN_VIEW
    sends everyone else to the sign-in form (the form itself, assets).  ``signed_in``:
    visitors are sent to the sign-in form first (the forms that do things).
    ``download``: a file's bytes, which a token with ``read:repository`` may fetch too
    (as ``curl`` and CI scripts do); every other page takes the session cookie only."""
    options = dict(tag="web", raw=True, in_swagger=False)
    if download:
        options.update(credentials=DOWNLOAD, scope="repository")
    else:
        options.update(credentials=SESSION, scope=None)
    if in_repo:
        options.update(preload=repo_preload, preload_more=_repo_more)

    def register(func: Callable) -> Callable:
        @functools.wraps(func)
        def handler(req: ApiRequest) -> ApiResponse:
            return serve(req, func, anonymous=anonymous, signed_in=signed_in,
                         in_repo=in_repo)
        route(method, pattern, name, **options)(handler)
        return func
    return register


def serve(req: ApiRequest, func: Callable, *, anonymous: bool = False,
          signed_in: bool = False, in_repo: bool = False) -> ApiResponse:
    web = Web(req)
    try:
        web = _load_session(req)
        if req.method == "POST":
            try:
                _check_csrf(web)
            except StaleForm:
                again = _form_again(req)
                if again is not None:
                    return again
                raise
        if web.user is None and req.principal is None and not anonymous \
                and get_settings().service.REQUIRE_SIGNIN_VIEW:
            response = redirect("/user/login?" + urlencode({"redirect_to": req.raw_path}))
        elif signed_in and web.user is None:
            if in_repo:
                current_repo(req)       # a private repository stays a 404 to visitors
            # After a POST the form is gone: the visitor comes back to the start page.
            back = req.raw_path if req.method == "GET" else "/"
            response = redirect("/user/login?" + urlencode({"redirect_to": back}))
        elif not anonymous and _must_change_password(req, web):
            # Back to this page (its query too: an OAuth2 authorization's parameters)
            # once changed; after a POST the form is gone.
            query = "?" + urlencode(req.query, doseq=True) if req.query else ""
            back = {"redirect_to": req.raw_path + query} if req.method == "GET" else {}
            response = redirect(CHANGE_PASSWORD + ("?" + urlencode(back) if back else ""))
        else:
            response = func(req, web)
    except errors.ServiceError as err:
        status = next((code for kind, code in _STATUS if isinstance(err, kind)), 400)
        response = render(web, "error.html", status=status, code=status, title=str(status),
                          message=getattr(err, "message", "") or str(err))
    except api_errors.ApiError:
        raise       # the gateway's answer, as before (a request it refuses as a request)
    except Exception as exc:  # noqa: BLE001 - a page answers HTML even when it breaks
        response = _server_error(web, exc)
    if web.new_cookie:
        response.multi_headers.setdefault("Set-Cookie", []).append(web.new_cookie)
    return response


def _must_change_password(req: ApiRequest, web: Web) -> bool:
    """Whether the signed-in user must change the password before this page (the
    account is the one the gateway read: no read)."""
    return web.user is not None and bool(web.user.must_change_password) \
        and req.path != CHANGE_PASSWORD


def _server_error(web: Web, exc: Exception) -> ApiResponse:
    """The 500 page: the request id to quote, nothing of the exception (it may hold
    paths, keys or other users' data), which goes to the log with its traceback.  If
    even the page cannot be rendered, the gateway's JSON 500 is the answer."""
    _log_exception(web.req, exc)
    web.new_cookie = None       # the session may not have been read: leave the cookie be
    return render(web, "error.html", status=500, code=500, title="500",
                  message="Internal server error.", request_id=web.req.request_id)


def _log_exception(req: ApiRequest, exc: Exception) -> None:
    """One JSON line in the gateway's ``server_error`` format, with the exception and its
    traceback.  The gateway cannot be imported here (it imports every page module
    through the route table), and it logs its own ``server_error`` line for the 500
    status as for any other: this line is ``page_exception`` so a 5xx is counted once
    and the two lines meet on the request id."""
    entry = {"level": "error", "event": "page_exception", "status": 500,
             "request_id": req.request_id, "method": req.method, "path": req.raw_path,
             "operation": getattr(req.route, "operation_id", None),
             "error": f"{type(exc).__name__}: {exc}",
             "traceback": "".join(traceback.format_exception(exc))}
    log.error(json.dumps(entry, default=str))


# Rendering ----------------------------------------------------------------------------

@functools.lru_cache(maxsize=1)
def environment():
    import jinja2

    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(TEMPLATES)),
                             autoescape=True, trim_blocks=True, lstrip_blocks=True)
    env.filters["ago"] = ago
    env.filters["size"] = human_size
    env.filters["on_site"] = on_site
    env.globals.update(path_url=path_url, page_url=page_url)
    env.filters["link_url"] = env.globals["link_url"] = links.link_url
    return env


@functools.lru_cache(maxsize=None)
def static_file(name: str) -> tuple[bytes, str] | None:
    """(bytes, content hash) of a file of ``static/``, read once per container."""
    path = STATIC / name
    if "/" in name or name.startswith(".") or path.suffix not in STATIC_TYPES \
            or not path.is_file():
        return None
    data = path.read_bytes()
    return data, hashlib.sha256(data).hexdigest()[:12]


def asset_url(name: str) -> str:
    """The asset's address with its content hash: the version a page was rendered for."""
    found = static_file(name)
    return f"/assets/{name}?v={found[1]}" if found else f"/assets/{name}"


def base_values(web: Web) -> dict:
    settings = get_settings()
    return {"app_name": settings.server.APP_NAME, "app_url": settings.app_url,
            "me": web.user, "csrf": web.csrf if web.user is not None else "",
            "css_url": asset_url("nimbus.css"), "js_url": asset_url("nimbus.js"),
            "request_path": web.req.raw_path, "web": web, "flash": FLASH.get(),
            "sign_up_open": not settings.service.DISABLE_REGISTRATION}


def render(web: Web, template: str, *, status: int = 200, **values) -> ApiResponse:
    body = environment().get_template(template).render({**base_values(web), **values})
    response = ApiResponse(status=status, body=body.encode("utf-8"),
                           headers={"Content-Type": HTML})
    return compress(web.req, response)


def compress(req: ApiRequest, response: ApiResponse) -> ApiResponse:
    """gzip when the client takes it: API Gateway's REST proxy passes our body as is."""
    accepted = (req.headers.get("accept-encoding") or "").lower()
    response.headers["Vary"] = "Accept-Encoding"
    if "gzip" in accepted and len(response.body) >= MIN_COMPRESS:
        response.body = gzip.compress(response.body, compresslevel=6, mtime=0)
        response.headers["Content-Encoding"] = "gzip"
    return response


def redirect(location: str, status: int = 303) -> ApiResponse:
    """A redirect that stays on this site, whatever ``location`` was built from."""
    return ApiResponse(status=status, headers={"Location": site_target(location)})


# What a browser ignores or rewrites in a URL before it resolves it (WHATWG URL: leading
# and trailing C0 controls and spaces are stripped, tabs and newlines removed anywhere,
# and in http(s) URLs a backslash is a slash).
_STRIPPED = "".join(chr(c) for c in range(0x21))
_REMOVED = str.maketrans("", "", "\t\n\r")
# Kept as they are in a Location; everything else (spaces, non-ASCII) is percent-encoded
# so the header is plain ASCII and means to the browser what it meant to us.
_URL_SAFE = "/?&=#%:@!$'()*+,;~-._[]"


def site_target(target: str | None) -> str:
    r"""``target`` as a path on this site, read the way a browser reads it, or ``/``.

    ``//host``, ``/\host``, ``/<tab>/host``, ``https:host`` and ``\\host`` all name
    another host (or a scheme) once a browser has normalised them: they fall back to
    ``/``."""
    if not target:
        return "/"
    cleaned = target.strip(_STRIPPED).translate(_REMOVED).replace("\\", "/")
    if not cleaned.startswith("/") or cleaned.startswith("//"):
        return "/"
    parts = urlsplit(cleaned)
    if parts.scheme or parts.netloc:
        return "/"
    return quote(cleaned, safe=_URL_SAFE)


# Template helpers ---------------------------------------------------------------------

def path_url(*parts: str) -> str:
    """A site path from segments, each quoted (slashes inside a segment kept)."""
    return "/" + "/".join(quote(str(p).strip("/"), safe="/") for p in parts if str(p).strip("/"))


def pager(req: ApiRequest, total: int) -> dict:
    """Paging values the templates' ``pager_nav`` macro reads, for ``total`` items."""
    from chalicelib.http import paging

    page_ = paging.page_of(req)
    last = max((total + page_.limit - 1) // page_.limit, 1)
    return {"page": page_.page, "last": last, "total": total, "offset": page_.offset,
            "limit": page_.limit}


def page_url(req: ApiRequest, number: int) -> str:
    query = [(k, v) for k, values in sorted(req.query.items()) if k != "page" for v in values]
    return req.raw_path + "?" + urlencode([*query, ("page", str(number))])


def on_site(url: str) -> str:
    """A record's absolute URL on this instance as a path, so a page loads it from the
    host it was served by (the API's records name ROOT_URL, which a page reached
    through another name, or a test's server, does not share)."""
    root = get_settings().app_url
    return "/" + url[len(root):] if url and url.startswith(root) else url


def ago(when) -> str:
    """An RFC 3339 time as its date (the page shows dates; the API record has the rest)."""
    return str(when or "")[:10]


def human_size(size) -> str:
    size = float(size or 0)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if size < 1024 or unit == "GiB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return ""
