"""Scenarios for what the instance tells every client: its settings and the templates a
new repository may start from (none of them reads the table)."""
from __future__ import annotations

from scene import Req


def scenarios() -> dict:
    """operationId -> scenario (a function of the scene returning its requests)."""
    return {
        "getGeneralUISettings": lambda s: [Req("GET", "/settings/ui")],
        "getGeneralRepositorySettings": lambda s: [Req("GET", "/settings/repository")],
        "getGeneralAttachmentSettings": lambda s: [Req("GET", "/settings/attachment")],
        "listGitignoresTemplates": lambda s: [Req("GET", "/gitignore/templates")],
        "getGitignoreTemplateInfo": lambda s: [Req("GET", "/gitignore/templates/Python")],
        "listLicenseTemplates": lambda s: [Req("GET", "/licenses")],
        "getLicenseTemplateInfo": lambda s: [Req("GET", "/licenses/MIT")],
        "listLabelTemplates": lambda s: [Req("GET", "/label/templates")],
        "getNodeInfo": lambda s: [Req("GET", "/nodeinfo")],
        "getLabelTemplateInfo": lambda s: [Req("GET", "/label/templates/Advanced")],
    }


# Settings and templates are the process's own: no AWS call, signed in or not.
BUDGETS = {(op, "anon"): 0 for op in scenarios()}
