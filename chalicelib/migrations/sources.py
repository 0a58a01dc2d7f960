"""Which reader a migration opens: the service a client names (Forgejo's
``GitServiceType`` strings) and the clone address, parsed as Forgejo's downloader
factories parse it.

* gitea, forgejo, gogs: ``<scheme>://<host>[/<sub-path>]/<owner>/<repo>[.git]``; the
  last two path segments name the project, what comes before them is the server's
  sub-path (its API is ``<root>/api/v1``).
* github: ``https://github.com/<owner>/<repo>[.git]`` reads ``https://api.github.com``;
  any other host is a GitHub Enterprise server, read at ``<root>/api/v3``.
* gitlab: ``<scheme>://<host>/<namespace…>/<project>[.git]``; the whole path is the
  project's path (nested groups included), read at ``<host>/api/v4``.
* git: a plain git server has no project records; its reader answers the repository
  from the address and nothing else.

The address must pass the migration policy (``netguard.check_migration_url``) before
anything is asked of it.
"""
from __future__ import annotations

import base64
from collections.abc import Iterator
from urllib.parse import urlsplit

from chalicelib import netguard
from chalicelib.errors import InvalidInput
from chalicelib.migrations.project import Asset, Page, ProjectRepo, Source
from chalicelib.migrations.source_gitea import GiteaSource
from chalicelib.migrations.source_github import GitHubSource
from chalicelib.migrations.source_gitlab import GitLabSource
from chalicelib.migrations.source_http import SourceHTTP

SERVICES = ("git", "github", "gitea", "gitlab", "gogs", "forgejo")
SERVICE_NAMES = {"git": "the git server", "github": "GitHub", "gitea": "Gitea",
                 "gitlab": "GitLab", "gogs": "Gogs", "forgejo": "Forgejo"}


def open_source(service: str, clone_addr: str, *, token: str = "", username: str = "",
                password: str = "", api_url: str = "",
                pull_offset: int | None = None) -> Source:
    """The reader of ``clone_addr`` at ``service``.  ``api_url`` replaces the API root
    the address implies (a GitHub stand-in in tests, a proxy-fronted server);
    ``pull_offset``: a GitLab migration's merge request offset from its first turn."""
    service = (service or "git").strip().lower()
    if service not in SERVICES:
        raise InvalidInput(f"unknown migration service '{service}' "
                           f"(one of: {', '.join(SERVICES)})")
    url = netguard.check_migration_url(clone_addr)
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") and service != "git":
        raise InvalidInput(f"a {SERVICE_NAMES[service]} project is read over http(s), "
                           f"not {parts.scheme}://")
    root = f"{parts.scheme}://{parts.netloc}"
    segments = [s for s in parts.path.split("/") if s]
    if segments and segments[-1].endswith(".git"):
        segments[-1] = segments[-1][:-4]
    if len(segments) < 2 or not all(segments[-2:]):
        raise InvalidInput(f"the clone address {netguard.redact(url)} names no "
                           "<owner>/<repository>")
    owner, name = segments[-2], segments[-1]
    secrets = tuple(s for s in (token, password) if s)
    label = SERVICE_NAMES[service]

    if service in ("gitea", "forgejo", "gogs"):
        server = "/".join([root, *segments[:-2]])
        http = SourceHTTP(api_url or server + "/api/v1", auth=token_or_basic(
            "token", token, username, password), secrets=secrets, name=label)
        return GiteaSource(http, owner, name, service=service)
    if service == "github":
        host = (parts.hostname or "").lower()
        api = "https://api.github.com" if host in ("github.com", "www.github.com") \
            else root + "/api/v3"
        http = SourceHTTP(api_url or api, auth=token_or_basic("Bearer", token, username,
                                                              password),
                          secrets=secrets, name=label,
                          accept="application/vnd.github+json")
        return GitHubSource(http, owner, name)
    if service == "gitlab":
        secret = token or password
        http = SourceHTTP(api_url or root + "/api/v4",
                          auth={"PRIVATE-TOKEN": secret} if secret else {},
                          secrets=secrets, name=label)
        return GitLabSource(http, "/".join(segments), pull_offset=pull_offset)
    return GitOnlySource(url, owner, name)


def token_or_basic(scheme: str, token: str, username: str, password: str) -> dict[str, str]:
    if token:
        return {"Authorization": f"{scheme} {token}"}
    if username or password:
        pair = base64.b64encode(f"{username}:{password}".encode()).decode("ascii")
        return {"Authorization": f"Basic {pair}"}
    return {}


class GitOnlySource:
    """A plain git server: the repository is what the address says; no records."""

    def __init__(self, url: str, owner: str, name: str):
        self.url, self.owner, self.name = url, owner, name

    def repository(self) -> ProjectRepo:
        return ProjectRepo(name=self.name, owner=self.owner, clone_url=self.url,
                           original_url=self.url)

    def labels(self) -> list:
        return []

    def milestones(self) -> list:
        return []

    def issues(self, page: int, per_page: int) -> Page:
        return Page([], True)

    def comments(self, issue_number: int) -> list:
        return []

    def pull_requests(self, page: int, per_page: int) -> Page:
        return Page([], True)

    def reviews(self, pull_number: int) -> list:
        return []

    def releases(self, page: int, per_page: int) -> Page:
        return Page([], True)

    def asset_stream(self, asset: Asset) -> Iterator[bytes]:
        return iter(())

    def wiki_clone_url(self) -> str:
        return ""
