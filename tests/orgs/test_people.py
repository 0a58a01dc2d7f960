"""Organization lists, a user's teams, team search and a user's permissions in an
organization, through the API (under moto); and organizations written before the
organization index, listed once ``admin repair`` indexes them."""
import pytest

from tests.accounts.test_users import assert_matches_forgejo
from tests.conftest import ADMIN


@pytest.fixture
def tokens(api):
    """olive owns public ``acme`` and private ``vault``; tess is in acme's ``devs``
    (write); sam is a stranger."""
    for name in ("olive", "tess", "sam"):
        api.create_user(name)
    found = {name: api.create_token(name) for name in ("olive", "tess", "sam")}
    assert api.post("/orgs", token=found["olive"], json={"username": "acme"}).status == 201
    assert api.post("/orgs", token=found["olive"], json={
        "username": "vault", "visibility": "private"}).status == 201
    team = api.post("/orgs/acme/teams", token=found["olive"], json={
        "name": "devs", "permission": "write", "description": "the builders",
        "units": ["repo.code"]})
    assert team.status == 201, team
    found["devs"] = team.json["id"]
    assert api.put(f"/teams/{found['devs']}/members/tess", token=found["olive"]).status == 204
    return found


def test_organization_lists(api, tokens):
    everyone = api.get("/orgs")
    assert everyone.status == 200 and [o["name"] for o in everyone.json] == ["acme"]
    assert_matches_forgejo(everyone.json[0], "Organization")
    assert everyone.headers["x-total-count"] == "1"
    assert [o["name"] for o in api.get("/orgs", token=tokens["olive"]).json] == ["acme"]
    admin = api.get("/admin/orgs", auth=ADMIN)
    assert admin.status == 200 and [o["name"] for o in admin.json] == ["acme", "vault"]
    paged = api.get("/admin/orgs?limit=1&page=1", auth=ADMIN)
    assert [o["name"] for o in paged.json] == ["acme"]
    assert paged.headers["x-total-count"] == "2" and 'rel="next"' in paged.headers["link"]
    assert api.get("/admin/orgs", token=tokens["olive"]).status == 403
    assert api.get("/admin/orgs").status == 401


def test_user_teams_search_and_permissions(api, tokens):
    mine = api.get("/user/teams", token=tokens["tess"])
    assert mine.status == 200 and [t["name"] for t in mine.json] == ["devs"]
    assert_matches_forgejo(mine.json[0], "Team")
    assert mine.json[0]["organization"]["name"] == "acme"
    assert [(t["organization"]["name"], t["name"]) for t in api.get(
        "/user/teams", token=tokens["olive"]).json] == [("acme", "Owners"), ("vault", "Owners")]
    assert api.get("/user/teams", token=tokens["sam"]).json == []

    found = api.get("/orgs/acme/teams/search?q=BUILD", token=tokens["olive"])
    assert found.status == 200 and found.json["ok"] is True
    assert found.json["data"] == []           # olive belongs to Owners only
    everyone = api.get("/orgs/acme/teams/search?q=BUILD", auth=ADMIN).json["data"]
    assert [t["name"] for t in everyone] == ["devs"]
    assert_matches_forgejo(everyone[0], "Team")
    names_only = api.get("/orgs/acme/teams/search?q=build&include_desc=false", auth=ADMIN)
    assert names_only.json["data"] == []
    assert api.get("/orgs/acme/teams/search", token=tokens["sam"]).status == 403
    assert api.get("/orgs/vault/teams/search", token=tokens["sam"]).status == 404

    perms = api.get("/users/tess/orgs/acme/permissions", token=tokens["sam"])
    assert perms.status == 200, perms
    assert_matches_forgejo(perms.json, "OrganizationPermissions")
    assert perms.json == {"can_read": True, "can_write": True, "is_admin": False,
                          "is_owner": False, "can_create_repository": False}
    owner = api.get("/users/olive/orgs/vault/permissions", token=tokens["olive"]).json
    assert owner == {"can_read": True, "can_write": True, "is_admin": True, "is_owner": True,
                     "can_create_repository": True}
    assert api.get("/users/olive/orgs/vault/permissions", token=tokens["sam"]).status == 404
    assert api.get("/users/sam/orgs/vault/permissions", token=tokens["olive"]).status == 404
    assert api.get("/users/tess/orgs/acme/permissions").status == 401


def test_repair_lists_organizations_written_before_the_index(api, tokens, capsys):
    """An organization stored by an older version is not in the organization index
    (gsi2 ``ORGS``), so the lists miss it until ``admin repair`` indexes it."""
    from chalicelib import aws, cli
    from chalicelib.store.table import Item

    stored = next(i for i in aws.client("dynamodb").scan(TableName=Item.Meta.table_name)["Items"]
                  if i["sk"]["S"] == "A" and i["login"]["S"] == "acme")
    aws.client("dynamodb").update_item(
        TableName=Item.Meta.table_name, Key={"pk": stored["pk"], "sk": stored["sk"]},
        UpdateExpression="REMOVE gsi2pk, gsi2sk")
    assert api.get("/orgs").json == []
    assert cli.main(["--aws", "admin", "repair"]) == 0
    assert "gsi2pk: not in the organization index" in capsys.readouterr().out
    assert [o["name"] for o in api.get("/orgs").json] == ["acme"]
    assert [o["name"] for o in api.get("/admin/orgs", auth=ADMIN).json] == ["acme", "vault"]
