"""Instance-wide endpoints: version and API settings."""
from __future__ import annotations

from chalicelib import API_COMPAT_VERSION, __version__
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.http.router import route
from chalicelib.instance import records  # noqa: F401 - declares the records' definitions
from chalicelib.settings import get_settings


@route("GET", "/version", "getVersion", tag="miscellaneous", scope=None,
       summary="Returns the version of the running application",
       responses={200: "ServerVersion"})
def get_version(req: ApiRequest) -> ApiResponse:
    return ApiResponse.json({"version": f"{API_COMPAT_VERSION}+nimbus-{__version__}"})


@route("GET", "/settings/api", "getGeneralAPISettings", tag="settings", scope=None,
       summary="Get instance's global settings for api", responses={200: "GeneralAPISettings"})
def get_api_settings(req: ApiRequest) -> ApiResponse:
    api = get_settings().api
    return ApiResponse.json({
        "max_response_items": api.MAX_RESPONSE_ITEMS,
        "default_paging_num": api.DEFAULT_PAGING_NUM,
        "default_git_trees_per_page": api.DEFAULT_GIT_TREES_PER_PAGE,
        "default_max_blob_size": api.DEFAULT_MAX_BLOB_SIZE,
    })
