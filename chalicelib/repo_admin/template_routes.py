"""The templates a new repository may start from (Forgejo's ``miscellaneous`` tag): the
``.gitignore`` and license templates ``auto_init`` applies (``git_init``), listed and
shown as Forgejo lists them."""
from __future__ import annotations

from urllib.parse import quote

from chalicelib.errors import NotFoundError
from chalicelib.http import schemas
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.http.router import route
from chalicelib.http.schema_types import S
from chalicelib.repo_admin.git_init import GITIGNORES, LICENSES
from chalicelib.settings import get_settings

SCHEMAS = schemas.declare({
    "GitignoreTemplateInfo": {"name": S, "source": S},
    "LicensesTemplateListEntry": {"key": S, "name": S, "url": S},
    "LicenseTemplateInfo": {"key": S, "name": S, "url": S, "body": S, "implementation": S},
})
MISC = dict(tag="miscellaneous", scope=None)
# What a license template says where the year and the holder go (as Forgejo shows it).
PLACEHOLDERS = {"year": "<year>", "holder": "<copyright holders>"}


def _license_url(key: str) -> str:
    return f"{get_settings().app_url}api/v1/licenses/{quote(key)}"


@route("GET", "/gitignore/templates", "listGitignoresTemplates",
       summary="Returns a list of all gitignore templates", responses={200: "GitignoreTemplateList"},
       **MISC)
def list_gitignores(req: ApiRequest) -> ApiResponse:
    return ApiResponse.json(sorted(GITIGNORES))


@route("GET", "/gitignore/templates/{name}", "getGitignoreTemplateInfo",
       summary="Returns information about a gitignore template",
       responses={200: "GitignoreTemplateInfo", 404: "notFound"}, **MISC)
def get_gitignore(req: ApiRequest) -> ApiResponse:
    name = req.params["name"]
    if name not in GITIGNORES:
        raise NotFoundError(f"gitignore template does not exist [name: {name}]")
    return ApiResponse.json({"name": name, "source": GITIGNORES[name]})


@route("GET", "/licenses", "listLicenseTemplates",
       summary="Returns a list of all license templates", responses={200: "LicenseTemplateList"},
       **MISC)
def list_licenses(req: ApiRequest) -> ApiResponse:
    return ApiResponse.json([{"key": key, "name": key, "url": _license_url(key)}
                             for key in sorted(LICENSES)])


@route("GET", "/licenses/{name}", "getLicenseTemplateInfo",
       summary="Returns information about a license template",
       responses={200: "LicenseTemplateInfo", 404: "notFound"}, **MISC)
def get_license(req: ApiRequest) -> ApiResponse:
    key = req.params["name"]
    if key not in LICENSES:
        raise NotFoundError(f"license template does not exist [name: {key}]")
    return ApiResponse.json({"key": key, "name": key, "url": _license_url(key),
                             "body": LICENSES[key].format(**PLACEHOLDERS),
                             "implementation": ""})
