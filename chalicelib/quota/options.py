"""The request bodies of the quota domain, declared once: the edge checks them
(``ApiRequest.option``) and ``/swagger.v1.json`` publishes them (``http.options``).

Forgejo's description requires nothing in a rule or group: the rules answer "Required"
for a missing name or limit themselves, with their own field names (``Rules.Name``)."""
from __future__ import annotations

from chalicelib.http.options import UNSET, Int64, Option, UnsetType


class CreateQuotaRuleOptions(Option):
    """adminCreateQuotaRule, and each rule of adminCreateQuotaGroup."""

    name: str | None | UnsetType = UNSET
    limit: Int64 | None | UnsetType = UNSET
    subjects: list[str] | None | UnsetType = UNSET


class CreateQuotaGroupOptions(Option):
    """adminCreateQuotaGroup."""

    name: str | None | UnsetType = UNSET
    rules: list[CreateQuotaRuleOptions] | None | UnsetType = UNSET


class EditQuotaRuleOptions(Option):
    """adminEditQuotaRule: what is left out or null stays as it is."""

    limit: Int64 | None | UnsetType = UNSET
    subjects: list[str] | None | UnsetType = UNSET


class SetUserQuotaGroupsOptions(Option):
    """adminSetUserQuotaGroups.  Forgejo's description requires the list; a missing or
    null one changes nothing (Forgejo's handler too), so the edge lets it through."""
    swagger_required = ("groups",)

    groups: list[str] | None | UnsetType = UNSET
