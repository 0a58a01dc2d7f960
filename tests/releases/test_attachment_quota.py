"""Release attachments and quota together: uploads and deletions move the owner's
attachment usage in their own transaction, concurrent uploads leave it equal to a
recount, the quota lists show them, and an upload past the limit answers 413."""
from __future__ import annotations

import pytest

from tests.conftest import ADMIN
from tests.releases.test_attachments import R, upload
from tests.quota.test_quota import quota_on, recount, rule, usage  # noqa: F401 - fixtures
from tests.releases.test_releases import people  # noqa: F401 - a fixture
from tests.statuses.test_statuses import atomic_requests  # noqa: F401 - a fixture


@pytest.fixture
def release(quota_on, people):  # noqa: F811 - imported fixtures
    r = quota_on.post(f"{R}/releases", token=people["alice"], json={"tag_name": "v1", "name": "v1"})
    assert r.status == 201, r
    return r.json["id"]


def test_uploads_and_deletions_move_the_usage(quota_on, people, release):  # noqa: F811
    api, alice = quota_on, people["alice"]
    first = upload(api, alice, release, b"a" * 1000).json
    upload(api, alice, release, b"b" * 500, filename="b.bin")
    assert usage("alice")["attachments_releases"] == 1500
    listed = api.get("/user/quota/attachments", token=alice)
    assert [(a["name"], a["size"]) for a in listed.json] == [("file.bin", 1000), ("b.bin", 500)]
    assert listed.json[0]["contained_in"]["api_url"].endswith(f"{R}/releases/{release}")
    assert api.delete(f"{R}/releases/{release}/assets/{first['id']}", token=alice).status == 204
    assert usage("alice")["attachments_releases"] == 500
    assert recount() == []                               # nothing drifted
    assert api.delete(f"{R}/releases/{release}", token=alice).status == 204
    assert usage("alice")["attachments_releases"] == 0


def test_concurrent_uploads_equal_a_recount(quota_on, people, release,  # noqa: F811
                                            atomic_requests):  # noqa: F811
    from tests.test_races import together

    api, alice = quota_on, people["alice"]
    answers = together(10, lambda i: upload(api, alice, release, bytes([i]) * (100 + i),
                                            filename=f"f{i}.bin"))
    assert [a.status for a in answers] == [201] * 10
    assert usage("alice")["attachments_releases"] == sum(100 + i for i in range(10))
    assert recount() == []


def test_an_upload_past_the_limit_answers_413(quota_on, people, release):  # noqa: F811
    api, alice = quota_on, people["alice"]
    admin = api.create_token(*ADMIN, name="quota-admin")
    rule(api, admin, "assets", 1024, ["size:assets:attachments:releases"])
    assert api.post("/admin/quota/groups", token=admin,
                    json={"name": "small", "rules": [{"name": "assets"}]}).status == 201
    assert api.put("/admin/quota/groups/small/users/alice", token=admin).status == 204
    assert upload(api, alice, release, b"x" * 1000).status == 201
    refused = upload(api, alice, release, b"y" * 100, filename="more.bin")
    assert refused.status == 413, refused
    assert refused.json["message"] == "quota exceeded" and refused.json["username"] == "alice"
    assert usage("alice")["attachments_releases"] == 1000
    assert api.get("/user/quota/check?subject=size:assets:attachments:releases",
                   token=alice).json is True             # 1000 < 1024: Forgejo's strict check
