"""Release and attachment scenarios for bench/aws_calls.py (imported there).

Releases are made on alice/demo (auto-initialised by the scene) through the API; a page
of releases carries a few attachments so a page's cost includes reading them.
"""
from __future__ import annotations

from scene import Req, after

DEMO = "/repos/alice/demo"
BOUNDARY = "bench-boundary"


def new_release(s, draft: bool = False) -> dict:
    tag = s.unique("v0.")
    return s.must("POST", f"{DEMO}/releases", "token",
                  {"tag_name": tag, "name": f"release {tag}", "draft": draft})


def some_releases(s) -> dict:
    """A page's worth of releases (made once), the newest with attachments."""
    def make() -> dict:
        for _ in range(11):
            new_release(s)
        last = new_release(s)
        for _ in range(3):
            new_asset(s, last["id"])
        return last
    return s.once("releases", make)


def multipart(name: str, data: bytes) -> bytes:
    return (f"--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"attachment\"; "
            f"filename=\"{name}\"\r\nContent-Type: application/octet-stream\r\n\r\n").encode() \
        + data + f"\r\n--{BOUNDARY}--\r\n".encode()


def new_asset(s, release_id: int) -> dict:
    return upload_to(s, f"{DEMO}/releases/{release_id}")


def upload_to(s, path: str) -> dict:
    """A multipart upload to ``<path>/assets`` (a release, an issue or a comment)."""
    import json

    status, out = s.call("POST", f"/api/v1{path}/assets", "token",
                         data=multipart(s.unique("file-") + ".txt", b"bench bytes\n"),
                         content_type=f"multipart/form-data; boundary={BOUNDARY}")
    assert status == 201, (status, out[:200])
    return json.loads(out)


def release_with_asset(s) -> tuple[int, dict]:
    release = some_releases(s)
    return release["id"], new_asset(s, release["id"])


def pending_upload(s) -> tuple[int, int]:
    """A presigned upload whose bytes were PUT (straight to S3, as a client would)."""
    from chalicelib import aws
    from chalicelib.settings import get_settings

    release = some_releases(s)
    found = s.must("POST", f"{DEMO}/releases/{release['id']}/assets/upload"
                           f"?name={s.unique('big-')}.bin&size=5", "token")
    key = f"attachments/{found['upload_url'].split('/attachments/')[1].split('?')[0]}"
    aws.client("s3").put_object(Bucket=get_settings().aws.BUCKET, Key=key, Body=b"12345")
    return release["id"], found["id"]


def scenarios() -> dict:
    """operationId -> scenario, as in aws_calls.SCENARIOS."""
    def one(s) -> int:
        return some_releases(s)["id"]

    def tag(s) -> str:
        return some_releases(s)["tag_name"]

    return {
        "repoListReleases": lambda s: after(some_releases(s), [
            Req("GET", f"{DEMO}/releases"), Req("GET", f"{DEMO}/releases", "token")]),
        "repoCreateRelease": lambda s: [Req("POST", f"{DEMO}/releases", "token", {
            "tag_name": s.unique("measured-"), "name": "measured"}, 201)],
        "repoGetLatestRelease": lambda s: after(some_releases(s), [
            Req("GET", f"{DEMO}/releases/latest")]),
        "repoGetReleaseByTag": lambda s: [Req("GET", f"{DEMO}/releases/tags/{tag(s)}")],
        "repoDeleteReleaseByTag": lambda s: [
            Req("DELETE", f"{DEMO}/releases/tags/{new_release(s)['tag_name']}", "token",
                expect=204)],
        "repoGetRelease": lambda s: [Req("GET", f"{DEMO}/releases/{one(s)}"),
                                     Req("GET", f"{DEMO}/releases/{one(s)}", "token")],
        "repoEditRelease": lambda s: [Req("PATCH", f"{DEMO}/releases/{one(s)}", "token",
                                          {"body": s.unique("notes ")}, 200)],
        "repoDeleteRelease": lambda s: [
            Req("DELETE", f"{DEMO}/releases/{new_release(s)['id']}", "token", expect=204)],
        "repoListReleaseAttachments": lambda s: [
            Req("GET", f"{DEMO}/releases/{one(s)}/assets")],
        "repoCreateReleaseAttachment": lambda s: [
            Req("POST", f"{DEMO}/releases/{one(s)}/assets", "token", expect=201,
                data=multipart("measured.txt", b"x" * 1024),
                content_type=f"multipart/form-data; boundary={BOUNDARY}")],
        "repoCreateReleaseAttachmentUpload": lambda s: [
            Req("POST", f"{DEMO}/releases/{one(s)}/assets/upload?name=big.bin&size=100000000",
                "token", expect=201)],
        "repoConfirmReleaseAttachmentUpload": lambda s: [
            Req("POST", "{}/releases/{}/assets/{}/confirm".format(DEMO, *pending_upload(s)),
                "token", expect=201)],
        "repoGetReleaseAttachment": lambda s: [
            Req("GET", "{}/releases/{}/assets/{}".format(DEMO, *_ids(release_with_asset(s))))],
        "repoEditReleaseAttachment": lambda s: [
            Req("PATCH", "{}/releases/{}/assets/{}".format(DEMO, *_ids(release_with_asset(s))),
                "token", {"name": s.unique("renamed-")}, 201)],
        "repoDeleteReleaseAttachment": lambda s: [
            Req("DELETE", "{}/releases/{}/assets/{}".format(DEMO, *_ids(release_with_asset(s))),
                "token", expect=204)],
        "downloadAttachment": lambda s: [
            Req("GET", f"/attachments/{release_with_asset(s)[1]['uuid']}")],
    }


def _ids(found: tuple[int, dict]) -> tuple[int, int]:
    return found[0], found[1]["id"]
