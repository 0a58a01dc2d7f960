"""Repository topics and the topic search through the API (Forgejo's answers)."""
import pytest

from tests.accounts.test_users import assert_matches_forgejo


@pytest.fixture
def people(api):
    tokens = {}
    for name in ("alice", "bob"):
        api.create_user(name)
        tokens[name] = api.create_token(name)
    for repo, private in (("open", False), ("secret", True)):
        assert api.post("/user/repos", token=tokens["alice"],
                        json={"name": repo, "private": private}).status == 201
    return tokens


def test_topics_lifecycle(api, people):
    alice, bob = people["alice"], people["bob"]
    base = "/repos/alice/open/topics"
    listed = api.get(base)
    assert listed.status == 200 and listed.json == {"topics": []}

    assert api.put(base, token=alice, json={"topics": ["Go", " web ", "go", ""]}).status == 204
    listed = api.get(base)
    assert listed.json == {"topics": ["go", "web"]} and listed.headers["x-total-count"] == "2"
    assert_matches_forgejo(listed.json, "TopicName")
    assert api.get("/repos/alice/open").json["topics"] == ["go", "web"]

    assert api.put(f"{base}/API", token=alice).status == 204
    assert api.put(f"{base}/api", token=alice).status == 204           # again: no error
    assert api.delete(f"{base}/web", token=alice).status == 204
    assert api.delete(f"{base}/web", token=alice).status == 404
    assert api.get(base + "?limit=1&page=2").json == {"topics": ["go"]}

    # Readers read; only admins write (signed in); the invisible get 404.
    assert api.put(f"{base}/x").status == 401
    assert api.put(f"{base}/x", token=bob).status == 403
    assert api.put(base, token=bob, json={"topics": []}).status == 403
    assert api.delete(f"{base}/go", token=bob).status == 403
    assert api.get("/repos/alice/secret/topics", token=bob).status == 404
    assert api.put("/repos/alice/secret/topics/x", token=bob).status == 404


def test_invalid_topics_answer_forgejo_s_shape(api, people):
    alice = people["alice"]
    base = "/repos/alice/open/topics"
    refused = api.put(base, token=alice, json={"topics": ["ok", "Not OK"]})
    assert refused.status == 422
    assert refused.json == {"invalidTopics": ["not ok"], "message": "Topic names are invalid"}
    assert_matches_forgejo(refused.json, "APIInvalidTopicsError")
    many = api.put(base, token=alice, json={"topics": [f"t{n}" for n in range(26)]})
    assert many.status == 422 and many.json["invalidTopics"] is None
    bad = api.put(f"{base}/-bad", token=alice)
    assert bad.status == 422 and bad.json == {"invalidTopics": "-bad",
                                             "message": "Topic name is invalid"}
    assert api.get(base).json == {"topics": []}                        # nothing written
    assert api.put(base, token=alice, json={"topics": [f"t{n}" for n in range(25)]}).status == 204
    full = api.put(f"{base}/more", token=alice)
    assert full.status == 422 and full.json == {"message": "Exceeding maximum allowed topics per repo."}
    assert api.put(base, token=alice, json={"topics": [1]}).status == 422


def test_topic_search(api, people):
    alice = people["alice"]
    api.put("/repos/alice/open/topics", token=alice, json={"topics": ["golang", "django", "rust"]})
    api.put("/repos/alice/secret/topics", token=alice, json={"topics": ["golang"]})
    found = api.get("/topics/search?q=go")
    assert found.status == 200 and found.headers["x-total-count"] == "2"
    assert [(t["topic_name"], t["repo_count"]) for t in found.json["topics"]] == [
        ("golang", 2), ("django", 1)]
    for topic in found.json["topics"]:
        assert_matches_forgejo(topic, "TopicResponse")
        assert isinstance(topic["id"], int) and topic["created"].endswith("Z")
    assert api.get("/topics/search?q=zz").json == {"topics": []}
    page = api.get("/topics/search?limit=1&page=2")
    assert [t["topic_name"] for t in page.json["topics"]] == ["golang"]
    assert 'rel="next"' in page.headers["link"]

    # Topics only one repository had go with it; the others count one fewer.
    assert api.put("/repos/alice/open/topics", token=alice, json={"topics": ["rust"]}).status == 204
    assert [t["topic_name"] for t in api.get("/topics/search?q=").json["topics"]] == [
        "golang", "rust"]
