"""Issue templates and the issue config (repoGetIssueTemplates, repoGetIssueConfig,
repoValidateIssueConfig) end to end under moto: files committed with the contents API,
read back as a Forgejo client sees them."""
from __future__ import annotations

import base64

import pytest

R = "/repos/alice/proj"

BUG_MD = """---
name: Bug report
about: Something is broken
title: "[BUG] "
labels: bug, needs-triage
ref: develop
---
**What happened?**
"""
FORM_YAML = """name: Feature
description: Ask for a feature
labels: [enhancement]
ref: refs/tags/v1
body:
  - type: markdown
    attributes:
      value: Thanks for asking!
  - type: input
    id: version
    attributes:
      label: Version
      placeholder: "1.0"
    validations:
      required: true
  - type: dropdown
    id: area
    attributes:
      label: Area
      options: [API, Web]
      default: 0
  - type: checkboxes
    id: terms
    attributes:
      label: Terms
      options:
        - label: I searched first
          required: true
"""
CONFIG = """blank_issues_enabled: false
contact_links:
  - name: Forum
    url: https://forum.example.org
    about: Questions go here
"""


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def commit(api, token, files: dict[str, str], repo: str = R) -> None:
    r = api.post(f"{repo}/contents", token=token, json={"files": [
        {"operation": "create", "path": path, "content": b64(text)}
        for path, text in files.items()]})
    assert r.status == 201, r


@pytest.fixture
def scene(api):
    """alice owns public ``proj`` and private ``secret`` (both with a README); carol is
    a stranger."""
    tokens = {}
    for name in ("alice", "carol"):
        api.create_user(name)
        tokens[name] = api.create_token(name)
    for name, private in (("proj", False), ("secret", True)):
        assert api.post("/user/repos", token=tokens["alice"], json={
            "name": name, "private": private, "auto_init": True}).status == 201
    return tokens


def test_templates_markdown_and_form_with_forgejo_fields(api, scene):
    commit(api, scene["alice"], {
        ".gitea/ISSUE_TEMPLATE/bug.md": BUG_MD,
        ".github/ISSUE_TEMPLATE/feature.yaml": FORM_YAML,
        ".gitea/ISSUE_TEMPLATE/config.yaml": CONFIG,           # never a template
        ".gitea/ISSUE_TEMPLATE/notes.txt": "not a template",
        "docs/guide.md": "outside the template directories",
    })
    r = api.get(f"{R}/issue_templates")
    assert r.status == 200, r
    assert "x-gitea-warning" not in {k.lower() for k in r.headers}
    bug, form = r.json       # Forgejo's directory order: .gitea before .github
    assert bug == {
        "name": "Bug report", "about": "Something is broken", "title": "[BUG] ",
        "labels": ["bug", "needs-triage"], "ref": "refs/heads/develop",
        "content": "**What happened?**\n", "body": None,
        "file_name": ".gitea/ISSUE_TEMPLATE/bug.md"}
    assert form["name"] == "Feature" and form["about"] == "Ask for a feature"
    assert form["labels"] == ["enhancement"] and form["ref"] == "refs/tags/v1"
    assert form["content"] == "" and form["title"] == ""
    assert form["file_name"] == ".github/ISSUE_TEMPLATE/feature.yaml"
    markdown, version, area, terms = form["body"]
    assert markdown == {"type": "markdown", "id": "0", "attributes": {"value": "Thanks for asking!"},
                        "validations": None, "visible": ["form"]}
    assert version == {"type": "input", "id": "version",
                       "attributes": {"label": "Version", "placeholder": "1.0"},
                       "validations": {"required": True}, "visible": ["form", "content"]}
    assert area["attributes"]["options"] == ["API", "Web"] and area["attributes"]["default"] == 0
    assert terms["attributes"]["options"] == [{"label": "I searched first", "required": True}]


def test_invalid_templates_are_left_out_with_forgejo_warning(api, scene):
    commit(api, scene["alice"], {
        ".forgejo/issue_template/good.yml": FORM_YAML,
        ".forgejo/issue_template/no_about.md": "---\nname: No about\n---\ntext\n",
        ".forgejo/issue_template/no_body.yaml": "name: x\nabout: y\n",
        ".forgejo/issue_template/bad_id.yaml":
            "name: x\nabout: y\nbody:\n- type: input\n  id: 'a b'\n  attributes: {label: L}\n",
        ".forgejo/issue_template/broken.yaml": "name: [unclosed\n",
        # No front matter: the file's name and its first 80 bytes name and describe it.
        ".forgejo/issue_template/plain.md": "Describe the problem. " * 5,
    })
    r = api.get(f"{R}/issue_templates")
    assert r.status == 200, r
    assert [t["file_name"] for t in r.json] == [".forgejo/issue_template/good.yml",
                                                ".forgejo/issue_template/plain.md"]
    plain = r.json[1]
    assert plain["name"] == "plain.md" and plain["ref"] == "refs/heads/"
    assert plain["about"].endswith("…") and len(plain["about"].encode()) == 80
    assert plain["content"] == "Describe the problem. " * 5 and plain["labels"] is None
    assert r.headers["x-gitea-warning"] == "error occurs when parsing issue template: count=4"


def test_config_defaults_validation_and_messages(api, scene):
    alice = scene["alice"]
    assert api.get(f"{R}/issue_config").json == {"blank_issues_enabled": True,
                                                 "contact_links": []}
    assert api.get(f"{R}/issue_config/validate").json == {"valid": True, "message": ""}
    commit(api, alice, {".github/issue_template/config.yml": CONFIG})
    got = api.get(f"{R}/issue_config")
    assert got.status == 200 and got.json == {
        "blank_issues_enabled": False,
        "contact_links": [{"name": "Forum", "url": "https://forum.example.org",
                           "about": "Questions go here"}]}
    # A config earlier in Forgejo's order wins; a broken one answers the default.
    commit(api, alice, {".gitea/ISSUE_TEMPLATE/config.yaml":
                        "contact_links:\n  - name: Chat\n    about: Talk\n"})
    assert api.get(f"{R}/issue_config").json == {"blank_issues_enabled": True,
                                                 "contact_links": []}
    assert api.get(f"{R}/issue_config/validate").json == {
        "valid": False, "message": "contact_link at position 1 is missing url key"}


@pytest.mark.parametrize("text, message", [
    ("contact_links:\n  - url: https://x.org\n    about: a\n",
     "contact_link at position 1 is missing name key"),
    ("contact_links:\n  - name: n\n    url: https://x.org\n",
     "contact_link at position 1 is missing about key"),
    ("contact_links:\n  - name: n\n    url: javascript:alert(1)\n    about: a\n",
     "javascript:alert(1) is not a valid URL"),
    ("blank_issues_enabled: [\n", "yaml: line 2: "),
])
def test_validate_messages(api, scene, text, message):
    commit(api, scene["alice"], {".gitea/issue_template/config.yaml": text})
    got = api.get(f"{R}/issue_config/validate").json
    assert got["valid"] is False and got["message"].startswith(message), got


def test_empty_repository_and_private_repository(api, scene):
    alice, carol = scene["alice"], scene["carol"]
    assert api.post("/user/repos", token=alice, json={"name": "void"}).status == 201
    void = "/repos/alice/void"
    assert api.get(f"{void}/issue_templates").json == []
    assert api.get(f"{void}/issue_config").json == {"blank_issues_enabled": True,
                                                    "contact_links": []}
    assert api.get(f"{void}/issue_config/validate").json == {"valid": True, "message": ""}
    secret = "/repos/alice/secret"
    commit(api, alice, {".gitea/ISSUE_TEMPLATE/bug.md": BUG_MD}, repo=secret)
    for path in ("issue_templates", "issue_config", "issue_config/validate"):
        assert api.get(f"{secret}/{path}").status == 404
        assert api.get(f"{secret}/{path}", token=carol).status == 404
        assert api.get(f"{secret}/{path}", token=alice).status == 200
    assert [t["name"] for t in api.get(f"{secret}/issue_templates", token=alice).json] == [
        "Bug report"]
    assert api.get("/repos/alice/nothing/issue_templates", token=alice).status == 404


def test_only_the_default_branch_is_read(api, scene):
    alice = scene["alice"]
    r = api.post(f"{R}/contents", token=alice, json={"new_branch": "dev", "files": [
        {"operation": "create", "path": ".gitea/ISSUE_TEMPLATE/bug.md",
         "content": b64(BUG_MD)},
        {"operation": "create", "path": ".gitea/ISSUE_TEMPLATE/config.yml",
         "content": b64(CONFIG)}]})
    assert r.status == 201, r
    assert api.get(f"{R}/issue_templates").json == []
    assert api.get(f"{R}/issue_config").json["blank_issues_enabled"] is True
    assert api.patch(R, token=alice, json={"default_branch": "dev"}).status == 200
    assert [t["name"] for t in api.get(f"{R}/issue_templates").json] == ["Bug report"]
    assert api.get(f"{R}/issue_config").json["blank_issues_enabled"] is False
