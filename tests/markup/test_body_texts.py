"""The rendering routes' 422 texts for wrongly typed bodies, as they gave them before the
bodies were checked at the edge (clients may match them): Python's names of the types."""
import pytest


@pytest.fixture
def api(fast_api):
    """These texts are the rules' and need no moto: the in-memory twin (the fast layer)."""
    return fast_api


@pytest.fixture
def alice(api):
    api.create_user("alice")
    token = api.create_token("alice")
    assert api.post("/user/repos", token=token, json={"name": "app"}).status == 201
    return token


MARKDOWN = [("Text", 5, "[Text]: expected a str"), ("text", ["x"], "[Text]: expected a str"),
            ("Mode", True, "[Mode]: expected a str"),
            ("Context", {}, "[Context]: expected a str"),
            ("Wiki", "true", "[Wiki]: expected a bool"), ("wiki", 1, "[Wiki]: expected a bool")]
MARKUP = [*MARKDOWN, ("FilePath", 5, "[FilePath]: expected a str"),
          ("filepath", [], "[FilePath]: expected a str"),
          ("BranchPath", 1.5, "[BranchPath]: expected a str"),
          ("branchpath", False, "[BranchPath]: expected a str")]


@pytest.mark.parametrize("path", ["/markdown", "/repos/alice/app/markdown"])
@pytest.mark.parametrize("field, value, message", MARKDOWN)
def test_markdown_field_of_another_type(api, alice, path, field, value, message):
    r = api.post(path, token=alice, json={"Text": "hi", field: value})
    assert r.status == 422, r
    assert r.json["message"] == message


@pytest.mark.parametrize("path", ["/markup", "/repos/alice/app/markup"])
@pytest.mark.parametrize("field, value, message", MARKUP)
def test_markup_field_of_another_type(api, alice, path, field, value, message):
    r = api.post(path, token=alice, json={"Text": "hi", field: value})
    assert r.status == 422, r
    assert r.json["message"] == message
