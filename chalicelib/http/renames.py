"""Old names lead to new ones: an address that names an account by a login it gave up
in a rename answers 307 with the same address under the current name, as Forgejo's
``RedirectToUser`` does — API paths, clone URLs (git follows the redirect for the whole
clone or push) and pages alike.  307 keeps the method and body, so a script that still
POSTs to the old path reaches the new one.

A transferred or renamed repository's old ``{owner}/{repo}`` leads to its new address
the same way (Forgejo's ``RedirectToRepo``), the repositories domain answering
(``moved_to``; its redirects are kept by the owner's id, so an old address of a renamed
owner takes two hops: the owner's new name, then the repository's).

Asked only when the request would answer 404, so a request that finds what it names
pays nothing; a 404 pays one Query of the name's claim partition (and, naming a
repository, one GetItem of its redirect).  The accounts domain
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
        return _moved(req, prefix, segments)
    return _repository_redirect(req, pattern, prefix)


def _moved(req: ApiRequest, prefix: str, segments: list[str]) -> ApiResponse:
    """The 307 to the request's path with ``segments`` in place, its query kept."""
    location = prefix + "/".join(quote(segment, safe=_SEGMENT_SAFE) for segment in segments)
    if req.query:
        location += "?" + urlencode([(key, value) for key, values in req.query.items()
                                     for value in values])
    return ApiResponse(status=307, headers={"Location": location})


# The repositories domain's answer about a moved repository's old address (read by
# name, as ``_accounts``): ``moved_to(owner, repo, viewer) -> (owner, repo) | None``.
REPO_REDIRECTS_MODULE = "chalicelib.repo_admin.transfer_store"


def _repository_redirect(req: ApiRequest, pattern: list[str], prefix: str) -> ApiResponse | None:
    """The 307 from a moved repository's old ``{owner}/{repo}`` to where it lives
    now, as Forgejo's ``RedirectToRepo`` (a ``.git`` suffix is kept)."""
    owner, repo = req.params.get("owner"), req.params.get("repo")
    if not owner or not repo or "{owner}" not in pattern or "{repo}" not in pattern:
        return None
    segments = req.path.split("/")
    at_owner, at_repo = pattern.index("{owner}"), pattern.index("{repo}")
    if max(at_owner, at_repo) >= len(segments) or segments[at_owner].lower() != owner.lower():
        return None
    moved = importlib.import_module(REPO_REDIRECTS_MODULE).moved_to(owner, repo, req.actor)
    if moved is None:
        return None
    suffix = ".git" if segments[at_repo].lower().endswith(".git") else ""
    segments[at_owner], segments[at_repo] = moved[0], moved[1] + suffix
    return _moved(req, prefix, segments)
