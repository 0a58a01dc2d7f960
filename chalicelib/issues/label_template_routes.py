"""Label templates (Forgejo's ``miscellaneous`` tag): the sets a new repository may start
with (``issue_labels`` on creation), listed and shown."""
from __future__ import annotations

from chalicelib.errors import NotFoundError
from chalicelib.http import schemas
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.http.router import route
from chalicelib.http.schema_types import B, S
from chalicelib.issues import label_templates

SCHEMAS = schemas.declare({"LabelTemplate": {"name": S, "color": S, "description": S,
                                             "exclusive": B}})


@route("GET", "/label/templates", "listLabelTemplates", tag="miscellaneous", scope=None,
       summary="Returns a list of all label templates", responses={200: "LabelTemplateList"})
def list_label_templates(req: ApiRequest) -> ApiResponse:
    return ApiResponse.json(sorted(label_templates.SETS))


@route("GET", "/label/templates/{name}", "getLabelTemplateInfo", tag="miscellaneous",
       scope=None, summary="Returns all labels in a template",
       responses={200: "LabelTemplateInfo", 404: "notFound"})
def get_label_template(req: ApiRequest) -> ApiResponse:
    labels = label_templates.labels_of(req.params["name"])
    if labels is None:
        raise NotFoundError(f"label template does not exist [name: {req.params['name']}]")
    return ApiResponse.json([label_templates.template_record(label) for label in labels])
