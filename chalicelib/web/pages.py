"""Reading pages: the explore list, profiles, a repository's home, its files and raw
files, at Forgejo's URLs.

Every page calls the services the API calls and shows the API's records (the same
``html_url``s and counts); private things are 404 pages to whoever the API answers 404.
"""
from __future__ import annotations

import re
from urllib.parse import quote

from chalicelib import accounts, contents, orgs, repos, search
from chalicelib.contents import tag_record
from chalicelib.errors import NotFoundError
from chalicelib.http import paging
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.repos import caller, current_repo
from chalicelib.settings import get_settings
from chalicelib.web import code_view, present
from chalicelib.web.actions_forms import repo_values
from chalicelib.web.view import Web, page, pager, render

MAX_SWITCHER = 50


def _explore(req: ApiRequest, web: Web) -> ApiResponse:
    keyword = (req.arg("q") or "").strip()
    page_ = paging.page_of(req)
    shown, total = search.search_repos(
        caller(req), repos.SearchQuery(keyword=keyword, include_description=True,
                                       sort="recentupdate", order="desc"),
        page_.offset, page_.limit)
    paged = pager(req, total)
    return render(web, "explore.html", title="Explore", q=keyword, pager=paged,
                  repos=[repos.repository_record(v, req.actor) for v in shown])


@page("GET", "/", "webHome")
def home(req: ApiRequest, web: Web) -> ApiResponse:
    """The dashboard when signed in (loaded only then), the explore list otherwise."""
    if web.user is not None:
        from chalicelib.web.dashboard_pages import dashboard

        return dashboard(req, web)
    return _explore(req, web)


@page("GET", "/explore/repos", "webExploreRepos")
def explore(req: ApiRequest, web: Web) -> ApiResponse:
    return _explore(req, web)


@page("GET", "/{username}", "webProfile")
def profile(req: ApiRequest, web: Web) -> ApiResponse:
    """A user's repositories and the organizations orgListUserOrgs shows the caller, or
    an organization's repositories, the first of the members orgListMembers shows the
    caller and, to its members, its teams (orgListTeams).  The side lists stop at
    ``shown_at_most`` with a link to the whole list.  The name is looked up once (user
    or organization); an organization's members and teams are one Query."""
    shown_at_most = 20
    owner = orgs.get_user_or_org(req.actor, req.params["username"])
    extra: dict = {}
    if not repos.is_org(owner):
        record = accounts.user_record(owner, req.actor)
        member_of = orgs.orgs_of(req.actor, owner)
        extra.update(orgs_total=len(member_of), member_of=[
            orgs.organization_record(o) for o in member_of[:shown_at_most]])
    else:
        from chalicelib.web.org_lists import page_of

        record = {**orgs.organization_record(owner), "login": owner.login,
                  "html_url": get_settings().app_url + quote(owner.login)}
        people = orgs.people_of(req.actor, owner)
        found, _, total = page_of(people.memberships, 0, shown_at_most)
        extra.update(is_member=people.is_member,
                     is_owner=people.is_member and repos.is_org_owner(owner, req.actor),
                     members=[accounts.user_record(a, req.actor) for a in found],
                     members_total=total, teams_total=len(people.teams),
                     teams=[orgs.team_record(t, owner) for t in people.teams[:shown_at_most]])
    views = repos.order_repos(repos.visible_repos_of(caller(req), owner), "recentupdate")
    paged = pager(req, len(views))
    shown = views[paged["offset"]:paged["offset"] + paged["limit"]]
    return render(web, "profile.html", title=owner.login, owner=record,
                  is_org=owner.account_type != "user", pager=paged, shown_at_most=shown_at_most,
                  repos=[repos.repository_record(v, req.actor) for v in shown], **extra)


def _switcher(git) -> dict:
    """Branch and tag names for the ref switcher, as Forgejo's lists both.  Both come
    from the ref list the page's open repository has already read; describing tags
    (their objects, archive counters) is left to the tags page."""
    heads, tags_ = [], []
    for name in git.refs.allkeys():
        text = name.decode("utf-8", "replace")
        if text.startswith("refs/heads/"):
            heads.append(text[len("refs/heads/"):])
        elif text.startswith("refs/tags/"):
            tags_.append(text[len("refs/tags/"):])
    return {"branch_names": sorted(heads)[:MAX_SWITCHER],
            "tag_names": sorted(tags_, key=_version_order, reverse=True)[:MAX_SWITCHER]}


def _version_order(name: str) -> list:
    """Digits compare as numbers, so v1.10 sorts after v1.9 and the newest comes first."""
    return [(1, int(part), "") if part.isdigit() else (0, 0, part)
            for part in re.split(r"(\d+)", name) if part]


@page("GET", "/{owner}/{repo}", "webRepoHome", in_repo=True)
def repo_home(req: ApiRequest, web: Web) -> ApiResponse:
    from chalicelib.web import lifecycle_view

    try:
        view = current_repo(req)
    except NotFoundError:
        # A project migration's repository is 404 until done: its migrating page.
        migrating = lifecycle_view.migrating_page(req, web)
        if migrating is None:
            raise
        return migrating
    values = repo_values(req, view, "code")
    values["transfer_offer"] = lifecycle_view.transfer_offer(web, values["repo"])
    branch = view.repo.default_branch
    if view.repo.empty:
        return render(web, "repo_home.html", title=values["repo"]["full_name"], entries=None,
                      ref=branch, ref_kind="branch", **values)
    # One open of the repository (refs and pack list) serves the listing with each
    # entry's last commit, the README, the commit count and the switcher; the language
    # figures are one stored item.
    git = contents.open_git(view.repo)
    listing = contents.list_directory(view, "", f"refs/heads/{branch}", git=git)
    return render(web, "repo_home.html", title=values["repo"]["full_name"], ref=branch,
                  ref_kind="branch", path="", languages=code_view.language_bar(view),
                  **code_view.listing_values(req, view, git, listing, "branch", branch),
                  **_switcher(git), **values)


@page("GET", "/{owner}/{repo}/src/{kind}/{rest:path}", "webRepoSource", in_repo=True)
def source(req: ApiRequest, web: Web) -> ApiResponse:
    view = current_repo(req)
    kind = req.params["kind"]
    git = contents.open_git(view.repo)
    at, found, ref, path = present.resolve_src(view, kind, req.params["rest"], git,
                                               listing=True)
    common = dict(**source_values(git, kind, ref, path, at.commit_id),
                  **repo_values(req, view, "code"))
    if hasattr(found, "entries"):
        return render(web, "tree.html", title=f"{path or view.repo.name}",
                      **code_view.listing_values(req, view, git, found, kind, ref),
                      **common)
    content = found.content or b""
    # A Git LFS file shows its object (size, and its text when small), as Forgejo's.
    lfs = contents.lfs_file(view.repo, content) if found.lfs_pointer else None
    shown = found.kind == "file" and (lfs is None or lfs.content is not None)
    if lfs is not None:
        content = lfs.content or b""
    text = present.as_text(content) if shown else None
    body_html = ""
    if text is not None and len(content) <= present.MAX_SHOWN:
        if found.name.lower().endswith(present.MARKDOWN) and req.arg("display") != "source":
            branch_path = f"{kind}/{quote(ref)}"
            body_html = present.markdown(req, view, [text], mode="file",
                                         branch_path=branch_path)[0]
            common["rendered"] = True
        else:
            body_html = present.highlight(found.name, text)
    return render(web, "file.html", title=path, entry=found, body_html=body_html,
                  is_text=text is not None, lfs=lfs,
                  download_kind="media" if found.lfs_pointer else "raw",
                  **common)


def source_values(git, kind: str, ref: str, path: str, commit_id: str) -> dict:
    """What ``src_toolbar.html`` reads: the ref, the path's crumbs, the switcher."""
    return dict(ref=ref, ref_kind=kind, path=path, crumbs=_crumbs(path), commit_id=commit_id,
                **_switcher(git))


def _crumbs(path: str) -> list[tuple[str, str]]:
    parts = [p for p in path.split("/") if p]
    return [(p, "/".join(parts[:i + 1])) for i, p in enumerate(parts)]


def _file_at(req: ApiRequest, view) -> contents.RawFile:
    """The file the path names, read once (the page's open of the repository)."""
    _, found, _, path = present.resolve_src(view, req.params["kind"], req.params["rest"],
                                            contents.open_git(view.repo))
    if isinstance(found, list) or found.kind != "file":
        raise NotFoundError(f"not a file: {path}")
    return contents.as_raw(path, found.content or b"")


@page("GET", "/{owner}/{repo}/raw/{kind}/{rest:path}", "webRepoRaw", in_repo=True, download=True)
def raw(req: ApiRequest, web: Web) -> ApiResponse:
    file = _file_at(req, current_repo(req))
    disposition = "attachment" if req.arg("download") else "inline"
    return ApiResponse(status=200, body=file.content,
                       headers=contents.download_headers(file, disposition))


@page("GET", "/{owner}/{repo}/media/{kind}/{rest:path}", "webRepoMedia", in_repo=True,
      download=True)
def media(req: ApiRequest, web: Web) -> ApiResponse:
    """The raw file, or the Git LFS object its pointer names (the file page links here)."""
    view = current_repo(req)
    attachment = bool(req.arg("download"))
    file = contents.media_of(view.repo, _file_at(req, view), attachment=attachment)
    if file.url is not None:
        return ApiResponse(status=302, headers={"Location": file.url,
                                                "Cache-Control": "private, no-store"})
    return ApiResponse(status=200, body=file.content, headers=contents.download_headers(
        file, "attachment" if attachment else "inline"))


def tag_records(view, offset: int, limit: int) -> tuple[list[dict], int]:
    found = contents.list_tags(view, offset, limit)
    return [tag_record(t, view) for t in found.tags], found.total
