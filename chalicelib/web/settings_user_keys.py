"""The signed-in user's SSH and GPG keys in the browser, at Forgejo's URLs:
``GET /user/settings/keys`` lists both kinds; ``POST /user/settings/keys`` adds one
(``type`` ``ssh`` with ``title`` and ``content``, or ``gpg`` with the armored key in
``content``) or verifies a GPG key (``type`` ``verify_gpg`` with ``key_id`` and the
armored ``signature`` of the token the page shows, Forgejo's form);
``POST /user/settings/keys/delete`` deletes one (``type``, ``id``).

Each calls the service the API's ``/user/keys`` and ``/user/gpg_keys`` routes call
(``accounts.add_ssh_key``/``delete_ssh_key``, ``signing.add_gpg_key``/
``delete_gpg_key``/``verify_gpg_key``) with the API's option objects: a key that does
not parse, one already in use or a GPG key naming none of the user's addresses is
refused before anything is written, and a key id is looked up among the caller's own
keys only, so another user's key is a 404 and stays.  A signature that is not the
key's over the current token is shown beside that key's signature field, the form
left open with what it held; a verified key says so and has no form.
"""
from __future__ import annotations

from chalicelib import accounts, errors, signing
from chalicelib.accounts import CreateKeyOption
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.signing import CreateGPGKeyOption, VerifyGPGKeyOption
from chalicelib.web.actions_forms import posted, show_form
from chalicelib.web.settings_forms import check_limits, refused
from chalicelib.web.view import Web, page, redirect

TEMPLATE = "user_settings/keys.html"
PATH = "/user/settings/keys"
# The services' field names in a refusal -> the field the page shows it beside.
SSH_FIELDS = {"title": "ssh_title", "key": "ssh_content"}
GPG_FIELDS = {"armoredkey": "gpg_content", "armoredpublickey": "gpg_content"}


def _page(web: Web, *, err: errors.ServiceError | None = None, default: str | None = None,
          fields: dict[str, str] | None = None, values: dict | None = None) -> ApiResponse:
    user = web.user
    shown = {"title": "SSH / GPG keys", "values": values or {},
             "ssh_keys": [accounts.public_key_record(k, user, user)
                          for k in accounts.ssh_keys_of(user)],
             "gpg_keys": [signing.gpg_key_record(k) for k in signing.gpg_keys_of(user)],
             "gpg_token": signing.gpg_verification_token(user)}
    if err is not None:
        return refused(web, TEMPLATE, err, default=default, fields=fields, **shown)
    return show_form(web, TEMPLATE, **shown)


@page("GET", PATH, "webUserSettingsKeys", signed_in=True)
def keys(req: ApiRequest, web: Web) -> ApiResponse:
    return _page(web)


def _add_ssh(web: Web, title: str, content: str) -> None:
    check_limits({"title": title, "key": content}, "CreateKeyOption")
    accounts.add_ssh_key(web.user, web.user.login, CreateKeyOption(title=title, key=content))


def _add_gpg(web: Web, content: str) -> None:
    check_limits({"armored_public_key": content}, "CreateGPGKeyOption")
    try:
        signing.add_gpg_key(web.user, CreateGPGKeyOption(armored_public_key=content))
    except errors.NotFoundError as err:
        # The API's 404 ("none of the emails ... could be found") is about the key the
        # form holds: shown beside it, as the other refusals of the key are.
        raise errors.InvalidInput(err.message) from None


# Per kind of key: the form's values kept on a refusal, the fields a message may name
# and the field a message naming none is shown beside.
KINDS = {"ssh": (("ssh_title", "ssh_content"), SSH_FIELDS, "ssh_content"),
         "gpg": (("gpg_content",), GPG_FIELDS, "gpg_content")}


def _verify_gpg(web: Web, form: dict[str, str]) -> ApiResponse:
    key_id, signature = form.get("key_id", ""), form.get("signature", "")
    try:
        check_limits({"key_id": key_id, "armored_signature": signature}, "VerifyGPGKeyOption")
        signing.verify_gpg_key(web.user, VerifyGPGKeyOption(key_id=key_id,
                                                            armored_signature=signature))
    except errors.ServiceError as err:
        # Beside the signature field of the key the form is for, when the page lists it
        # (its forms post the key ids as listed); above the forms otherwise.
        shown = key_id.strip().upper()
        listed = {k.key_id for k in signing.gpg_keys_of(web.user)}
        field = f"gpg_signature_{shown}" if shown in listed else None
        return _page(web, err=err, default=field, fields={"signature": field} if field else {},
                     values={"verify_key_id": shown, "signature": signature})
    return redirect(PATH)


@page("POST", PATH, "webUserSettingsKeyAdd", signed_in=True)
def add_key(req: ApiRequest, web: Web) -> ApiResponse:
    form = posted(req)
    kind, title, content = form.get("type", ""), form.get("title", ""), form.get("content", "")
    if kind == "verify_gpg":
        return _verify_gpg(web, form)
    if kind not in KINDS:
        raise errors.BadInput(f"unknown key type {kind!r}: ssh or gpg")
    kept, fields, default = KINDS[kind]
    try:
        if kind == "ssh":
            _add_ssh(web, title.strip(), content.strip())
        else:
            _add_gpg(web, content)
    except errors.ServiceError as err:
        values = dict(zip(kept, (title, content) if kind == "ssh" else (content,)))
        return _page(web, err=err, default=default, fields=fields, values=values)
    return redirect(PATH)


@page("POST", PATH + "/delete", "webUserSettingsKeyDelete", signed_in=True)
def delete_key(req: ApiRequest, web: Web) -> ApiResponse:
    form = posted(req)
    kind, which = form.get("type", ""), form.get("id", "").strip()
    if not which.isdigit() or kind not in ("ssh", "gpg"):
        raise errors.NotFoundError(f"public key does not exist [id: {which}]")
    if kind == "ssh":
        accounts.delete_ssh_key(web.user, web.user.login, int(which))
    else:
        signing.delete_gpg_key(web.user, int(which))
    return redirect(PATH)
