"""Old names lead to new ones: an address that names an account by a login it gave up
in a rename answers 307 with the same address under the current name, as Forgejo's
``RedirectToUser`` does — API paths, clone URLs (git follows the redirect for the whole
clone or push) and pages alike.  307 keeps the method and body, so a script that still
POSTs to the old path reaches the new one.

Asked only when the request would answer 404, so a request that finds what it names
pays nothing; a 404 pays one Query of the name's claim partition.  The accounts domain
answers (``renamed_to`` in the module the gateway reads by name, as ``auth`` does).
"""
from __future__ import annotations

import importlib
from urllib.parse import quote, urlencode

from chalicelib.http.message import ApiRequest, ApiResponse

# The path parameters that name an account, in the order they are tried.
ACCOUNT_PARAMS = ("owner", "username", "org")
# Characters a path segment keeps unescaped (RFC 3986 pchar, without '%').
_SEGMENT_SAFE = "!$&'()*+,;=:@-._~"


def _accounts():
    from chalicelib.http.auth import CREDENTIALS_MODULE

    return importlib.import_module(CREDENTIALS_MODULE)


def redirect(req: ApiRequest, prefix: str = "") -> ApiResponse | None:
    """The 307 to the address under the account's current name, or None when no
    account parameter of the route names a renamed account this caller may see.
    ``prefix``: what precedes the route's own path (``/api/v1`` for the API)."""
    route = req.route
    if route is None or not req.params:
        return None
    pattern = [segment.split(":", 1)[0] for segment in route.pattern.split("/")]
    for param in ACCOUNT_PARAMS:
        name = req.params.get(param)
        if not name or "{" + param + "}" not in pattern:
            continue
        account = _accounts().renamed_to(name, req.actor)
        if account is None:
            continue
        segments = req.path.split("/")
        index = pattern.index("{" + param + "}")
        if index >= len(segments) or segments[index].lower() != name.lower():
            continue
        segments[index] = account.login
        location = prefix + "/".join(quote(segment, safe=_SEGMENT_SAFE) for segment in segments)
        if req.query:
            location += "?" + urlencode([(key, value) for key, values in req.query.items()
                                         for value in values])
        return ApiResponse(status=307, headers={"Location": location})
    return None
