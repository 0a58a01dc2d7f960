"""The service's own API description, its page, and the operator CLI."""
import json
import re
import pathlib

from chalicelib.accounts import records as account_records
from chalicelib.http import schemas
from chalicelib.http.router import TABLE
from tests.conftest import ADMIN
from tests.accounts.test_users import OMITTED_WHEN_UNSET

FORGEJO = json.loads((pathlib.Path(__file__).parent.parent / "fixtures" /
                      "forgejo_definitions.json").read_text())["definitions"]


def test_swagger_document_lists_implemented_operations(api):
    r = api.get("/swagger.v1.json")
    assert r.status == 200
    doc = r.json
    assert doc["swagger"] == "2.0" and doc["basePath"] == "/api/v1"
    ops = {op["operationId"] for path in doc["paths"].values() for op in path.values()}
    expected = {r.operation_id for r in TABLE.routes if not r.raw and r.in_swagger}
    assert ops == expected
    assert {"adminCreateUser", "userGetCurrent", "userCreateToken", "getVersion"} <= ops
    create = doc["paths"]["/admin/users"]["post"]
    assert create["parameters"][-1]["schema"] == {"$ref": "#/definitions/CreateUserOption"}
    assert set(create["responses"]) == {"201", "400", "403", "422"}
    # Every referenced definition and response exists.
    text = json.dumps(doc)
    for ref in set(part.split('"')[0] for part in text.split('"#/definitions/')[1:]):
        assert ref in doc["definitions"], ref
    for ref in set(part.split('"')[0] for part in text.split('"#/responses/')[1:]):
        assert ref in doc["responses"], ref


def test_declared_definitions_match_forgejo():
    for name, props in schemas.RECORDS.items():
        theirs = FORGEJO[name]["properties"]
        extra = set(props) - set(theirs) - {"username"}  # username: Forgejo adds it in MarshalJSON
        assert not extra, (name, extra)
        missing = set(theirs) - set(props) - OMITTED_WHEN_UNSET.get(name, set())
        assert not missing, (name, missing)
        for field, spec in theirs.items():
            if "$ref" in spec or spec.get("type") in ("array", None):
                continue
            assert props[field]["type"] == spec["type"], (name, field)
    from chalicelib.http.routes import load_routes
    from chalicelib.http.swagger import option_definitions
    load_routes()
    for name, (required, props) in option_definitions().items():
        theirs = FORGEJO[name]
        assert set(props) <= set(theirs["properties"]), name
        assert sorted(required) == sorted(theirs.get("required", [])), name


def test_records_build_exactly_the_declared_fields(api):
    from chalicelib.accounts.store import get_by_name

    account = get_by_name(ADMIN[0])
    assert set(account_records.user(account, None)) == set(schemas.RECORDS["User"])


def test_swagger_page_and_redirect(api):
    page = api.get("/api/swagger")
    assert page.status == 200 and page.headers["content-type"].startswith("text/html")
    assert b"swagger.v1.json" in page.body
    # No third-party script and no inline one (pages run under script-src 'self'): the
    # viewer is this site's own static file.
    sources = re.findall(rb"<script([^>]*)>", page.body)
    assert sources == [b' src="/assets/swagger.js"'], sources
    assert "script-src 'self'" in page.headers["content-security-policy"]
    script = api.get("/assets/swagger.js", raw=True)
    assert script.status == 200 and b"data-spec-url" in script.body
    redirect = api.get("/api/v1/swagger")
    assert redirect.status == 301
    assert redirect.headers["location"] == "http://nimbus.test/api/swagger"


def test_cli_creates_admin_and_token(api, capsys):
    from chalicelib import cli

    assert cli.main(["--aws", "admin", "user", "create", "--username", "ops", "--password",
                     "ops-password", "--email", "ops@example.com", "--admin"]) == 0
    assert "created site admin ops" in capsys.readouterr().out
    assert cli.main(["--aws", "admin", "user", "generate-access-token", "--username", "ops",
                     "--scopes", "read:user,read:admin"]) == 0
    token = capsys.readouterr().out.strip()
    r = api.get("/user", token=token)
    assert r.status == 200 and r.json["login"] == "ops" and r.json["is_admin"] is True
    assert api.post("/admin/users", token=token, json={}).status == 403  # read-only scope
    assert cli.main(["--aws", "admin", "user", "create", "--username", "ops", "--password",
                     "ops-password", "--email", "x@example.com"]) == 1
    assert "user already exists" in capsys.readouterr().err


# The Nimbus extensions (docs/extensions.md): operations Forgejo does not have, served in
# the same description with their records.
EXTENSIONS = {
    "repoListDeleted": ("get", "/repos/deleted", "DeletedRepositoryList"),
    "repoRestoreDeleted": ("post", "/repos/deleted/{id}/restore", "Repository"),
    "repoListRefActivity": ("get", "/repos/{owner}/{repo}/activity/refs", "RefActivityList"),
    "repoRestoreRef": ("post", "/repos/{owner}/{repo}/activity/refs/{id}/restore",
                       "RefRestored"),
    "adminListAuditLog": ("get", "/admin/audit_log", "AuditLogEntryList"),
    "orgListAuditLog": ("get", "/orgs/{org}/audit_log", "AuditLogEntryList"),
}


def test_the_extensions_are_documented_and_served(api):
    doc = api.get("/swagger.v1.json").json
    root = pathlib.Path(__file__).resolve().parents[2]
    guide = (root / "docs" / "extensions.md").read_text()
    # Forgejo's own description, where the checkout sits beside it (not on every machine).
    spec = root.parent / "shared" / "spec" / "forgejo-swagger.v1.json"
    forgejo = json.loads(spec.read_text()) if spec.exists() else None
    for operation, (method, path, answer) in EXTENSIONS.items():
        served = doc["paths"][path][method]
        assert served["operationId"] == operation
        assert any(r.get("$ref") == f"#/responses/{answer}"
                   for code, r in served["responses"].items() if code.startswith("2"))
        assert answer.removesuffix("List") in doc["definitions"]
        assert f"`{operation}`" in guide and path in guide, operation
        if forgejo is not None:
            assert method not in forgejo["paths"].get(path, {}), operation
