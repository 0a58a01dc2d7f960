"""Avatars through the API, as a client sees them (under moto): every user, organization
and repository record's ``avatar_url`` serves a PNG from Nimbus itself; uploads change
it, deletes bring back the identicon, and who may is Forgejo's rule."""
from __future__ import annotations

import base64
import io
from urllib.parse import urlsplit

import pytest
from PIL import Image

ROOT = "http://nimbus.test/"
YEAR = "public, max-age=31536000, immutable"


def picture(size=(500, 300), colour=(20, 120, 220), fmt="PNG") -> str:
    out = io.BytesIO()
    Image.new("RGB", size, colour).save(out, format=fmt)
    return base64.b64encode(out.getvalue()).decode()


def fetch(api, url: str):
    """What a browser gets for ``url``: no credential, a PNG with a year's caching."""
    assert url.startswith(ROOT + "avatars/"), url
    r = api.get(urlsplit(url).path, raw=True)
    assert r.status == 200, r
    assert r.headers["content-type"] == "image/png"
    assert r.headers["cache-control"] == YEAR
    image = Image.open(io.BytesIO(r.body))
    image.load()
    assert image.format == "PNG"
    return image


@pytest.fixture
def people(api):
    """alice owns org ``acme`` (bob is in its admin team, not an owner) and her repo
    ``proj`` (bob writes to it); carol is a stranger."""
    tokens = {}
    for name in ("alice", "bob", "carol"):
        api.create_user(name)
        tokens[name] = api.create_token(name)
    alice = tokens["alice"]
    assert api.post("/orgs", token=alice, json={"username": "acme"}).status == 201
    team = api.post("/orgs/acme/teams", token=alice,
                    json={"name": "admins", "permission": "admin"}).json
    assert api.put(f"/teams/{team['id']}/members/bob", token=alice).status == 204
    assert api.post("/user/repos", token=alice, json={"name": "proj"}).status == 201
    assert api.put("/repos/alice/proj/collaborators/bob", token=alice,
                   json={"permission": "write"}).status == 204
    return tokens


def test_every_record_points_at_an_identicon_nimbus_serves(api, people):
    alice = people["alice"]
    user = api.get("/user", token=alice).json
    org = api.get("/orgs/acme").json
    repo = api.get("/repos/alice/proj", token=alice).json
    urls = {user["avatar_url"], org["avatar_url"], repo["avatar_url"],
            repo["owner"]["avatar_url"]}
    assert urls == {f"{ROOT}avatars/a{user['id']}", f"{ROOT}avatars/a{org['id']}",
                    f"{ROOT}avatars/r{repo['id']}"}
    pictures = [fetch(api, url).tobytes() for url in sorted(urls)]
    assert len(set(pictures)) == 3                           # one per subject
    # The same picture each time; HEAD answers the headers alone.
    assert fetch(api, user["avatar_url"]).tobytes() == fetch(api, user["avatar_url"]).tobytes()
    head = api.request("HEAD", urlsplit(user["avatar_url"]).path, raw=True)
    assert head.status == 200 and head.body == b""
    assert api.get("/avatars/nothing", raw=True).status == 404


def test_a_user_uploads_and_deletes_their_avatar(api, people):
    alice = people["alice"]
    before = api.get("/user", token=alice).json["avatar_url"]
    r = api.post("/user/avatar", token=alice, json={"image": picture()})
    assert r.status == 204 and r.body == b"", r
    after = api.get("/user", token=alice).json["avatar_url"]
    assert after != before and after.startswith(before + "-")
    image = fetch(api, after)
    assert image.size == (290, 290)
    assert image.convert("RGB").getpixel((10, 10)) == (20, 120, 220)
    # Everyone sees the same URL: profiles, repositories' owners.
    assert api.get("/users/alice").json["avatar_url"] == after
    assert api.get("/repos/alice/proj").json["owner"]["avatar_url"] == after
    # A JPEG is served as a PNG too; the URL changes with the picture.
    r = api.post("/user/avatar", token=alice, json={"image": picture((64, 64), fmt="JPEG")})
    assert r.status == 204
    newer = api.get("/user", token=alice).json["avatar_url"]
    assert newer != after and fetch(api, newer).size == (64, 64)
    assert api.get(urlsplit(after).path, raw=True).status == 404     # the old one is gone
    assert api.delete("/user/avatar", token=alice).status == 204
    assert api.get("/user", token=alice).json["avatar_url"] == before
    assert api.get(urlsplit(newer).path, raw=True).status == 404
    assert api.delete("/user/avatar").status == 401


def test_uploads_that_are_not_pictures_are_refused(api, people):
    alice = people["alice"]
    r = api.post("/user/avatar", token=alice, json={"image": "not/base64/at all"})
    assert r.status == 400 and "base64" in r.json["message"], r
    html = base64.b64encode(b"<html><script>alert(1)</script></html>").decode()
    r = api.post("/user/avatar", token=alice, json={"image": html})
    assert r.status == 422 and "not a PNG" in r.json["message"], r
    huge = base64.b64encode(b"\x89PNG" + b"0" * (1024 * 1024 + 10)).decode()
    r = api.post("/user/avatar", token=alice, json={"image": huge})
    assert r.status == 413 and "larger than the maximum" in r.json["message"], r
    assert api.get("/user", token=alice).json["avatar_url"].endswith(
        f"/avatars/a{api.get('/user', token=alice).json['id']}")


def test_organization_owners_change_its_avatar(api, people):
    for who in ("bob", "carol"):
        r = api.post("/orgs/acme/avatar", token=people[who], json={"image": picture()})
        assert r.status == 403 and r.json["message"] == "Must be an organization owner", r
        assert api.delete("/orgs/acme/avatar", token=people[who]).status == 403
    assert api.post("/orgs/acme/avatar", json={"image": picture()}).status == 401
    assert api.post("/orgs/acme/avatar", token=people["alice"],
                    json={"image": picture()}).status == 204
    url = api.get("/orgs/acme").json["avatar_url"]
    assert "-" in url.rsplit("/", 1)[1]
    assert fetch(api, url).size == (290, 290)
    assert api.delete("/orgs/acme/avatar", token=people["alice"]).status == 204
    assert "-" not in api.get("/orgs/acme").json["avatar_url"].rsplit("/", 1)[1]


def test_repository_admins_change_its_avatar(api, people):
    r = api.post("/repos/alice/proj/avatar", token=people["bob"], json={"image": picture()})
    assert r.status == 403, r
    # A stranger does not learn about a private repository.
    assert api.patch("/repos/alice/proj", token=people["alice"],
                     json={"private": True}).status == 200
    assert api.post("/repos/alice/proj/avatar", token=people["carol"],
                    json={"image": picture()}).status == 404
    assert api.post("/repos/alice/proj/avatar", token=people["alice"],
                    json={"image": picture(colour=(1, 200, 3))}).status == 204
    url = api.get("/repos/alice/proj", token=people["alice"]).json["avatar_url"]
    assert fetch(api, url).convert("RGB").getpixel((0, 0)) == (1, 200, 3)
    assert api.delete("/repos/alice/proj/avatar", token=people["alice"]).status == 204
    repo = api.get("/repos/alice/proj", token=people["alice"]).json
    assert repo["avatar_url"] == f"{ROOT}avatars/r{repo['id']}"
    assert api.get(urlsplit(url).path, raw=True).status == 404
