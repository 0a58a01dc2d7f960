"""Issue templates and the issue config of a repository (Forgejo's ``repository`` tag):
read from the default branch by ``template_files``, parsed by ``issue_templates``.
Readable by whoever may read the repository (404 otherwise), ``read:repository``."""
from __future__ import annotations

from chalicelib.http import schemas
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.http.router import route
from chalicelib.http.schema_types import B, S, STRINGS, nullable, ref
from chalicelib.issues import template_files
from chalicelib.repos import IN_REPO, current_repo

OBJECT = {"type": "object", "additionalProperties": {}}
SCHEMAS = schemas.declare({
    "IssueFormField": {"type": S, "id": S, "attributes": nullable(OBJECT),
                       "validations": nullable(OBJECT), "visible": STRINGS},
    # body: null for a Markdown template; labels: null when it names none (as Forgejo).
    "IssueTemplate": {"name": S, "title": S, "about": S, "labels": nullable(STRINGS),
                      "ref": S, "content": S,
                      "body": nullable({"type": "array", "items": ref("IssueFormField")}),
                      "file_name": S},
    "IssueConfigContactLink": {"name": S, "url": S, "about": S},
    "IssueConfig": {"blank_issues_enabled": B,
                    "contact_links": {"type": "array",
                                      "items": ref("IssueConfigContactLink")}},
    "IssueConfigValidation": {"valid": B, "message": S},
}, lists=("IssueTemplate",))
# Forgejo's header when some template files are not valid (they are left out).
WARNING_HEADER = "X-Gitea-Warning"


@route("GET", "/repos/{owner}/{repo}/issue_templates", "repoGetIssueTemplates",
       summary="Get available issue templates for a repository",
       responses={200: "IssueTemplateList", 404: "notFound"}, **IN_REPO)
def get_issue_templates(req: ApiRequest) -> ApiResponse:
    found = template_files.list_templates(current_repo(req).repo)
    headers = {}
    if found.errors:
        headers[WARNING_HEADER] = ("error occurs when parsing issue template: "
                                   f"count={len(found.errors)}")
    return ApiResponse.json(found.templates, headers=headers)


@route("GET", "/repos/{owner}/{repo}/issue_config", "repoGetIssueConfig",
       summary="Returns the issue config for a repo",
       responses={200: "IssueConfig", 404: "notFound"}, **IN_REPO)
def get_issue_config(req: ApiRequest) -> ApiResponse:
    config, _ = template_files.read_config(current_repo(req).repo)
    return ApiResponse.json(config)


@route("GET", "/repos/{owner}/{repo}/issue_config/validate", "repoValidateIssueConfig",
       summary="Returns the validation information for a issue config",
       responses={200: "IssueConfigValidation", 404: "notFound"}, **IN_REPO)
def validate_issue_config(req: ApiRequest) -> ApiResponse:
    _, error = template_files.read_config(current_repo(req).repo)
    return ApiResponse.json({"valid": error is None, "message": error or ""})
