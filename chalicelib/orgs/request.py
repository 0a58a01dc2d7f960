"""What every route under ``/orgs/{org}`` reads from its request: the organization as
the caller may see it, and the routes' shared declaration (tag and scope)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from chalicelib.http.message import ApiRequest
from chalicelib.orgs import service

if TYPE_CHECKING:
    from chalicelib.accounts import Account

ORG = dict(tag="organization", scope="organization")


def current_org(req: ApiRequest) -> Account:
    return service.get_org(req.actor, req.params["org"])
