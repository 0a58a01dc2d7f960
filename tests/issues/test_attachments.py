"""Attachments of issues and comments through the API: uploads (multipart, raw,
presigned), the Attachment records and the ``assets`` of Issue and Comment records,
get, edit, delete, downloads and their counts, refusals, and what outsiders see."""
from __future__ import annotations

import os

from chalicelib.http import schemas
from tests.accounts.test_users import assert_matches_forgejo
from tests.releases.test_attachments import download, form, s3_objects, settings_env  # noqa: F401
from tests.releases.test_releases import people  # noqa: F401 - a fixture

R = "/repos/alice/proj"
HIDDEN = "/repos/alice/hidden"


def open_issue(api, token, repo=R, title="broken"):
    r = api.post(f"{repo}/issues", token=token, json={"title": title})
    assert r.status == 201, r
    return r.json["number"]


def comment(api, token, number, repo=R):
    r = api.post(f"{repo}/issues/{number}/comments", token=token, json={"body": "see log"})
    assert r.status == 201, r
    return r.json["id"]


def upload(api, token, path, data=b"log line\n", filename="build.log", query=""):
    body, headers = form(("attachment", filename, data))
    return api.post(f"{path}/assets{query}", token=token, body=body, headers=headers)


def test_an_issue_attachment_from_upload_to_deletion(api, people):  # noqa: F811
    alice, carol = people["alice"], people["carol"]
    number = open_issue(api, carol)
    issue = f"{R}/issues/{number}"
    data = os.urandom(700)
    r = upload(api, carol, issue, data=data, filename="crash.dmp")
    assert r.status == 201, r
    record = r.json
    expected = {"name": "crash.dmp", "size": 700, "download_count": 0, "type": "attachment",
                "browser_download_url": f"http://nimbus.test/attachments/{record['uuid']}"}
    assert {field: record[field] for field in expected} == expected
    assert set(record) == set(schemas.RECORDS["Attachment"])
    assert isinstance(record["id"], int) and record["created_at"].endswith("Z")
    assert_matches_forgejo(record, "Attachment")
    got = download(api, record)
    assert got.status == 200 and got.body == data
    assert 'filename="crash.dmp"' in got.headers["content-disposition"]
    assert api.request("HEAD", f"/attachments/{record['uuid']}", raw=True).status == 200
    shown = api.get(f"{issue}/assets/{record['id']}").json
    assert shown == {**record, "download_count": 1}                 # a HEAD is not counted
    assert api.get(f"{issue}/assets").json == [shown]
    assert api.get(issue).json["assets"] == [shown]
    assert api.get(f"{R}/issues").json[0]["assets"] == [shown]
    renamed = api.patch(f"{issue}/assets/{record['id']}", token=carol, json={"name": "core.dmp"})
    assert renamed.status == 201 and renamed.json["name"] == "core.dmp"
    assert api.get(f"{issue}/assets/{record['id']}").json["name"] == "core.dmp"
    assert api.delete(f"{issue}/assets/{record['id']}", token=alice).status == 204
    assert api.get(f"{issue}/assets/{record['id']}").status == 404
    assert api.get(issue).json["assets"] == []
    assert download(api, record).status == 404 and s3_objects() == {}


def test_comment_attachments_and_their_rules(api, people):  # noqa: F811
    alice, bob, carol = people["alice"], people["bob"], people["carol"]
    number = open_issue(api, carol)
    carols = comment(api, carol, number)
    bobs = comment(api, bob, number)
    on_carols, on_bobs = f"{R}/issues/comments/{carols}", f"{R}/issues/comments/{bobs}"
    # Forgejo: the comment's poster or an admin, who may also write issues.
    assert upload(api, carol, on_carols).status == 403
    assert upload(api, bob, on_carols).status == 403
    mine = upload(api, bob, on_bobs, filename="trace.txt")
    assert mine.status == 201, mine
    admins = upload(api, alice, on_carols, filename="admin.txt").json
    listed = api.get(f"{on_bobs}/assets").json
    assert [a["id"] for a in listed] == [mine.json["id"]]
    found = [c for c in api.get(f"{R}/issues/{number}/comments").json if c["id"] == bobs]
    assert found[0]["assets"] == listed
    assert_matches_forgejo(found[0], "Comment")
    # Another comment's, or the issue's path: not there.
    assert api.get(f"{on_bobs}/assets/{admins['id']}").status == 404
    assert api.get(f"{R}/issues/{number}/assets/{mine.json['id']}").status == 404
    assert api.patch(f"{on_carols}/assets/{admins['id']}", token=carol,
                     json={"name": "x.txt"}).status == 403
    assert api.delete(f"{on_carols}/assets/{admins['id']}", token=carol).status == 403
    # A deleted comment takes its attachments: records, links and bytes.
    assert api.delete(f"{R}/issues/comments/{bobs}", token=bob).status == 204
    assert api.get(f"{on_bobs}/assets").status == 404
    assert download(api, mine.json).status == 404
    assert list(s3_objects().values()) == [admins["size"]]


def test_who_may_upload_to_an_issue(api, people):  # noqa: F811
    bob, carol, dave = people["bob"], people["carol"], people["dave"]
    number = open_issue(api, dave)                  # dave only reads the public proj
    issue = f"{R}/issues/{number}"
    assert upload(api, dave, issue).status == 201   # the poster
    assert upload(api, bob, issue).status == 201    # a writer
    refused = upload(api, carol, issue)             # a reader
    assert refused.status == 403 and refused.json["message"]
    assert upload(api, None, issue).status == 401
    first = api.get(f"{issue}/assets").json[0]
    assert api.patch(f"{issue}/assets/{first['id']}", token=carol,
                     json={"name": "x"}).status == 403
    assert api.delete(f"{issue}/assets/{first['id']}", token=carol).status == 403
    assert api.get(f"{R}/issues/{number + 100}/assets").status == 404
    assert api.get(f"{issue}/assets/999999").status == 404


def test_a_private_repository_hides_its_attachments(api, people):  # noqa: F811
    alice, dave = people["alice"], people["dave"]
    number = open_issue(api, alice, repo=HIDDEN)
    issue = f"{HIDDEN}/issues/{number}"
    record = upload(api, alice, issue).json
    assert api.get(f"{issue}/assets", token=dave).status == 404
    assert api.get(f"{issue}/assets/{record['id']}").status == 404
    assert upload(api, dave, issue).status == 404
    assert download(api, record).status == 404                   # anonymous
    assert download(api, record, token=dave).status == 404
    assert download(api, record, token=alice).status == 200
    assert api.get(f"{issue}/assets", token=alice).json[0]["download_count"] == 1


def test_bad_input(api, people, settings_env):  # noqa: F811
    alice, carol = people["alice"], people["carol"]
    number = open_issue(api, carol)
    issue = f"{R}/issues/{number}"
    body, headers = form(("name", None, b"only a name"))
    missing = api.post(f"{issue}/assets", token=carol, body=body, headers=headers)
    assert missing.status == 400 and "attachment" in missing.json["message"]
    exe = upload(api, carol, issue, data=b"MZ\x90\x00\x03", filename="setup.exe")
    assert exe.status == 422 and "not allowed" in exe.json["message"]
    assert upload(api, carol, issue, query="?updated_at=2030-01-01T00:00:00Z").status == 403
    assert upload(api, alice, issue, query="?updated_at=yesterday").status == 422
    dated = upload(api, alice, issue, query="?updated_at=2030-01-01T00:00:00Z")
    assert dated.status == 403                                     # after now
    assert api.patch(f"{issue}/assets/1", token=carol, json={"name": 5}).status == 422
    settings_env(NIMBUS__ATTACHMENT__MAX_SIZE="1")
    assert upload(api, carol, issue, data=b"x" * (2 << 20), filename="big.txt").status == 413
    settings_env(NIMBUS__ATTACHMENT__ENABLED="false")
    assert upload(api, carol, issue).status == 404
    assert s3_objects() == {}


def test_presigned_upload_to_an_issue(api, people):  # noqa: F811
    from chalicelib.store import attachment_objects as objects

    carol = people["carol"]
    number = open_issue(api, carol)
    issue = f"{R}/issues/{number}"
    size = 6 * 1024 * 1024
    start = api.post(f"{issue}/assets/upload?name=big.log&size={size}", token=carol)
    assert start.status == 201, start
    pending = start.json
    assert pending["upload_method"] == "PUT" and "X-Amz-Signature=" in pending["upload_url"]
    assert api.get(f"{issue}/assets").json == []                   # not listed yet
    confirm = f"{issue}/assets/{pending['id']}/confirm"
    early = api.post(confirm, token=carol)
    assert early.status == 422 and "PUT the bytes" in early.json["message"]
    # The client PUTs the bytes to upload_url: straight to the object it names.
    objects.put(objects.key(api.get(R).json["id"], pending["uuid"]), os.urandom(size))
    done = api.post(confirm, token=carol)
    assert (done.status, done.json["size"], set(done.json)) == \
        (201, size, set(schemas.RECORDS["Attachment"]))
    assert api.post(confirm, token=carol).json == done.json        # confirming again
    assert [a["id"] for a in api.get(f"{issue}/assets").json] == [pending["id"]]
    got = download(api, done.json)                                 # past a Lambda response
    assert got.status == 302 and pending["uuid"] in got.headers["location"]
    assert api.get(f"{issue}/assets/{pending['id']}").json["download_count"] == 1
