"""What the instance tells clients, through the API: its UI, repository and attachment
settings as configured, and the .gitignore and license templates ``auto_init`` applies,
listed and shown with Forgejo's fields."""
from __future__ import annotations

from chalicelib.settings import overridden
from tests.http.test_swagger_cli import FORGEJO


def fields_of(definition: str) -> set[str]:
    return set(FORGEJO[definition]["properties"])


def test_settings_follow_the_configuration(api):
    ui = api.get("/settings/ui").json
    assert set(ui) == fields_of("GeneralUISettings")
    assert ui["allowed_reactions"][:2] == ["+1", "-1"]
    repo = api.get("/settings/repository").json
    assert set(repo) == fields_of("GeneralRepoSettings")
    assert repo["http_git_disabled"] is False and repo["lfs_disabled"] is False
    attachment = api.get("/settings/attachment").json
    assert set(attachment) == fields_of("GeneralAttachmentSettings")
    assert attachment["max_files"] == 5 and isinstance(attachment["max_size"], int)
    with overridden({"NIMBUS__REPOSITORY__DISABLE_HTTP_GIT": "true",
                     "NIMBUS__SERVER__LFS_START_SERVER": "false",
                     "NIMBUS__UI__REACTIONS": "heart, eyes"}):
        assert api.get("/settings/repository").json["http_git_disabled"] is True
        assert api.get("/settings/repository").json["lfs_disabled"] is True
        assert api.get("/settings/ui").json["allowed_reactions"] == ["heart", "eyes"]


def test_templates_are_the_ones_auto_init_applies(api):
    names = api.get("/gitignore/templates").json
    assert "Python" in names and names == sorted(names)
    python = api.get("/gitignore/templates/Python").json
    assert set(python) == fields_of("GitignoreTemplateInfo") and "__pycache__/" in python["source"]
    assert api.get("/gitignore/templates/Cobol").status == 404
    licenses = api.get("/licenses").json
    assert {entry["key"] for entry in licenses} >= {"MIT", "ISC"}
    assert set(licenses[0]) == fields_of("LicensesTemplateListEntry")
    mit = api.get("/licenses/MIT").json
    assert set(mit) == fields_of("LicenseTemplateInfo")
    assert mit["url"].endswith("/api/v1/licenses/MIT")
    assert "Copyright (c) <year> <copyright holders>" in mit["body"]
    assert api.get("/licenses/nope").status == 404
    # What the template says is what a new repository gets.
    api.create_user("tina")
    tina = api.create_token("tina")
    assert api.post("/user/repos", token=tina, json={
        "name": "started", "auto_init": True, "gitignores": "Python",
        "license": "MIT"}).status == 201
    ignore = api.get("/repos/tina/started/raw/.gitignore")
    assert ignore.body.decode() == python["source"]


def test_label_templates_and_a_repository_that_starts_with_one(api):
    assert api.get("/label/templates").json == ["Advanced", "Default"]
    advanced = api.get("/label/templates/Advanced").json
    assert set(advanced[0]) == fields_of("LabelTemplate")
    bug = next(label for label in advanced if label["name"] == "Kind/Bug")
    assert bug == {"name": "Kind/Bug", "color": "ee0701",
                   "description": "Something is not working", "exclusive": False}
    assert api.get("/label/templates/Fancy").status == 404
    api.create_user("lena")
    lena = api.create_token("lena")
    made = api.post("/user/repos", token=lena, json={"name": "labelled",
                                                     "issue_labels": "Advanced"})
    assert made.status == 201, made
    labels = api.get("/repos/lena/labelled/labels?limit=50").json
    assert sorted(label["name"] for label in labels) == sorted(a["name"] for a in advanced)
    priority = next(label for label in labels if label["name"] == "Priority/High")
    assert priority["exclusive"] is True and priority["color"] in ("d32f2f", "#d32f2f")
    # An unknown set is refused before anything is written.
    refused = api.post("/user/repos", token=lena, json={"name": "nolabels",
                                                        "issue_labels": "Fancy"})
    assert refused.status == 422
    assert api.get("/repos/lena/nolabels").status == 404


def test_nodeinfo_says_what_the_instance_is_without_counting_everyone(api):
    info = api.get("/nodeinfo")
    assert info.status == 200
    body = info.json
    assert set(body) == fields_of("NodeInfo") and body["version"] == "2.1"
    assert set(body["software"]) == fields_of("NodeInfoSoftware")
    assert body["software"]["name"] == "nimbus" and body["openRegistrations"] is False
    assert body["usage"] == {"users": {}}       # no statistics shared: nothing is counted
