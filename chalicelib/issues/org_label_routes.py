"""An organization's labels (Forgejo's ``organization`` tag and token scope): list, get,
create, edit, delete.  The rules are ``org_labels``'; these handlers read the path and
render Label records whose ``url`` is the organization's label path.

Reads: the token, the organization by name, its label item; a write adds the caller's
membership (owner or not), the label id for a create, and one conditional put.
"""
from __future__ import annotations

from chalicelib.http import paging
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.http.router import Param, route
from chalicelib.issues import org_labels
from chalicelib.issues import records as issue_records
from chalicelib.issues.options import CreateLabelOption, EditLabelOption
from chalicelib.repos import caller

ORG = dict(tag="organization", scope="organization")
SIGNED = dict(ORG, signed_in=True)
LIST_QUERY = (
    Param("sort", "string", "Specifies the sorting method: mostissues, leastissues, or "
                            "reversealphabetically."),
    Param("page", "integer", "page number of results to return (1-based)"),
    Param("limit", "integer", "page size of results"))


def _org(req: ApiRequest):
    return org_labels.visible_org(caller(req), req.params["org"])


def _record(org, label_id: int, label: dict) -> dict:
    return issue_records.org_label(label_id, label, org.login)


@route("GET", "/orgs/{org}/labels", "orgListLabels", summary="List an organization's labels",
       query=LIST_QUERY, responses={200: "LabelList", 404: "notFound"}, **ORG)
def list_labels(req: ApiRequest) -> ApiResponse:
    org = _org(req)
    return paging.paged_json(req, org_labels.list_labels(org, req.arg("sort") or ""),
                             lambda kv: _record(org, kv[0], kv[1]))


@route("POST", "/orgs/{org}/labels", "orgCreateLabel",
       summary="Create a label for an organization", body="CreateLabelOption",
       responses={201: "Label", 403: "forbidden", 404: "notFound", 422: "validationError"},
       **SIGNED)
def create_label(req: ApiRequest) -> ApiResponse:
    org = _org(req)
    label_id, label = org_labels.create_label(req.actor, org, req.option(CreateLabelOption))
    return ApiResponse.json(_record(org, label_id, label), status=201)


@route("GET", "/orgs/{org}/labels/{id}", "orgGetLabel", summary="Get a single label",
       responses={200: "Label", 404: "notFound"}, **SIGNED)
def get_label(req: ApiRequest) -> ApiResponse:
    org = _org(req)
    label_id = req.int_param("id")
    return ApiResponse.json(_record(org, label_id, org_labels.get_label(org, label_id)))


@route("PATCH", "/orgs/{org}/labels/{id}", "orgEditLabel", summary="Update a label",
       body="EditLabelOption",
       responses={200: "Label", 403: "forbidden", 404: "notFound", 422: "validationError"},
       **SIGNED)
def edit_label(req: ApiRequest) -> ApiResponse:
    org = _org(req)
    label_id = req.int_param("id")
    label = org_labels.edit_label(req.actor, org, label_id,
                                  req.option(EditLabelOption, required=False))
    return ApiResponse.json(_record(org, label_id, label))


@route("DELETE", "/orgs/{org}/labels/{id}", "orgDeleteLabel", summary="Delete a label",
       responses={204: "empty", 403: "forbidden", 404: "notFound"}, **SIGNED)
def delete_label(req: ApiRequest) -> ApiResponse:
    org_labels.delete_label(req.actor, _org(req), req.int_param("id"))
    return ApiResponse.empty()
