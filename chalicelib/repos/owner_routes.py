"""A user's new name (Forgejo's ``admin`` tag): the site admin renames a user, whose
repositories move with it (``owners``).  An organization's owners rename it through the
organizations domain (``renameOrg``), which asks the same rule."""
from __future__ import annotations

from chalicelib import accounts
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.http.router import route
from chalicelib.repos import owners


@route("POST", "/admin/users/{username}/rename", "adminRenameUser", summary="Rename a user",
       body="RenameUserOption", tag="admin", scope="admin", site_admin=True,
       responses={204: "empty", 403: "forbidden", 422: "validationError"})
def rename_user(req: ApiRequest) -> ApiResponse:
    option = req.option(accounts.RenameUserOption)
    user = accounts.get_user(req.params["username"])
    owners.rename_owner(req.actor, user, option.new_username or "", field="NewName")
    return ApiResponse.empty()
