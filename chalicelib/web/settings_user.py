"""The signed-in user's profile settings in the browser, at Forgejo's URLs:
``GET/POST /user/settings`` (full name, bio, website, location, pronouns, language,
theme and the privacy switches) and the avatar (``POST /user/settings/avatar``, a
multipart upload of the field ``avatar``; ``POST /user/settings/avatar/delete`` puts
the identicon back).

The profile goes to ``accounts.update_settings`` with a UserSettingsOptions, the
service ``PATCH /user/settings`` calls; the picture to the avatars domain's
``update_account_avatar`` with the UpdateUserAvatarOption ``POST /user/avatar`` takes
(the upload's bytes in base64), so its size and image checks are the API's.  The
account's visibility is not here: the API lets only the site admin change it.
"""
from __future__ import annotations

import base64

from chalicelib import accounts, avatars, errors
from chalicelib.accounts import UserSettingsOptions
from chalicelib.avatars import UpdateUserAvatarOption
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.web.actions_forms import checked, posted, show_form
from chalicelib.web.settings_forms import check_limits, refused
from chalicelib.web.view import Web, page, redirect

TEMPLATE = "user_settings/profile.html"
PATH = "/user/settings"
TEXTS = ("full_name", "description", "website", "location", "pronouns", "language", "theme")
SWITCHES = ("hide_email", "hide_activity", "hide_pronouns")
# The API's names in a refusal ("[FullName]: MaxSize", lower-cased) -> the form's fields.
FIELDS = {name.replace("_", ""): name for name in TEXTS}
# Forgejo's built-in themes; a theme the account already has (set through the API)
# is offered too, so saving the form does not change it.
THEMES = ("forgejo-auto", "forgejo-light", "forgejo-dark")


def _page(web: Web, values: dict, *, err: errors.ServiceError | None = None,
          default: str | None = None) -> ApiResponse:
    me = accounts.user_record(web.user, web.user)
    theme = values.get("theme") or ""
    themes = THEMES if not theme or theme in THEMES else (*THEMES, theme)
    shown = dict(title="Profile settings", values=values, me_record=me, themes=themes)
    if err is not None:
        return refused(web, TEMPLATE, err, default=default, fields=FIELDS, **shown)
    return show_form(web, TEMPLATE, **shown)


def _current(web: Web) -> dict:
    return accounts.user_settings_record(web.user)


@page("GET", PATH, "webUserSettings", signed_in=True)
def profile(req: ApiRequest, web: Web) -> ApiResponse:
    return _page(web, _current(web))


@page("POST", PATH, "webUserSettingsProfile", signed_in=True)
def save_profile(req: ApiRequest, web: Web) -> ApiResponse:
    form = posted(req)
    texts = {name: form.get(name, "").strip() for name in TEXTS}
    values = {**texts, **{name: checked(form, name) for name in SWITCHES}}
    try:
        check_limits(texts, "UserSettingsOptions")
        accounts.update_settings(web.user, UserSettingsOptions(**values))
    except errors.ServiceError as err:
        return _page(web, values, err=err)
    return redirect(PATH)


def _upload(req: ApiRequest) -> bytes:
    """The bytes of the form's ``avatar`` file; refused beside the field when none
    was chosen (a browser then sends an empty part without a file name)."""
    if req.content_type != "multipart/form-data":
        raise errors.BadInput("[Avatar]: send the picture as a multipart/form-data upload")
    from chalicelib.http import multipart

    part = multipart.parse(req.headers.get("content-type") or "", req.body).file("avatar")
    if part is None or not part.filename or not part.data:
        raise errors.InvalidInput("[Avatar]: choose a picture to upload")
    return part.data


@page("POST", PATH + "/avatar", "webUserSettingsAvatar", signed_in=True)
def upload_avatar(req: ApiRequest, web: Web) -> ApiResponse:
    try:
        image = base64.b64encode(_upload(req)).decode("ascii")
        avatars.update_account_avatar(web.user, UpdateUserAvatarOption(image=image))
    except errors.ServiceError as err:
        return _page(web, _current(web), err=err, default="avatar")
    return redirect(PATH)


@page("POST", PATH + "/avatar/delete", "webUserSettingsAvatarDelete", signed_in=True)
def delete_avatar(req: ApiRequest, web: Web) -> ApiResponse:
    avatars.delete_account_avatar(web.user)
    return redirect(PATH)
