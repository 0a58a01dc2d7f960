"""The service's own Swagger 2.0 description, generated from the route table and the
record definitions (only what is implemented), and a page that shows it."""
from __future__ import annotations

import functools
import html
import json
from urllib.parse import urlsplit

from chalicelib import API_COMPAT_VERSION, __version__
from chalicelib.http import options, schemas
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.http.router import TABLE, TOKEN, Route, RouteTable, route
from chalicelib.settings import get_settings

INTEGER_PARAMS = {"id", "index", "attachment_id"}
_STANDARD_RESPONSES = {
    "empty": "APIEmpty is an empty response",
    "error": "APIError is error format response",
    "forbidden": "APIForbiddenError is a forbidden error response",
    "notFound": "APINotFound is a not found empty response",
    "unauthorized": "APIUnauthorizedError is a unauthorized error response",
    "validationError": "APIValidationError is error format response related to input validation",
    "conflict": "APIConflict is a conflict empty response",
    "redirect": "APIRedirect is a redirect response",
    "boolean": "Returns true if the action is accepted.",
    "quotaExceeded": "QuotaExceeded",
}


def _parameters(r: Route) -> list[dict]:
    params = []
    for name in r.param_names:
        kind = "integer" if name in INTEGER_PARAMS else "string"
        entry = {"type": kind, "name": name, "in": "path", "required": True}
        if kind == "integer":
            entry["format"] = "int64"
        params.append(entry)
    for q in r.query:
        params.append({"type": q.type, "name": q.name, "in": q.location,
                       "description": q.description, "required": q.required})
    if r.body:
        params.append({"name": "body", "in": "body", "schema": schemas.ref(r.body)})
    return params


def _responses(r: Route) -> dict:
    out = {}
    for code, name in sorted(r.responses.items()):
        out[str(code)] = {"$ref": f"#/responses/{name}"}
    return out or {"200": {"description": "OK"}}


def option_definitions() -> dict[str, tuple[list[str], dict[str, dict]]]:
    """Every request body's (required fields, field schemas), from the typed options the
    domains declare (``http.options``): the declaration the edge checks."""
    return {name: options.definition(cls) for name, cls in sorted(options.every_option().items())}


def _definitions() -> dict:
    defs = {}
    for name, props in schemas.RECORDS.items():
        defs[name] = {"type": "object", "properties": props}
    for name, (required, props) in option_definitions().items():
        defs[name] = {"type": "object", "properties": props}
        if required:
            defs[name]["required"] = required
    for name, props in schemas.EXTENSION_RECORDS.items():   # ours, not Forgejo's
        defs[name] = {"type": "object", "properties": props}
    return defs


def _response_objects() -> dict:
    out = {name: {"description": text} for name, text in _STANDARD_RESPONSES.items()}
    for name in ("error", "forbidden", "unauthorized", "validationError"):
        out[name]["schema"] = schemas.ref("APIError")
    out["boolean"]["schema"] = {"type": "boolean"}
    for name in schemas.RECORDS:
        out[name] = {"description": name, "schema": schemas.ref(name)}
    for name in schemas.LISTS:
        out[f"{name}List"] = {"description": f"{name}List",
                              "schema": {"type": "array", "items": schemas.ref(name)}}
    for name in schemas.EXTENSION_RECORDS:
        out[name] = {"description": name, "schema": schemas.ref(name)}
    # The template lists, named as Forgejo names them (not "<record>List").
    out["GitignoreTemplateList"] = {"description": "GitignoreTemplateList",
                                    "schema": {"type": "array", "items": {"type": "string"}}}
    out["LicenseTemplateList"] = {"description": "LicenseTemplateList", "schema": {
        "type": "array", "items": schemas.ref("LicensesTemplateListEntry")}}
    out["StringSlice"] = {"description": "StringSlice",          # repoListFlags
                          "schema": {"type": "array", "items": {"type": "string"}}}
    out["LabelTemplateList"] = {"description": "LabelTemplateList",
                                "schema": {"type": "array", "items": {"type": "string"}}}
    out["LabelTemplateInfo"] = {"description": "LabelTemplateInfo", "schema": {
        "type": "array", "items": schemas.ref("LabelTemplate")}}
    # userSearch's answer: Forgejo describes it inline, not as a definition.
    out["UserSearchResults"] = {
        "description": "SearchResults of a successful search",
        "schema": {"type": "object", "title": "UserSearchResults", "properties": {
            "data": {"type": "array", "items": schemas.ref("User")},
            "ok": {"type": "boolean"}}}}
    # teamSearch's answer, likewise inline.
    out["TeamSearchResults"] = {
        "description": "SearchResults of a successful search",
        "schema": {"type": "object", "title": "TeamSearchResults", "properties": {
            "data": {"type": "array", "items": schemas.ref("Team")},
            "ok": {"type": "boolean"}}}}
    # Forgejo names the timeline's list after the timeline, not after its record.
    out["TimelineList"] = {"description": "TimelineList",
                           "schema": {"type": "array", "items": schemas.ref("TimelineComment")}}
    # The wiki's page list, named as Forgejo names it (its items are WikiPageMetaData).
    out["WikiPageList"] = {"description": "WikiPageList",
                           "schema": {"type": "array", "items": schemas.ref("WikiPageMetaData")}}
    for name in schemas.EXTENSION_LISTS:
        out[f"{name}List"] = {"description": f"{name}List",
                              "schema": {"type": "array", "items": schemas.ref(name)}}
    return out


@functools.lru_cache(maxsize=1)
def document(table: RouteTable = TABLE) -> dict:
    """The Swagger 2.0 description of ``table`` (loaded with every area: requests reach
    here only after the gateway loaded them; other callers use api.routes.load_routes)."""
    paths: dict[str, dict] = {}
    for r in table.routes:
        if r.raw or not r.in_swagger:
            continue
        op = {"tags": [r.tag], "summary": r.summary, "operationId": r.operation_id,
              "produces": list(r.produces), "parameters": _parameters(r),
              "responses": _responses(r)}
        if r.method in ("POST", "PUT", "PATCH"):
            op["consumes"] = list(r.consumes)
        if r.deprecated:
            op["deprecated"] = True
        paths.setdefault(r.swagger_path, {})[r.method.lower()] = op
    root = urlsplit(get_settings().app_url)
    return {
        "swagger": "2.0",
        "info": {"title": "Nimbus API", "description": "Forgejo/Gitea-compatible API of Nimbus.",
                 "version": "1.1.1",
                 "x-server-version": f"{API_COMPAT_VERSION}+nimbus-{__version__}",
                 "license": {"name": "MIT", "url": "http://opensource.org/licenses/MIT"}},
        "schemes": ["https", "http"],
        "host": root.netloc,
        "basePath": (root.path.rstrip("/") + "/api/v1"),
        "consumes": ["application/json", "text/plain"],
        "produces": ["application/json", "text/html"],
        "paths": paths,
        "definitions": _definitions(),
        "responses": _response_objects(),
        "securityDefinitions": {
            "BasicAuth": {"type": "basic"},
            "Token": {"type": "apiKey", "name": "token", "in": "query"},
            "AccessToken": {"type": "apiKey", "name": "access_token", "in": "query"},
            "AuthorizationHeaderToken": {"type": "apiKey", "name": "Authorization", "in": "header",
                                         "description": "API tokens must be prepended with "
                                                        "\"token\" followed by a space."},
            "SudoParam": {"type": "apiKey", "name": "sudo", "in": "query"},
            "SudoHeader": {"type": "apiKey", "name": "Sudo", "in": "header"},
        },
        "security": [{"BasicAuth": []}, {"Token": []}, {"AccessToken": []},
                     {"AuthorizationHeaderToken": []}, {"SudoParam": []}, {"SudoHeader": []}],
    }


@route("GET", "/swagger.v1.json", "getSwaggerDocument", tag="miscellaneous", raw=True,
       in_swagger=False, credentials=TOKEN, scope=None)
def swagger_json(req: ApiRequest) -> ApiResponse:
    if not get_settings().api.ENABLE_SWAGGER:
        from chalicelib.http.errors import NotFound
        raise NotFound()
    return ApiResponse(status=200, body=json.dumps(document(), indent=2).encode(),
                       headers={"Content-Type": "application/json;charset=utf-8"})


@route("GET", "/swagger", "redirectToSwaggerPage", tag="miscellaneous", in_swagger=False,
       scope=None)
def swagger_redirect(req: ApiRequest) -> ApiResponse:
    return ApiResponse(status=301, headers={"Location": get_settings().app_url + "api/swagger"})


@route("GET", "/api/swagger", "getSwaggerPage", tag="miscellaneous", raw=True, in_swagger=False,
       credentials=TOKEN, scope=None, produces=("text/html",))
def swagger_page(req: ApiRequest) -> ApiResponse:
    if not get_settings().api.ENABLE_SWAGGER:
        from chalicelib.http.errors import NotFound
        raise NotFound()
    spec_url = html.escape(get_settings().app_url + "swagger.v1.json", quote=True)
    return ApiResponse.text(_PAGE.replace("__SPEC_URL__", spec_url),
                            content_type="text/html; charset=utf-8")


# A self-contained viewer: no third-party scripts, so it works offline; its script is a
# static file (chalicelib/web/static/swagger.js), so the page holds under script-src 'self'.
_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Nimbus API</title>
<style>
body{font:14px/1.45 system-ui,sans-serif;margin:0 auto;max-width:70em;padding:1em 2em;color:#222}
h1{margin-bottom:.2em} h2{border-bottom:1px solid #ddd;margin-top:1.6em}
.op{margin:.3em 0;padding:.35em .6em;border-radius:4px;background:#f6f8fa}
.m{display:inline-block;min-width:4.5em;font-weight:600} .GET{color:#1a7f37}.POST{color:#0969da}
.PUT{color:#9a6700}.PATCH{color:#8250df}.DELETE{color:#cf222e}
code{font-size:13px} small{color:#666} details{margin:.2em 0 .2em 5em}
</style></head><body data-spec-url="__SPEC_URL__">
<h1>Nimbus API</h1><p id="meta">Loading the description&hellip;</p><div id="ops"></div>
<script src="/assets/swagger.js"></script></body></html>
"""
