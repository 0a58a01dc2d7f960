"""Routing, errors, pagination and headers: the conventions every operation shares."""
import gzip
import json

from chalicelib.http.router import Route, RouteTable
from tests.conftest import ADMIN


def test_unknown_path_and_method(api):
    r = api.get("/no/such/thing")
    assert r.status == 404
    assert r.headers["content-type"] == "application/json;charset=utf-8"
    assert r.json["message"] == "The target couldn't be found."
    r = api.request("PUT", "/version")
    assert r.status == 405
    assert "GET" in r.headers["allow"]
    assert r.json["message"]
    assert api.get("/").status == 404
    assert api.get("/nothing-here").status == 404


def test_trailing_and_double_slashes_reach_the_same_handler(api):
    assert api.get("/version/").status == 200
    assert api.get("/api/v1//version").status == 200
    api.create_user("slash")
    assert api.get("/users/slash/").json["login"] == "slash"


def test_greedy_parameters_hold_slashes():
    table = RouteTable()
    table.add(Route("GET", "/repos/{owner}/{repo}/raw/{filepath:path}", "raw", handler=None,
                    tag="t", scope="repository"))
    table.add(Route("GET", "/repos/{owner}/{repo}/branches/{branch:path}", "br", handler=None,
                    tag="t", scope="repository"))
    route, params = table.match("GET", "/repos/o/r/raw/a/b/c.txt")
    assert route.operation_id == "raw" and params == {"owner": "o", "repo": "r",
                                                      "filepath": "a/b/c.txt"}
    route, params = table.match("GET", "/repos/o/r/branches/feature/x")
    assert params["branch"] == "feature/x"
    assert table.match("POST", "/repos/o/r/raw/x") == (None, ["GET"])
    assert table.match("GET", "/repos/o/r/other") == (None, [])


def test_head_answers_get_routes_without_body(api):
    r = api.request("HEAD", "/version")
    assert r.status == 200 and r.body == b""


def test_security_headers(api):
    r = api.get("/version")
    assert r.headers["cache-control"] == "max-age=0, private, must-revalidate"
    assert r.headers["x-content-type-options"] == "nosniff"
    assert r.headers["x-frame-options"] == "SAMEORIGIN"


def test_go_style_json(api):
    api.create_user("esc", full_name="<b>&</b>")
    r = api.get("/users/esc")
    assert b"\\u003cb\\u003e\\u0026\\u003c/b\\u003e" in r.body
    assert r.json["full_name"] == "<b>&</b>"


def test_gzip_request_body(api):
    body = gzip.compress(json.dumps({"username": "zipped", "email": "z@example.com",
                                     "password": "zipped-password"}).encode())
    r = api.post("/admin/users", auth=ADMIN, body=body, headers={
        "Content-Type": "application/json", "Content-Encoding": "gzip"})
    assert r.status == 201 and r.json["login"] == "zipped"
    bad = api.post("/admin/users", auth=ADMIN, body=b"not gzip", headers={
        "Content-Type": "application/json", "Content-Encoding": "gzip"})
    assert bad.status == 400


def test_missing_content_type_on_post(api):
    r = api.post("/admin/users", auth=ADMIN, body=b"")
    assert r.status == 422 and r.json["message"] == "[]: Empty Content-Type"
    r = api.post("/admin/users", auth=ADMIN, body=b"<x/>", headers={"Content-Type": "application/xml"})
    assert r.status == 415


def test_case_insensitive_json_keys_are_not_needed_for_known_clients(api):
    # Clients send snake_case; unknown keys are ignored as in Go's decoder.
    r = api.post("/admin/users", auth=ADMIN, json={
        "username": "extra", "email": "extra@example.com", "password": "extra-password",
        "unknown_field": 1})
    assert r.status == 201


def test_pagination_headers(api):
    token = api.create_token(ADMIN[0], ADMIN[1], name="t0")
    for i in range(1, 5):
        api.create_token(ADMIN[0], ADMIN[1], name=f"t{i}")
    r = api.get("/users/root/tokens?limit=2&page=2", token=token)
    assert r.status == 200 and len(r.json) == 2
    assert r.headers["x-total-count"] == "5"
    base = "http://nimbus.test/api/v1/users/root/tokens"
    assert r.headers["link"] == (
        f'<{base}?limit=2&page=3>; rel="next",<{base}?limit=2&page=3>; rel="last",'
        f'<{base}?limit=2&page=1>; rel="first",<{base}?limit=2&page=1>; rel="prev"')
    assert r.headers["access-control-expose-headers"] == "Link, X-Total-Count"
    last = api.get("/users/root/tokens?limit=2&page=3", token=token)
    assert len(last.json) == 1 and 'rel="next"' not in last.headers["link"]
    beyond = api.get("/users/root/tokens?limit=2&page=9", token=token)
    assert beyond.status == 200 and beyond.json == []
    one_page = api.get("/users/root/tokens?limit=junk", token=token)
    assert len(one_page.json) == 5 and "link" not in one_page.headers
    clamped = api.get("/users/root/tokens?limit=500", token=token)
    assert len(clamped.json) == 5


def test_unexpected_errors_are_json_500(api, monkeypatch):
    def boom(req):
        raise RuntimeError("secret detail")

    from chalicelib.http.router import TABLE
    route = TABLE.by_operation("getVersion")
    monkeypatch.setattr(route, "handler", boom)
    r = api.get("/version")
    assert r.status == 500
    assert "secret" not in r.body.decode()
    assert r.json["request_id"] and r.json["request_id"] in r.json["message"]
    assert r.headers["x-request-id"] == r.json["request_id"]
