"""The request bodies of the quota domain, declared once: the edge checks them
(``ApiRequest.option``) and ``/swagger.v1.json`` publishes them (``http.options``).

Forgejo's description requires nothing in a rule or group: the rules answer "Required"
for a missing name or limit themselves, with their own field names (``Rules.Name``).
A name that is not a text is "Required" too, and the lists keep their own texts
("[Subjects]: expected a list of strings"), as they had before the edge checked them."""
from __future__ import annotations

from typing import Any, ClassVar, Mapping

from chalicelib.http.options import UNSET, Int64, Option, UnsetType

_SUBJECTS = "[Subjects]: expected a list of strings"


class CreateQuotaRuleOptions(Option):
    """adminCreateQuotaRule, and each rule of adminCreateQuotaGroup."""
    max_lengths: ClassVar[Mapping[str, int]] = {"name": 255, "subjects": 64}
    single_line: ClassVar[frozenset[str]] = frozenset({"name", "subjects"})
    texts = {("Name", "type"): "[Name]: Required", ("Subjects", "type"): _SUBJECTS}

    name: str | None | UnsetType = UNSET
    limit: Int64 | None | UnsetType = UNSET
    subjects: list[str] | None | UnsetType = UNSET


class CreateQuotaGroupOptions(Option):
    """adminCreateQuotaGroup.  The rules are published as a list; any other value that
    is empty (``""``, 0, false, ``{}``) means none, and the rule refuses the others
    ("[Rules]: expected a list of rules").  A rule's fields keep the texts of a rule
    created alone ("[Limit]: …"), except its name ("[Rules.Name]: Required")."""
    max_lengths: ClassVar[Mapping[str, int]] = {"name": 255, "rules.name": 255, "rules.subjects": 64}
    single_line: ClassVar[frozenset[str]] = frozenset({"name", "rules.name", "rules.subjects"})
    texts = {("Name", "type"): "[Name]: Required",
             ("Rules", "type"): "[Rules]: expected a list of rules",
             ("Rules.Name", "type"): "[Rules.Name]: Required",
             ("Rules.Limit", "type"): "[Limit]: expected an integer",
             ("Rules.Subjects", "type"): _SUBJECTS}

    name: str | None | UnsetType = UNSET
    # The list first: it is what the description publishes.
    rules: (list[CreateQuotaRuleOptions] | dict[str, Any] | str | int | float | bool | None
            | UnsetType) = UNSET


class EditQuotaRuleOptions(Option):
    """adminEditQuotaRule: what is left out or null stays as it is."""
    max_lengths: ClassVar[Mapping[str, int]] = {"subjects": 64}
    single_line: ClassVar[frozenset[str]] = frozenset({"subjects"})
    texts = {("Subjects", "type"): _SUBJECTS}

    limit: Int64 | None | UnsetType = UNSET
    subjects: list[str] | None | UnsetType = UNSET


class SetUserQuotaGroupsOptions(Option):
    """adminSetUserQuotaGroups.  Forgejo's description requires the list; a missing or
    null one changes nothing (Forgejo's handler too), so the edge lets it through."""
    max_lengths: ClassVar[Mapping[str, int]] = {"groups": 255}
    single_line: ClassVar[frozenset[str]] = frozenset({"groups"})
    swagger_required = ("groups",)
    texts = {("Groups", "type"): "[Groups]: expected a list of strings"}

    groups: list[str] | None | UnsetType = UNSET
