"""The Tag record (fj:services/convert/convert.go ToTag), field for field."""
from __future__ import annotations

from urllib.parse import quote

from chalicelib.http import formats
from chalicelib import repos
from chalicelib.contents import tags


def tag_record(found: tags.TagView, view) -> dict:
    """A Tag (Forgejo's ``convert.ToTag``): ``id`` is the ref's value (the tag object of
    an annotated tag), ``commit.sha`` the commit it names and ``commit.url`` built from
    ``id`` as Forgejo builds it; the archive links point at the API's archive route, as
    the Release record's do."""
    info = found.info
    api_url = repos.repo_api_url(view.owner.login, view.repo.name)
    name = quote(info.name, safe="/")
    created = (formats.rfc3339_offset(info.when, info.timezone) if info.when is not None
               else formats.GO_ZERO_TIME)
    return {
        "name": info.name,
        "message": info.message,
        "id": info.id,
        "commit": {"url": f"{api_url}/git/commits/{info.id}", "sha": info.object,
                   "created": created},
        "zipball_url": f"{api_url}/archive/{name}.zip",
        "tarball_url": f"{api_url}/archive/{name}.tar.gz",
        "archive_download_count": {"zip": found.archive_zip, "tar_gz": found.archive_tar_gz},
    }
