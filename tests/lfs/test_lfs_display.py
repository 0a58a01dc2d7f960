"""Git LFS files where files show (issue 28, display): the pointer parser, /raw (the
pointer, as Forgejo), /media and the web's media path (the object: its bytes, or a
redirect to S3 when too large for an answer), the contents API's links, archives with
the objects' bytes, the file page and the repository's size."""
from __future__ import annotations

import base64
import hashlib
import io
import tarfile
import zipfile
from urllib.parse import parse_qs, urlsplit

import pytest

from chalicelib.lfs import pointers
from tests.environment import settings_env
from tests.lfs.test_batch import blob, pool_of, pushed

OID = "4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393"
V1 = "version https://git-lfs.github.com/spec/v1\n"


def pointer_text(oid: str, size: int) -> bytes:
    return f"{V1}oid sha256:{oid}\nsize {size}\n".encode()


def commit(api, token, path: str, data: bytes, repo="alice/open", branch=None) -> dict:
    body = {"content": base64.b64encode(data).decode()}
    if branch:
        body["new_branch"] = branch
    r = api.post(f"/repos/{repo}/contents/{path}", token=token, json=body)
    assert r.status == 201, r
    return r.json


def lfs_file(api, tokens, path="assets/big.bin", size=2048) -> tuple[bytes, str]:
    """An object uploaded and verified, and its pointer committed at ``path``."""
    data, oid = pushed(api, tokens, size)
    commit(api, tokens["alice"], path, pointer_text(oid, size))
    return data, oid


# The parser ---------------------------------------------------------------------------

def test_parse_reads_a_pointer():
    assert pointers.parse(pointer_text(OID, 12345)) == pointers.Pointer(OID, 12345)
    # Extension keys sort among the others; the older spec URL is still a pointer.
    ext = f"{V1}ext-0-foo sha256:{OID}\noid sha256:{OID}\nsize 0\n".encode()
    assert pointers.parse(ext) == pointers.Pointer(OID, 0)
    hawser = f"version https://hawser.github.com/spec/v1\noid sha256:{OID}\nsize 7\n"
    assert pointers.parse(hawser.encode()) == pointers.Pointer(OID, 7)


@pytest.mark.parametrize("text", [
    f"oid sha256:{OID}\n{V1}size 1\n",                        # version not first
    f"{V1}size 1\noid sha256:{OID}\n",                        # keys not sorted
    f"{V1}oid sha256:{OID.upper()}\nsize 1\n",                # upper-case hex
    f"{V1}oid sha256:{OID[:-1]}\nsize 1\n",                   # 63 hex characters
    f"{V1}oid sha1:{OID}\nsize 1\n",                          # another hash
    f"{V1}oid sha256:{OID}\nsize -1\n",                       # not digits
    f"{V1}oid sha256:{OID}\nsize 1e3\n",
    f"{V1}oid sha256:{OID}\nsize 1",                          # no final newline
    f"{V1}oid sha256:{OID}\r\nsize 1\r\n",                    # CRLF
    f"{V1}oid sha256:{OID}\n",                                # no size
    f"{V1}oid sha256:{OID}\noid sha256:{OID}\nsize 1\n",      # a key twice
    f"{V1}oid  sha256:{OID}\nsize 1\n",                       # two spaces
    f"{V1}Oid sha256:{OID}\nsize 1\n",                        # key out of [a-z0-9.-]
    "version https://example.com/spec/v1\n" f"oid sha256:{OID}\nsize 1\n",
    f"{V1}oid sha256:{OID}\nsize 1\n" + "x-pad " + "y" * 1024 + "\n",   # too large
    "",
])
def test_parse_refuses_anything_else(text):
    assert pointers.parse(text.encode()) is None


# /raw and /media ----------------------------------------------------------------------

def test_raw_answers_the_pointer_and_media_the_object(api, tokens):
    data, oid = lfs_file(api, tokens)
    raw = api.get("/repos/alice/open/raw/assets/big.bin")
    assert raw.status == 200 and raw.body == pointer_text(oid, len(data))
    for path in ("/repos/alice/open/media/assets/big.bin",
                 "/repos/alice/open/media/assets/big.bin?ref=main",
                 "/repos/alice/open/media/main/assets/big.bin"):
        media = api.get(path)
        assert media.status == 200, (path, media)
        assert media.body == data
        assert media.headers["content-type"] == "application/octet-stream"
        assert media.headers["content-disposition"] == "inline; filename*=UTF-8''big.bin"
        assert "sandbox" in media.headers["content-security-policy"]


def test_media_of_a_text_object_is_text(api, tokens):
    text = b"hello from LFS\n" * 10
    oid = hashlib.sha256(text).hexdigest()
    from tests.lfs.test_batch import VERIFY, lfs, upload_to_s3
    upload_to_s3(pool_of(api, None), oid, text)
    assert lfs(api, VERIFY, {"oid": oid, "size": len(text)}, token=tokens["alice"]).status == 200
    commit(api, tokens["alice"], "notes.txt", pointer_text(oid, len(text)))
    media = api.get("/repos/alice/open/media/notes.txt")
    assert media.body == text and media.headers["content-type"].startswith("text/plain")


def test_media_falls_back_to_the_blob(api, tokens):
    # A pointer whose object was never uploaded, and an ordinary file.
    _, missing = blob()
    commit(api, tokens["alice"], "missing.bin", pointer_text(missing, 1024))
    commit(api, tokens["alice"], "plain.txt", b"just text\n")
    media = api.get("/repos/alice/open/media/missing.bin")
    assert media.status == 200 and media.body == pointer_text(missing, 1024)
    assert api.get("/repos/alice/open/media/plain.txt").body == b"just text\n"
    # A pointer naming a held object with another size is not that object either.
    data, oid = pushed(api, tokens, 512)
    commit(api, tokens["alice"], "wrong-size.bin", pointer_text(oid, 513))
    assert api.get("/repos/alice/open/media/wrong-size.bin").body == pointer_text(oid, 513)
    assert api.get("/repos/alice/open/media/nothing-here").status == 404


def test_media_too_large_for_an_answer_redirects_to_s3(api, tokens):
    data, oid = lfs_file(api, tokens, size=4000)
    # (8192 - 4096) * 3/4 = 3072 bytes fit in a buffered answer of this size.
    with settings_env({"NIMBUS__SERVER__BUFFERED_RESPONSE_LIMIT": "8192"}):
        api_answer = api.get("/repos/alice/open/media/assets/big.bin")
        page_answer = api.get("/alice/open/media/branch/main/assets/big.bin?download=1",
                              raw=True)
    for answer in (api_answer, page_answer):
        assert answer.status == 302, answer
        url = urlsplit(answer.headers["location"])
        assert url.path.endswith(f"/lfs/{pool_of(api, None)}/{oid[:2]}/{oid[2:4]}/{oid}")
        assert "X-Amz-Signature" in parse_qs(url.query)
    disposition = parse_qs(urlsplit(page_answer.headers["location"]).query)[
        "response-content-disposition"][0]
    assert disposition == "attachment; filename*=UTF-8''big.bin"
    # Below the limit the answer carries the bytes.
    assert api.get("/repos/alice/open/media/assets/big.bin").body == data


def test_web_media_path_and_private_repositories(api, tokens):
    data, oid = lfs_file(api, tokens)
    page = api.get("/alice/open/media/branch/main/assets/big.bin", raw=True)
    assert page.status == 200 and page.body == data
    head = api.get("/repos/alice/open/branches/main", token=tokens["alice"]).json["commit"]["id"]
    assert api.get(f"/alice/open/media/commit/{head}/assets/big.bin", raw=True).body == data
    assert api.get("/alice/open/raw/branch/main/assets/big.bin", raw=True).body == \
        pointer_text(oid, len(data))
    # Private: 404 to strangers, the object to the owner.
    assert api.patch("/repos/alice/open", token=tokens["alice"],
                     json={"private": True}).status == 200
    assert api.get("/repos/alice/open/media/assets/big.bin", token=tokens["eve"]).status == 404
    assert api.get("/repos/alice/open/media/assets/big.bin").status == 404
    assert api.get("/alice/open/media/branch/main/assets/big.bin", raw=True).status == 404
    assert api.get("/repos/alice/open/media/assets/big.bin",
                   token=tokens["alice"]).body == data


# The contents API ---------------------------------------------------------------------

def test_contents_api_links_an_lfs_file_to_its_media(api, tokens):
    data, oid = lfs_file(api, tokens)
    commit(api, tokens["alice"], "assets/readme.txt", b"not a pointer\n")
    pointer = pointer_text(oid, len(data))
    one = api.get("/repos/alice/open/contents/assets/big.bin").json
    assert one["download_url"] == "http://nimbus.test/alice/open/media/branch/main/assets/big.bin"
    # As Forgejo: the size and content are the blob's (the pointer), so they agree.
    assert one["size"] == len(pointer) and base64.b64decode(one["content"]) == pointer
    listing = {e["name"]: e for e in api.get("/repos/alice/open/contents/assets").json}
    assert listing["big.bin"]["download_url"].endswith("/media/branch/main/assets/big.bin")
    assert listing["readme.txt"]["download_url"].endswith("/raw/branch/main/assets/readme.txt")
    # The link answers the object.
    link = urlsplit(one["download_url"])
    assert api.get(link.path, raw=True).body == data


# Archives -----------------------------------------------------------------------------

def test_archives_carry_the_objects(api, tokens):
    data, oid = lfs_file(api, tokens, size=3000)
    _, missing = blob()
    commit(api, tokens["alice"], "missing.bin", pointer_text(missing, 1024))
    commit(api, tokens["alice"], "plain.txt", b"plain\n")
    z = api.get("/repos/alice/open/archive/main.zip")
    assert z.status == 200, z
    with zipfile.ZipFile(io.BytesIO(z.body)) as zf:
        assert zf.read("open/assets/big.bin") == data
        assert zf.getinfo("open/assets/big.bin").file_size == len(data)
        assert zf.read("open/missing.bin") == pointer_text(missing, 1024)
        assert zf.read("open/plain.txt") == b"plain\n"
    t = api.get("/repos/alice/open/archive/main.tar.gz")
    assert t.status == 200, t
    with tarfile.open(fileobj=io.BytesIO(t.body), mode="r:gz") as tf:
        assert tf.extractfile("open/assets/big.bin").read() == data
        assert tf.extractfile("open/missing.bin").read() == pointer_text(missing, 1024)
        assert tf.extractfile("open/plain.txt").read() == b"plain\n"
        assert tf.getmember("open/plain.txt").mode == 0o644


def test_a_large_archive_is_built_without_holding_it(api, tokens, monkeypatch):
    """Above the direct limit in Lambda, the archive goes to S3 from its spooled file
    and the answer is the presigned URL; the object's bytes are in it."""
    from chalicelib import aws as aws_clients
    from chalicelib.contents import archives
    from chalicelib.settings import get_settings

    data, oid = lfs_file(api, tokens, size=5000)
    monkeypatch.setattr(archives, "DIRECT_LIMIT", 1024)
    monkeypatch.setenv("AWS_LAMBDA_FUNCTION_NAME", "nimbus-test")
    r = api.get("/repos/alice/open/archive/main.zip")
    monkeypatch.delenv("AWS_LAMBDA_FUNCTION_NAME")
    assert r.status == 302, r
    head = api.get("/repos/alice/open/branches/main").json["commit"]["id"]
    stored = aws_clients.client("s3").get_object(
        Bucket=get_settings().aws.BUCKET, Key=f"archives/{_repo_id()}/{head}.zip")["Body"].read()
    with zipfile.ZipFile(io.BytesIO(stored)) as zf:
        assert zf.read("open/assets/big.bin") == data


def _repo_id() -> int:
    from chalicelib.repos import store
    return int(store.get("alice", "open").id)


# The repository's size ----------------------------------------------------------------

def test_repository_size_counts_lfs_bytes(api, tokens):
    from chalicelib.repos import store
    from chalicelib.repos.models import Repo

    commit(api, tokens["alice"], "README.md", b"# open\n")
    before = api.get("/repos/alice/open").json["size"]
    store.get("alice", "open").update(actions=[Repo.lfs_size.set(10 * 1024 * 1024)])
    assert api.get("/repos/alice/open").json["size"] == before + 10 * 1024


# The file page ------------------------------------------------------------------------

def test_file_page_shows_an_lfs_file(api, tokens):
    from tests.lfs.test_batch import VERIFY, lfs, upload_to_s3

    data, oid = lfs_file(api, tokens, size=2048)
    page = api.get("/alice/open/src/branch/main/assets/big.bin", raw=True)
    assert page.status == 200, page
    html = page.body.decode()
    assert "Stored with Git LFS" in html and "2.0 KiB" in html
    assert 'href="/alice/open/media/branch/main/assets/big.bin"' in html
    assert "/alice/open/raw/branch/main/assets/big.bin" not in html
    assert "Binary file not shown" in html
    # A small text object is shown as any text file; its pointer is not.
    text = b"print('from LFS')\n"
    text_oid = hashlib.sha256(text).hexdigest()
    upload_to_s3(pool_of(api, None), text_oid, text)
    assert lfs(api, VERIFY, {"oid": text_oid, "size": len(text)},
               token=tokens["alice"]).status == 200
    commit(api, tokens["alice"], "tool.py", pointer_text(text_oid, len(text)))
    html = api.get("/alice/open/src/branch/main/tool.py", raw=True).body.decode()
    assert "from LFS" in html and "sha256:" not in html and "Stored with Git LFS" in html
    # A pointer whose object is missing is shown as the text it is.
    _, missing = blob()
    commit(api, tokens["alice"], "gone.bin", pointer_text(missing, 1024))
    html = api.get("/alice/open/src/branch/main/gone.bin", raw=True).body.decode()
    assert missing in html and "Stored with Git LFS" not in html


def test_file_page_of_a_large_lfs_object(api, tokens):
    from chalicelib.contents import files

    data, _ = lfs_file(api, tokens, size=files.SHOWN_LFS + 1)
    html = api.get("/alice/open/src/branch/main/assets/big.bin", raw=True).body.decode()
    assert "stored with Git LFS and too large to show" in html
