"""Instance-wide endpoints: version and the settings clients read (API, UI, repository
and attachment settings)."""
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


@route("GET", "/settings/ui", "getGeneralUISettings", tag="settings", scope=None,
       summary="Get instance's global settings for ui", responses={200: "GeneralUISettings"})
def get_ui_settings(req: ApiRequest) -> ApiResponse:
    from chalicelib import issues

    # No custom emojis: Nimbus renders none (Forgejo's [ui] CUSTOM_EMOJIS images).
    return ApiResponse.json({"allowed_reactions": list(issues.allowed_reactions()),
                             "custom_emojis": [], "default_theme": "forgejo-auto"})


@route("GET", "/settings/repository", "getGeneralRepositorySettings", tag="settings",
       scope=None, summary="Get instance's global settings for repositories",
       responses={200: "GeneralRepoSettings"})
def get_repository_settings(req: ApiRequest) -> ApiResponse:
    settings = get_settings()
    # Forks, migrations, mirrors, stars and time tracking have no switch here: always on.
    return ApiResponse.json({
        "forks_disabled": False, "http_git_disabled": settings.repository.DISABLE_HTTP_GIT,
        "lfs_disabled": not settings.server.LFS_START_SERVER, "migrations_disabled": False,
        "mirrors_disabled": False, "stars_disabled": False, "time_tracking_disabled": False,
    })


@route("GET", "/settings/attachment", "getGeneralAttachmentSettings", tag="settings",
       scope=None, summary="Get instance's global settings for Attachment",
       responses={200: "GeneralAttachmentSettings"})
def get_attachment_settings(req: ApiRequest) -> ApiResponse:
    attachment = get_settings().attachment
    return ApiResponse.json({"enabled": attachment.ENABLED,
                             "allowed_types": attachment.ALLOWED_TYPES,
                             "max_size": attachment.MAX_SIZE, "max_files": attachment.MAX_FILES})


@route("GET", "/nodeinfo", "getNodeInfo", tag="miscellaneous", scope=None,
       summary="Returns the nodeinfo of the Forgejo application", responses={200: "NodeInfo"})
def get_node_info(req: ApiRequest) -> ApiResponse:
    """NodeInfo 2.1, as Forgejo answers with ``[federation] SHARE_USER_STATISTICS``
    off: counting users, posts and comments would read every one of them, which no
    request here may do, so ``usage`` holds no counts (Forgejo omits them then too).
    ``openRegistrations``: whether /user/sign_up is open (``[service]
    DISABLE_REGISTRATION`` off), as Forgejo's registration button; no federation."""
    return ApiResponse.json({
        "version": "2.1",
        "software": {"name": "nimbus", "version": f"{API_COMPAT_VERSION}+nimbus-{__version__}",
                     "repository": "", "homepage": ""},
        "protocols": [], "services": {"inbound": [], "outbound": []},
        "openRegistrations": not get_settings().service.DISABLE_REGISTRATION,
        "usage": {"users": {}}, "metadata": {},
    })
