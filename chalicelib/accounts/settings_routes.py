"""The signed-in user's own settings (Forgejo's ``user`` tag): read and change them."""
from __future__ import annotations

from chalicelib.accounts import records as account_records
from chalicelib.accounts import settings
from chalicelib.accounts.options import UserSettingsOptions
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.http.router import route

USER = dict(tag="user", scope="user")


@route("GET", "/user/settings", "getUserSettings", summary="Get current user's account settings",
       signed_in=True, responses={200: "UserSettings", 401: "unauthorized", 403: "forbidden"},
       **USER)
def get_settings(req: ApiRequest) -> ApiResponse:
    return ApiResponse.json(account_records.user_settings(settings.own_settings(req.actor)))


@route("PATCH", "/user/settings", "updateUserSettings",
       summary="Update settings in current user's account", signed_in=True,
       body="UserSettingsOptions",
       responses={200: "UserSettings", 401: "unauthorized", 403: "forbidden"}, **USER)
def update_settings(req: ApiRequest) -> ApiResponse:
    account = settings.update_settings(req.actor, req.option(UserSettingsOptions, required=False))
    return ApiResponse.json(account_records.user_settings(account))
