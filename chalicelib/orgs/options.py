"""The request bodies of the organizations domain, declared once: the edge checks them
(``ApiRequest.option``) and ``/swagger.v1.json`` publishes them (``http.options``).

Visibility and a team's permission stay texts (Forgejo's description has no enum for
them): the rules check them with their own messages.  So do a team's units and unit
modes: published as texts, they take any value, and the rule names what it does not
know ("[Units]: unknown units [1]", "[UnitsMap]: invalid unit 'repo.code' or mode 1")."""
from __future__ import annotations

from typing import Annotated, Any, ClassVar, Mapping

from chalicelib.accounts import ACCOUNT_MAXIMA, ACCOUNT_ONE_LINE
from chalicelib.http import input_rules
from chalicelib.http.options import UNSET, Meta, Option, UnsetType

_TEAM = {"name": 255, "description": input_rules.DESCRIPTION_MAX, "permission": 16, "units": 64}
_ONE_LINE_TEAM = frozenset({"name", "permission", "units"})


Units = Annotated[list[Any], Meta(extra={"items": {"type": "string"}})]
UnitsMap = Annotated[dict[str, Any], Meta(extra={"additionalProperties": {"type": "string"}})]


class RenameOrgOption(Option):
    """renameOrg.  Null reaches the rule, which answers "Required"."""
    max_lengths: ClassVar[Mapping[str, int]] = {"new_name": 255}
    single_line: ClassVar[frozenset[str]] = frozenset({"new_name"})

    new_name: str | None


class CreateOrgOption(Option):
    """orgCreate, adminCreateOrg.  The name is checked by the rule, after the caller's
    right to create organizations, with Forgejo's field name (``[UserName]: Required``)."""
    max_lengths: ClassVar[Mapping[str, int]] = ACCOUNT_MAXIMA
    single_line: ClassVar[frozenset[str]] = ACCOUNT_ONE_LINE
    swagger_required = ("username",)

    username: str | None | UnsetType = UNSET
    full_name: str | None | UnsetType = UNSET
    email: str | None | UnsetType = UNSET
    description: str | None | UnsetType = UNSET
    website: str | None | UnsetType = UNSET
    location: str | None | UnsetType = UNSET
    visibility: str | None | UnsetType = UNSET
    repo_admin_change_team_access: bool | None | UnsetType = UNSET


class EditOrgOption(Option):
    """orgEdit: what is left out or null stays as it is (an empty e-mail clears it)."""
    max_lengths: ClassVar[Mapping[str, int]] = ACCOUNT_MAXIMA
    single_line: ClassVar[frozenset[str]] = ACCOUNT_ONE_LINE

    full_name: str | None | UnsetType = UNSET
    email: str | None | UnsetType = UNSET
    description: str | None | UnsetType = UNSET
    website: str | None | UnsetType = UNSET
    location: str | None | UnsetType = UNSET
    visibility: str | None | UnsetType = UNSET
    repo_admin_change_team_access: bool | None | UnsetType = UNSET


class CreateTeamOption(Option):
    """orgCreateTeam.  Null reaches the rule, which answers "Required"."""
    max_lengths: ClassVar[Mapping[str, int]] = _TEAM
    single_line: ClassVar[frozenset[str]] = _ONE_LINE_TEAM

    name: str | None
    description: str | None | UnsetType = UNSET
    includes_all_repositories: bool | None | UnsetType = UNSET
    permission: str | None | UnsetType = UNSET
    units: Units | None | UnsetType = UNSET
    units_map: UnitsMap | None | UnsetType = UNSET
    can_create_org_repo: bool | None | UnsetType = UNSET


class EditTeamOption(Option):
    """orgEditTeam.  Forgejo's description marks the name required; the edit keeps the
    name when it is left out, as it keeps every other field."""
    max_lengths: ClassVar[Mapping[str, int]] = _TEAM
    single_line: ClassVar[frozenset[str]] = _ONE_LINE_TEAM
    swagger_required = ("name",)

    name: str | None | UnsetType = UNSET
    description: str | None | UnsetType = UNSET
    includes_all_repositories: bool | None | UnsetType = UNSET
    permission: str | None | UnsetType = UNSET
    units: Units | None | UnsetType = UNSET
    units_map: UnitsMap | None | UnsetType = UNSET
    can_create_org_repo: bool | None | UnsetType = UNSET
