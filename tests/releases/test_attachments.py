"""Release attachments through the API: uploads (multipart, raw, external, presigned),
downloads and their counts, edits, deletions, limits, permissions, races."""
from __future__ import annotations

import os
from collections import Counter

import pytest

from chalicelib.http import schemas
from tests.releases.test_releases import people  # noqa: F401 - a fixture
from tests.statuses.test_statuses import atomic_requests  # noqa: F401 - a fixture
from tests.accounts.test_users import assert_matches_forgejo

R = "/repos/alice/proj"
BOUNDARY = "test-boundary-1"


def form(*fields: tuple[str, str | None, bytes]) -> tuple[bytes, dict]:
    """A multipart/form-data body: (field name, file name or None, content) each."""
    parts = []
    for name, filename, data in fields:
        disposition = f'form-data; name="{name}"' + (f'; filename="{filename}"' if filename else "")
        parts.append(f"--{BOUNDARY}\r\nContent-Disposition: {disposition}\r\n"
                     f"Content-Type: application/octet-stream\r\n\r\n".encode() + data + b"\r\n")
    body = b"".join(parts) + f"--{BOUNDARY}--\r\n".encode()
    return body, {"Content-Type": f"multipart/form-data; boundary={BOUNDARY}"}


def upload(api, token, release_id, data: bytes, filename="file.bin", query="", repo=R):
    body, headers = form(("attachment", filename, data))
    return api.post(f"{repo}/releases/{release_id}/assets{query}", token=token, body=body,
                    headers=headers)


def download(api, record_or_uuid, token=None):
    uuid = record_or_uuid if isinstance(record_or_uuid, str) else record_or_uuid["uuid"]
    return api.get(f"/attachments/{uuid}", raw=True, token=token)


@pytest.fixture
def release(api, people):  # noqa: F811 - the imported fixture
    r = api.post(f"{R}/releases", token=people["alice"], json={"tag_name": "v1", "name": "v1"})
    assert r.status == 201, r
    return r.json["id"]


@pytest.fixture
def settings_env(monkeypatch):
    """Set NIMBUS__* settings for one test (the app reads them once per process)."""
    from chalicelib.settings import reset_settings_cache

    def apply(**values: str) -> None:
        for name, value in values.items():
            monkeypatch.setenv(name, value)
        reset_settings_cache()

    yield apply
    monkeypatch.undo()
    reset_settings_cache()


def s3_objects(prefix="attachments/") -> dict[str, int]:
    from chalicelib import aws
    from chalicelib.settings import get_settings

    found = aws.client("s3").list_objects_v2(Bucket=get_settings().aws.BUCKET, Prefix=prefix)
    return {o["Key"]: o["Size"] for o in found.get("Contents", [])}


def test_multipart_upload_downloads_the_exact_bytes_and_counts(api, people, release):  # noqa: F811
    alice = people["alice"]
    data = os.urandom(1024)
    r = upload(api, alice, release, data, filename="tool-linux.tar.gz")
    assert r.status == 201, r
    record = r.json
    assert_matches_forgejo(record, "Attachment")
    assert set(record) == set(schemas.RECORDS["Attachment"])
    assert (record["name"], record["size"], record["download_count"], record["type"]) == \
        ("tool-linux.tar.gz", 1024, 0, "attachment")
    assert record["browser_download_url"] == f"http://nimbus.test/attachments/{record['uuid']}"
    got = download(api, record)
    assert got.status == 200 and got.body == data
    assert got.headers["content-type"] == "application/octet-stream"
    assert 'filename="tool-linux.tar.gz"' in got.headers["content-disposition"]
    assert download(api, record).body == data
    assert api.request("HEAD", f"/attachments/{record['uuid']}", raw=True).status == 200
    shown = api.get(f"{R}/releases/{release}/assets/{record['id']}").json
    assert shown == {**record, "download_count": 2}           # a HEAD is not a download
    assert api.get(f"{R}/releases/{release}/assets").json == [shown]
    assert api.get(f"{R}/releases/{release}").json["assets"] == [shown]
    assert list(s3_objects().values()) == [1024]
    assert download(api, "no-such-uuid").status == 404
    assert download(api, "0" * 5000).status == 404
    assert download(api, record["uuid"].replace(record["uuid"][0], "f", 1)
                    if record["uuid"][0] != "f" else "0" + record["uuid"][1:]).status == 404


def test_names_raw_bodies_and_refusals(api, people, release):  # noqa: F811
    alice = people["alice"]
    named = upload(api, alice, release, b"abc", filename="ignored.txt", query="?name=chosen.txt")
    assert named.status == 201 and named.json["name"] == "chosen.txt"
    raw = api.post(f"{R}/releases/{release}/assets?name=raw.bin", token=alice, body=b"\x00\x01",
                   headers={"Content-Type": "application/octet-stream"})
    assert raw.status == 201 and raw.json["size"] == 2
    assert download(api, raw.json).body == b"\x00\x01"
    nameless = api.post(f"{R}/releases/{release}/assets", token=alice, body=b"x",
                        headers={"Content-Type": "application/octet-stream"})
    assert nameless.status == 400 and nameless.json["message"] == "Missing 'name' parameter"
    body, headers = form(("other", None, b"x"))
    neither = api.post(f"{R}/releases/{release}/assets", token=alice, body=body, headers=headers)
    assert neither.status == 400
    assert neither.json["message"] == "One of 'attachment' or 'external_url' is required"
    body, headers = form(("attachment", "a.txt", b"x"), ("external_url", None, b"https://x.test/a"))
    both = api.post(f"{R}/releases/{release}/assets", token=alice, body=body, headers=headers)
    assert both.status == 400 and "mutually exclusive" in both.json["message"]
    broken = api.post(f"{R}/releases/{release}/assets", token=alice, body=b"garbage",
                      headers={"Content-Type": "multipart/form-data"})
    assert broken.status == 400
    assert upload(api, alice, 999999, b"x").status == 404
    assert len(api.get(f"{R}/releases/{release}/assets").json) == 2


def test_external_attachments(api, people, release):  # noqa: F811
    alice = people["alice"]
    body, headers = form(("external_url", None, b"https://downloads.example.com/dl/tool.zip"))
    r = api.post(f"{R}/releases/{release}/assets", token=alice, body=body, headers=headers)
    assert r.status == 201, r
    assert (r.json["type"], r.json["name"], r.json["size"]) == ("external", "tool.zip", 0)
    assert r.json["browser_download_url"] == "https://downloads.example.com/dl/tool.zip"
    as_json = api.post(f"{R}/releases/{release}/assets?name=docs", token=alice,
                       json={"external_url": "https://docs.example.com/"})
    assert as_json.status == 201 and as_json.json["name"] == "docs"
    bad = api.post(f"{R}/releases/{release}/assets", token=alice,
                   json={"external_url": "javascript:alert(1)"})
    assert bad.status == 400 and "invalid external URL" in bad.json["message"]
    # Editing: the link of an external attachment may change; a stored one's may not.
    edited = api.patch(f"{R}/releases/{release}/assets/{r.json['id']}", token=alice,
                       json={"browser_download_url": "https://mirror.example.com/tool.zip",
                             "name": "tool-1.0.zip"})
    assert edited.status == 201
    assert edited.json["browser_download_url"] == "https://mirror.example.com/tool.zip"
    assert edited.json["name"] == "tool-1.0.zip"
    stored = upload(api, alice, release, b"bytes").json
    refused = api.patch(f"{R}/releases/{release}/assets/{stored['id']}", token=alice,
                        json={"browser_download_url": "https://x.example.com/"})
    assert refused.status == 400 and refused.json["message"] == "existing attachment is not external"
    renamed = api.patch(f"{R}/releases/{release}/assets/{stored['id']}", token=alice,
                        json={"name": "renamed.bin"})
    assert renamed.status == 201 and renamed.json["name"] == "renamed.bin"
    assert 'filename="renamed.bin"' in download(api, stored).headers["content-disposition"]
    # A download of an external attachment's uuid redirects there.
    away = download(api, edited.json)
    assert away.status == 302 and away.headers["location"] == "https://mirror.example.com/tool.zip"


def test_delete_attachment_and_release_remove_bytes(api, people, release):  # noqa: F811
    alice = people["alice"]
    first = upload(api, alice, release, b"one").json
    second = upload(api, alice, release, b"two").json
    assert len(s3_objects()) == 2
    assert api.delete(f"{R}/releases/{release}/assets/{first['id']}", token=alice).status == 204
    assert api.get(f"{R}/releases/{release}/assets/{first['id']}").status == 404
    assert download(api, first).status == 404
    assert len(s3_objects()) == 1
    assert api.delete(f"{R}/releases/{release}/assets/{first['id']}", token=alice).status == 404
    assert api.delete(f"{R}/releases/{release}", token=alice).status == 204
    assert download(api, second).status == 404 and s3_objects() == {}
    from chalicelib.releases import store

    assert store.get_link(second["uuid"]) is None


def test_limits_of_size_and_type(api, people, release, settings_env):  # noqa: F811
    alice = people["alice"]
    settings_env(NIMBUS__ATTACHMENT__MAX_SIZE="1",
                 NIMBUS__REPOSITORY_0X2E_RELEASE__ALLOWED_TYPES=".zip, text/plain, image/*")
    big = upload(api, alice, release, b"x" * (1024 * 1024 + 1), filename="big.zip")
    assert big.status == 413 and "larger than the maximum of 1 MiB" in big.json["message"]
    assert set(big.json) == {"message", "url"}                       # Forgejo's error shape
    assert upload(api, alice, release, b"PK\x03\x04zip", filename="a.zip").status == 201
    assert upload(api, alice, release, b"plain text", filename="notes").status == 201
    assert upload(api, alice, release, b"\x89PNG\r\n\x1a\n....", filename="logo").status == 201
    refused = upload(api, alice, release, b"\x7fELF\x02\x01\x01\x00", filename="tool.exe")
    assert refused.status == 422
    assert refused.json["message"] == ("This file extension or type is not allowed to be "
                                       "uploaded. Type: application/octet-stream")
    start = api.post(f"{R}/releases/{release}/assets/upload?name=huge.zip&size={2 << 20}",
                     token=alice)
    assert start.status == 413
    assert api.post(f"{R}/releases/{release}/assets/upload?name=x.exe&size=10",
                    token=alice).status == 422
    assert len(s3_objects()) == 3
    settings_env(NIMBUS__ATTACHMENT__ENABLED="false")
    off = upload(api, alice, release, b"x", filename="a.zip")
    assert off.status == 404


def test_permissions(api, people, release):  # noqa: F811
    alice, bob, carol, dave = (people[n] for n in ("alice", "bob", "carol", "dave"))
    assert upload(api, carol, release, b"x").status == 403
    assert upload(api, None, release, b"x").status == 401
    record = upload(api, bob, release, b"by bob").json
    for token in (carol, dave, None):
        assert api.get(f"{R}/releases/{release}/assets/{record['id']}", token=token).status == 200
        assert download(api, record, token=token).status == 200
    assert api.delete(f"{R}/releases/{release}/assets/{record['id']}", token=carol).status == 403
    assert api.patch(f"{R}/releases/{release}/assets/{record['id']}", token=carol,
                     json={"name": "x"}).status == 403
    # A private repository's attachments: 404 for strangers and anonymous callers.
    hidden = api.post("/repos/alice/hidden/releases", token=alice,
                      json={"tag_name": "h", "name": "h"}).json["id"]
    secret = upload(api, alice, hidden, b"secret", repo="/repos/alice/hidden").json
    for token in (dave, None):
        assert download(api, secret, token=token).status == 404
        assert api.get(f"/repos/alice/hidden/releases/{hidden}/assets",
                       token=token).status == 404
    assert download(api, secret, token=alice).body == b"secret"
    # A draft's attachments: writers only.
    draft = api.post(f"{R}/releases", token=alice,
                     json={"tag_name": "d", "name": "d", "draft": True}).json["id"]
    drafted = upload(api, alice, draft, b"draft").json
    assert download(api, drafted, token=carol).status == 404
    assert api.get(f"{R}/releases/{draft}/assets/{drafted['id']}", token=carol).status == 404
    assert download(api, drafted, token=bob).status == 200
    # The attachment of another release is not this release's.
    assert api.get(f"{R}/releases/{draft}/assets/{record['id']}", token=alice).status == 404


def test_presigned_upload(api, people, release):  # noqa: F811
    from chalicelib import aws
    from chalicelib.settings import get_settings

    alice = people["alice"]
    size = 6 * 1024 * 1024
    start = api.post(f"{R}/releases/{release}/assets/upload?name=big.bin&size={size}",
                     token=alice)
    assert start.status == 201, start
    pending = start.json
    assert pending["upload_method"] == "PUT" and "X-Amz-Signature=" in pending["upload_url"]
    assert pending["size"] == size and pending["upload_expires_at"].endswith("Z")
    assert api.get(f"{R}/releases/{release}/assets").json == []           # not listed yet
    confirm = f"{R}/releases/{release}/assets/{pending['id']}/confirm"
    early = api.post(confirm, token=alice)
    assert early.status == 422 and "PUT the bytes" in early.json["message"]
    key = f"attachments/{api.get(R).json['id']}/{pending['uuid']}"
    s3 = aws.client("s3")
    s3.put_object(Bucket=get_settings().aws.BUCKET, Key=key, Body=b"short")
    wrong = api.post(confirm, token=alice)
    assert wrong.status == 422 and "not the 6291456 announced" in wrong.json["message"]
    data = os.urandom(size)
    s3.put_object(Bucket=get_settings().aws.BUCKET, Key=key, Body=data)
    done = api.post(confirm, token=alice)
    assert done.status == 201 and done.json["size"] == size
    assert set(done.json) == set(schemas.RECORDS["Attachment"])
    assert api.post(confirm, token=alice).json == done.json              # confirming again
    assert [a["id"] for a in api.get(f"{R}/releases/{release}/assets").json] == [pending["id"]]
    # Past a Lambda response: a redirect to a presigned GET of the object, counted.
    got = download(api, done.json)
    assert got.status == 302 and "X-Amz-Signature=" in got.headers["location"]
    assert pending["uuid"] in got.headers["location"]
    assert api.get(f"{R}/releases/{release}/assets/{pending['id']}").json["download_count"] == 1


def test_presigned_upload_over_the_limit_is_dropped(api, people, release, settings_env):  # noqa: F811
    from chalicelib import aws
    from chalicelib.settings import get_settings

    alice = people["alice"]
    settings_env(NIMBUS__ATTACHMENT__MAX_SIZE="1")
    pending = api.post(f"{R}/releases/{release}/assets/upload?name=a.bin&size=10",
                       token=alice).json
    key = f"attachments/{api.get(R).json['id']}/{pending['uuid']}"
    aws.client("s3").put_object(Bucket=get_settings().aws.BUCKET, Key=key,
                                Body=b"y" * (2 << 20))
    refused = api.post(f"{R}/releases/{release}/assets/{pending['id']}/confirm", token=alice)
    assert refused.status == 413
    assert s3_objects() == {}
    assert api.post(f"{R}/releases/{release}/assets/{pending['id']}/confirm",
                    token=alice).status == 404
    assert api.post(f"{R}/releases/{release}/assets/upload?name=a.bin&size=-1",
                    token=alice).status == 400


def test_parallel_downloads_count_exactly(api, people, release, atomic_requests):  # noqa: F811
    from tests.test_races import together

    record = upload(api, people["alice"], release, b"popular").json
    answers = together(12, lambda i: download(api, record))
    assert Counter(a.status for a in answers) == Counter({200: 12})
    shown = api.get(f"{R}/releases/{release}/assets/{record['id']}").json
    assert shown["download_count"] == 12


def test_repository_deletion_removes_links_and_bytes(api, people, release):  # noqa: F811
    from chalicelib.releases import assets as release_files
    from chalicelib.releases import store

    alice = people["alice"]
    record = upload(api, alice, release, b"gone soon").json
    repo_id = api.get(R).json["id"]
    assert api.delete(R, token=alice).status == 204
    release_files.forget_repo(repo_id)       # what the repository-cleanup consumer runs
    assert store.get_link(record["uuid"]) is None and s3_objects() == {}
