"""The Git LFS batch API and verify under moto, driven as git-lfs drives them: which
objects get which actions, what the presigned URLs are bound to, what verify records,
and every kind of bad input answered 4xx (per object where the batch spec says so)."""
from __future__ import annotations

import base64
import hashlib
import os
from urllib.parse import parse_qs, urlsplit

import pytest

from chalicelib import aws as aws_clients
from chalicelib.lfs import s3_objects
from chalicelib.settings import get_settings
from tests.environment import settings_env

MEDIA = "application/vnd.git-lfs+json"
BATCH = "/alice/open.git/info/lfs/objects/batch"
VERIFY = "/alice/open.git/info/lfs/verify"


def blob(size: int = 1024) -> tuple[bytes, str]:
    data = os.urandom(size)
    return data, hashlib.sha256(data).hexdigest()


def lfs(api, path, body, token=None, auth=None):
    return api.post(path, raw=True, json=body, token=token, auth=auth,
                    headers={"Content-Type": MEDIA, "Accept": MEDIA})


def batch(api, operation, objects, token=None, path=BATCH, **extra):
    return lfs(api, path, {"operation": operation, "transfers": ["basic"],
                           "objects": objects, **extra}, token=token)


def upload_to_s3(pool_id: int, oid: str, data: bytes) -> None:
    """What git-lfs does with an upload action (moto takes no presigned requests in
    process: the object is put at the key the URL names, with its checksum)."""
    aws_clients.client("s3").put_object(
        Bucket=get_settings().aws.BUCKET, Key=s3_objects.incoming_key(pool_id, oid), Body=data,
        ChecksumAlgorithm="SHA256",
        ChecksumSHA256=base64.b64encode(hashlib.sha256(data).digest()).decode())


def pool_of(api, token, repo="alice/open") -> int:
    from chalicelib.repos import store
    owner, name = repo.split("/")
    return int(store.get(owner, name).pool_id)


def pushed(api, tokens, size=1024) -> tuple[bytes, str]:
    """An object uploaded and verified in alice/open."""
    data, oid = blob(size)
    upload_to_s3(pool_of(api, tokens["alice"]), oid, data)
    assert lfs(api, VERIFY, {"oid": oid, "size": size}, token=tokens["alice"]).status == 200
    return data, oid


def test_upload_batch_answers_presigned_put_bound_to_key_size_and_sha256(api, tokens):
    data, oid = blob(2048)
    r = batch(api, "upload", [{"oid": oid, "size": 2048}], token=tokens["bob"])
    assert r.status == 200, r
    assert r.headers["content-type"] == MEDIA
    answer = r.json
    assert answer["transfer"] == "basic"
    [obj] = answer["objects"]
    assert obj["oid"] == oid and obj["size"] == 2048 and obj["authenticated"] is True
    upload = obj["actions"]["upload"]
    url = urlsplit(upload["href"])
    assert url.path.endswith(f"lfs/incoming/{pool_of(api, None)}/{oid}")
    signed = parse_qs(url.query)["X-Amz-SignedHeaders"][0].split(";")
    assert {"content-length", "x-amz-checksum-sha256", "host"} <= set(signed)
    assert upload["header"]["x-amz-checksum-sha256"] == \
        base64.b64encode(hashlib.sha256(data).digest()).decode()
    assert 0 < upload["expires_in"] <= 3600
    verify = obj["actions"]["verify"]
    assert verify["href"] == "http://nimbus.test/alice/open.git/info/lfs/verify"
    assert verify["header"]["Authorization"] == f"token {tokens['bob']}"


def test_verify_records_only_the_exact_object(api, tokens):
    data, oid = blob(4096)
    token = tokens["alice"]
    assert lfs(api, VERIFY, {"oid": oid, "size": 4096}, token=token).status == 404
    upload_to_s3(pool_of(api, token), oid, data)
    wrong_size = lfs(api, VERIFY, {"oid": oid, "size": 4095}, token=token)
    assert wrong_size.status == 422 and "4096 bytes" in wrong_size.json["message"]
    # Nothing was recorded: a download still finds no object.
    assert batch(api, "download", [{"oid": oid, "size": 4096}], token=token) \
        .json["objects"][0]["error"]["code"] == 404
    assert lfs(api, VERIFY, {"oid": oid, "size": 4096}, token=token).status == 200
    # Again: the object is the same bytes (its id is their hash), so it succeeds.
    assert lfs(api, VERIFY, {"oid": oid, "size": 4096}, token=token).status == 200
    [done] = batch(api, "upload", [{"oid": oid, "size": 4096}], token=token).json["objects"]
    assert done == {"oid": oid, "size": 4096}        # nothing to upload


def test_verify_refuses_other_bytes_under_an_object_id(api, tokens):
    token = tokens["alice"]
    other, _ = blob(100)
    _, oid = blob(100)
    pool = pool_of(api, token)
    upload_to_s3(pool, oid, other)        # S3 recorded the SHA-256 of what it got
    r = lfs(api, VERIFY, {"oid": oid, "size": 100}, token=token)
    assert r.status == 422 and "SHA-256" in r.json["message"], r
    aws_clients.client("s3").put_object(Bucket=get_settings().aws.BUCKET,
                                        Key=s3_objects.incoming_key(pool, oid), Body=other)
    assert lfs(api, VERIFY, {"oid": oid, "size": 100}, token=token).status == 422
    assert batch(api, "download", [{"oid": oid, "size": 100}], token=token) \
        .json["objects"][0]["error"]["code"] == 404


def test_download_answers_presigned_get_and_404_per_missing_object(api, tokens):
    data, oid = pushed(api, tokens)
    _, missing = blob()
    r = batch(api, "download", [{"oid": oid, "size": len(data)},
                                {"oid": missing, "size": 1024}], token=tokens["alice"])
    assert r.status == 200
    found, absent = r.json["objects"]
    assert set(found["actions"]) == {"download"}
    assert urlsplit(found["actions"]["download"]["href"]).path.endswith(oid)
    assert absent["error"] == {"code": 404, "message": "Object does not exist"}
    assert "actions" not in absent


def test_bad_objects_are_per_object_422s(api, tokens):
    _, good = blob()
    r = batch(api, "upload", [{"oid": "abc", "size": 1}, {"oid": good.upper(), "size": 1},
                              {"oid": good, "size": -1}, {"oid": good, "size": 1024}],
              token=tokens["alice"])
    assert r.status == 200, r
    short, upper, negative, fine = r.json["objects"]
    for bad in (short, upper, negative):
        assert bad["error"]["code"] == 422 and "actions" not in bad, bad
    assert "upload" in fine["actions"]
    assert lfs(api, VERIFY, {"oid": "abc", "size": 1}, token=tokens["alice"]).status == 422
    assert lfs(api, VERIFY, {"oid": good, "size": -5}, token=tokens["alice"]).status == 422


@pytest.mark.parametrize("count", [101, 10_000])
def test_too_many_objects_are_refused_whole(api, tokens, count):
    objects = [{"oid": f"{i:064x}", "size": 1} for i in range(count)]
    r = batch(api, "upload", objects, token=tokens["alice"])
    assert r.status == 413 and "at most 100" in r.json["message"], r


@pytest.mark.parametrize("body,status", [
    ({"operation": "delete", "objects": []}, 422),
    ({"operation": "upload"}, 422),
    ({"operation": "upload", "objects": [{"oid": "a" * 64, "size": "1"}]}, 422),
    ({"operation": "upload", "objects": [], "transfers": ["tus"]}, 422),
    ({"operation": "upload", "objects": [], "hash_algo": "sha512"}, 409),
])
def test_malformed_batches(api, tokens, body, status):
    r = lfs(api, BATCH, body, token=tokens["alice"])
    assert r.status == status, r
    assert r.json["message"]


def test_max_file_size(api, tokens):
    _, oid = blob()
    with settings_env({"NIMBUS__SERVER__LFS_MAX_FILE_SIZE": "1000"}):
        [big] = batch(api, "upload", [{"oid": oid, "size": 1001}],
                      token=tokens["alice"]).json["objects"]
        [small] = batch(api, "upload", [{"oid": oid, "size": 1000}],
                        token=tokens["alice"]).json["objects"]
    assert big["error"]["code"] == 422 and "1000" in big["error"]["message"]
    assert "upload" in small["actions"]
    # Without a setting, S3's single PUT is the limit.
    [huge] = batch(api, "upload", [{"oid": oid, "size": 6 * 1024 ** 3}],
                   token=tokens["alice"]).json["objects"]
    assert huge["error"]["code"] == 422


def test_who_may_upload_and_download(api, tokens):
    data, oid = pushed(api, tokens)
    one = [{"oid": oid, "size": len(data)}]
    # Anonymous: downloads from a public repository; asked for credentials to upload.
    assert batch(api, "download", one).status == 200
    anon = batch(api, "upload", one)
    assert anon.status == 401 and anon.headers["lfs-authenticate"].startswith("Basic")
    assert anon.headers["content-type"] == MEDIA and anon.json["message"]
    # A user without write access reads but may not upload (nor verify).
    assert batch(api, "download", one, token=tokens["eve"]).status == 200
    assert batch(api, "upload", one, token=tokens["eve"]).status == 403
    assert lfs(api, VERIFY, one[0], token=tokens["eve"]).status == 403
    # A read-only token downloads only.
    reader = api.create_token("bob", scopes=["read:repository"], name="reader")
    assert batch(api, "download", one, token=reader).status == 200
    refused = batch(api, "upload", one, token=reader)
    assert refused.status == 403 and "write:repository" in refused.json["message"]
    # A token without repository access at all is refused before anything is read.
    assert batch(api, "download", one, token=api.create_token(
        "bob", scopes=["read:user"], name="user-only")).status == 403


def test_private_repository_is_404_to_strangers_and_401_to_anonymous(api, tokens):
    assert api.post("/user/repos", token=tokens["alice"],
                    json={"name": "secret", "private": True}).status == 201
    _, oid = blob()
    one = [{"oid": oid, "size": 1024}]
    path = "/alice/secret.git/info/lfs/objects/batch"
    assert batch(api, "download", one, token=tokens["eve"], path=path).status == 404
    assert batch(api, "download", one, path=path).status == 401
    assert batch(api, "upload", one, token=tokens["alice"], path=path).status == 200


def test_forks_share_their_parents_objects(api, tokens):
    data, oid = pushed(api, tokens)
    assert api.post("/repos/alice/open/forks", token=tokens["eve"], json={}).status == 202
    r = batch(api, "download", [{"oid": oid, "size": len(data)}], token=tokens["eve"],
              path="/eve/open.git/info/lfs/objects/batch")
    assert "download" in r.json["objects"][0]["actions"], r
    [upload] = batch(api, "upload", [{"oid": oid, "size": len(data)}], token=tokens["eve"],
                     path="/eve/open.git/info/lfs/objects/batch").json["objects"]
    assert "actions" not in upload


def test_switched_off(api, tokens):
    with settings_env({"NIMBUS__SERVER__LFS_START_SERVER": "false"}):
        assert batch(api, "download", [], token=tokens["alice"]).status == 404


def test_local_backend_checks_the_sha256_as_s3_does():
    from chalicelib.local.moto_backend import bad_digest

    data, oid = blob(10)
    header = s3_objects.sha256_header(oid)
    put = {"REQUEST_METHOD": "PUT", "HTTP_X_AMZ_CHECKSUM_SHA256": header}
    assert bad_digest(put, data) is None
    status, _, body = bad_digest(put, data + b"!")
    assert status.startswith("400") and b"BadDigest" in body
    assert bad_digest({"REQUEST_METHOD": "PUT"}, data) is None


def test_errors_answer_in_git_lfs_shape_with_the_reason_in_message(api, tokens):
    """git-lfs prints ``message``: the reason must be there, not in Forgejo's ``errors``."""
    _, oid = blob(50)
    r = lfs(api, VERIFY, {"oid": oid, "size": 50}, token=tokens["alice"])
    assert r.status == 404 and r.headers["content-type"].startswith(MEDIA), r
    assert r.json == {"message": f"Object {oid} was not uploaded"}, r.json
