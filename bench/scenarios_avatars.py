"""Avatar scenarios for bench/aws_calls.py (imported there).

alice uploads to herself, to an organization she owns and to alice/demo (the scene's
repository); each upload is a new picture, so every measured upload stores one.  A
delete first gets an avatar to delete (not counted).  The picture served is measured
both ways: an identicon (drawn, no call) and an upload (one GetObject).
"""
from __future__ import annotations

import base64
import io
import json

from scene import Req, Scene
from scenarios_orgs import org

DEMO = "/repos/alice/demo"


def image(s: Scene) -> dict:
    """A new picture each time (its colour from the scene's serial)."""
    from PIL import Image

    serial = int(s.unique("")) % 250
    out = io.BytesIO()
    Image.new("RGB", (64, 64), (serial, 255 - serial, 7)).save(out, format="PNG")
    return {"image": base64.b64encode(out.getvalue()).decode()}


def uploaded(s: Scene, path: str) -> None:
    s.must("POST", path, "token", image(s), expect=204)


def avatar_path(s: Scene) -> str:
    """The path of alice's uploaded avatar, as her record gives it."""
    def make() -> str:
        uploaded(s, "/user/avatar")
        status, out = s.call("GET", "/api/v1/user", "token")
        assert status == 200, (status, out[:200])
        return "/" + json.loads(out)["avatar_url"].split("/", 3)[3]
    return s.once("avatar", make)


def identicon_path(s: Scene) -> str:
    status, out = s.call("GET", f"/api/v1{DEMO}", "anon")
    assert status == 200, (status, out[:200])
    return "/" + json.loads(out)["avatar_url"].split("/", 3)[3]


def scenarios() -> dict:
    """operationId -> scenario, as in aws_calls.SCENARIOS."""
    def after_upload(method: str, path: str):
        """An avatar is uploaded first (not counted), so an upload measured replaces one
        (its DeleteObject counted) and a delete has one to delete."""
        def make(s: Scene) -> list[Req]:
            where = path.format(org=org(s))
            uploaded(s, where)
            if method == "DELETE":
                return [Req("DELETE", where, "token", expect=204)]
            return [Req("POST", where, "token", image(s), 204)]
        return make

    return {
        "userUpdateAvatar": after_upload("POST", "/user/avatar"),
        "userDeleteAvatar": after_upload("DELETE", "/user/avatar"),
        "orgUpdateAvatar": after_upload("POST", "/orgs/{org}/avatar"),
        "orgDeleteAvatar": after_upload("DELETE", "/orgs/{org}/avatar"),
        "repoUpdateAvatar": after_upload("POST", DEMO + "/avatar"),
        "repoDeleteAvatar": after_upload("DELETE", DEMO + "/avatar"),
        "getAvatar": lambda s: [Req("GET", identicon_path(s)), Req("GET", avatar_path(s))],
    }


# (operationId, auth) -> most AWS calls allowed (aws_calls.BUDGETS).  An upload: what
# its area reads (the token and the caller; an organization's name and account, and the
# caller's membership and teams; the repository and the caller's access), then the
# picture (PutObject), the item (one conditional write) and the picture it replaces
# (DeleteObject).  A delete: the same without the PutObject.  The picture itself:
# nothing for an identicon, one GetObject for an upload.
BUDGETS = {
    ("userUpdateAvatar", "token"): 5,
    ("userDeleteAvatar", "token"): 4,
    ("orgUpdateAvatar", "token"): 7,
    ("orgDeleteAvatar", "token"): 6,
    ("repoUpdateAvatar", "token"): 5,
    ("repoDeleteAvatar", "token"): 4,
    ("getAvatar", "anon"): 1,
}
