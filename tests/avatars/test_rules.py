"""Avatars' rules, on the in-memory twin (the fast layer): the identicon (deterministic,
symmetric, drawn without any outside service), what an upload becomes (a bounded square
PNG, named by its content hash), what is refused and with which error, who may change
which avatar, the URL every record carries, and the 4xx a client sees at the edge."""
from __future__ import annotations

import base64
import io
import json

import pytest
from PIL import Image

from chalicelib import accounts, avatars, repos
from chalicelib.avatars import images, links, object_store, service
from chalicelib.avatars.options import UpdateRepoAvatarOption, UpdateUserAvatarOption
from chalicelib.errors import BadInput, InvalidInput, NotFoundError, PermissionDenied, TooLarge
from chalicelib.settings import overridden
from tests import memory_scene as scene

ROOT = "http://nimbus.test/"


def picture(size=(600, 400), colour=(200, 30, 30), fmt="JPEG", mode="RGB") -> bytes:
    out = io.BytesIO()
    Image.new(mode, size, colour).save(out, format=fmt)
    return out.getvalue()


def upload(data: bytes, option=UpdateUserAvatarOption):
    return option(image=base64.b64encode(data).decode())


def decoded(png: bytes):
    image = Image.open(io.BytesIO(png))
    assert image.format == "PNG"
    image.load()
    return image


# The identicon ------------------------------------------------------------------------------

def test_an_identicon_is_the_same_picture_every_time_and_differs_between_subjects():
    first = images.identicon("a1")
    assert first == images.identicon("a1")
    assert first != images.identicon("a2") != images.identicon("r2")
    image = decoded(first)
    assert image.size == (images.SIZE, images.SIZE)
    # Two colours only: the background and the seed's colour.
    assert len(image.getcolors()) == 2


def test_an_identicon_is_symmetric_and_never_empty():
    for seed in ("a1", "a2", "r7", "a123456789"):
        colour, cells = images.identicon_cells(seed)
        assert cells and set(cells) == {(images.GRID - 1 - c, r) for c, r in cells}
        assert all(0 <= c < images.GRID and 0 <= r < images.GRID for c, r in cells)
        assert colour != images.BACKGROUND
        image = decoded(images.identicon(seed))
        assert image.transpose(Image.Transpose.FLIP_LEFT_RIGHT).tobytes() == image.tobytes()


# Keys and URLs ------------------------------------------------------------------------------

def test_a_key_names_the_subject_and_the_upload_and_nothing_else():
    digest = "ab" * 32
    assert links.parse("a12") == links.AvatarKey("a", 12, "")
    assert links.parse(f"r3-{digest}") == links.AvatarKey("r", 3, digest)
    assert links.parse(f"r3-{digest}").object_key == f"avatars/r/3/{digest}.png"
    for text in ("", "a", "a0", "x1", "a-1", "a1-", "a1-abc", f"a1-{digest.upper()}",
                 f"a1-{digest}.png", "../a1", "a1/..", "a01", "a" + "9" * 20):
        assert links.parse(text) is None, text
    assert avatars.avatar_link(avatars.ACCOUNT_AVATAR, 5, "") == ROOT + "avatars/a5"
    assert avatars.avatar_link(avatars.REPOSITORY_AVATAR, 5, digest) == \
        f"{ROOT}avatars/r5-{digest}"


def test_records_point_at_the_identicon_until_a_picture_is_uploaded(memory):
    alice = scene.user("alice")
    acme = scene.org(alice, "acme")
    view = scene.repo(alice, "proj")
    assert accounts.user_record(alice, None)["avatar_url"] == f"{ROOT}avatars/a{alice.id}"
    from chalicelib import orgs
    assert orgs.organization_record(acme)["avatar_url"] == f"{ROOT}avatars/a{acme.id}"
    record = repos.repository_record(view, alice)
    assert record["avatar_url"] == f"{ROOT}avatars/r{view.repo.id}"
    assert "gravatar" not in json.dumps([record, accounts.user_record(alice, alice)])


# Uploads ------------------------------------------------------------------------------------

def test_an_upload_is_stored_as_a_bounded_square_png_named_by_its_content(memory):
    alice = scene.user("alice")
    digest = service.update_account_avatar(alice, upload(picture((600, 400))))
    stored = scene.fresh(alice)
    assert stored.avatar == digest
    assert accounts.user_record(stored, None)["avatar_url"] == \
        f"{ROOT}avatars/a{alice.id}-{digest}"
    png = service.served(f"a{alice.id}-{digest}")
    image = decoded(png)
    assert image.size == (images.SIZE, images.SIZE)          # cropped square, scaled down
    assert image.getpixel((145, 145))[:3] == pytest.approx((200, 30, 30), abs=3)
    import hashlib
    assert hashlib.sha256(png).hexdigest() == digest
    # A small picture keeps its size; the transparency of a GIF is kept as RGBA.
    small = service.update_account_avatar(alice, upload(picture((40, 60), fmt="PNG")))
    assert decoded(service.served(f"a{alice.id}-{small}")).size == (40, 40)
    gif = service.update_account_avatar(
        scene.fresh(alice), upload(picture((30, 30), fmt="GIF", mode="P", colour=1)))
    assert decoded(service.served(f"a{alice.id}-{gif}")).mode in ("RGB", "RGBA")


def test_a_new_upload_replaces_the_old_picture_and_deleting_brings_back_the_identicon(memory):
    alice = scene.user("alice")
    first = service.update_account_avatar(alice, upload(picture(colour=(1, 2, 3))))
    second = service.update_account_avatar(scene.fresh(alice), upload(picture(colour=(9, 9, 9))))
    assert first != second
    assert object_store.read(links.avatar_key("a", alice.id, first).object_key) is None
    with pytest.raises(NotFoundError):
        service.served(f"a{alice.id}-{first}")
    service.delete_account_avatar(scene.fresh(alice))
    assert scene.fresh(alice).avatar == ""
    assert object_store.read(links.avatar_key("a", alice.id, second).object_key) is None
    assert service.served(f"a{alice.id}") == images.identicon(f"a{alice.id}")
    service.delete_account_avatar(scene.fresh(alice))            # nothing to delete: no error


def test_what_is_not_a_picture_within_the_limits_is_refused_and_nothing_is_stored(memory):
    alice = scene.user("alice")
    with pytest.raises(BadInput, match="base64"):
        service.update_account_avatar(alice, UpdateUserAvatarOption(image="not base64!"))
    for data in (b"", b"<script>alert(1)</script>", b"%PDF-1.4 hello",
                 picture(fmt="PNG")[:60]):                      # a truncated PNG
        with pytest.raises(InvalidInput, match="not a PNG, JPEG, GIF or WebP"):
            service.update_account_avatar(alice, upload(data))
    with overridden({"NIMBUS__PICTURE__AVATAR_MAX_FILE_SIZE": "2000"}):
        with pytest.raises(TooLarge, match="larger than the maximum of 2000 bytes"):
            service.update_account_avatar(alice, upload(b"x" * 3000))
    with overridden({"NIMBUS__PICTURE__AVATAR_MAX_WIDTH": "100"}):
        with pytest.raises(InvalidInput, match="600x400 pixels is larger"):
            service.update_account_avatar(alice, upload(picture((600, 400))))
    assert scene.fresh(alice).avatar == ""


def test_nothing_of_the_upload_but_its_pixels_is_served(memory):
    """A comment or a profile riding in the file (a polyglot's hiding place) is dropped."""
    from PIL import ImageCms, PngImagePlugin

    text = PngImagePlugin.PngInfo()
    text.add_text("Comment", "<script>alert(1)</script>")
    profile = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes()
    out = io.BytesIO()
    Image.new("RGB", (50, 50), (5, 6, 7)).save(out, format="PNG", pnginfo=text,
                                                icc_profile=profile)
    assert b"<script>" in out.getvalue()
    alice = scene.user("alice")
    png = service.served(f"a{alice.id}-" + service.update_account_avatar(
        alice, upload(out.getvalue())))
    assert b"<script>" not in png and b"iCCP" not in png and b"tEXt" not in png
    assert decoded(png).getpixel((0, 0)) == (5, 6, 7)


def test_line_breaks_in_the_base64_are_ignored(memory):
    alice = scene.user("alice")
    text = base64.encodebytes(picture()).decode()               # 76 characters a line
    assert "\n" in text
    assert service.update_account_avatar(alice, UpdateUserAvatarOption(image=text))


# Who may ------------------------------------------------------------------------------------

def test_only_an_organizations_owners_change_its_avatar(memory):
    from chalicelib.orgs import teams
    from chalicelib.orgs.options import CreateTeamOption

    alice, bob, carol = scene.user("alice"), scene.user("bob"), scene.user("carol")
    acme = scene.org(alice, "acme")
    admins = teams.create_team(alice, acme, CreateTeamOption(name="admins", permission="admin"))
    teams.add_team_member(alice, admins, bob)
    for who in (bob, carol, None):
        with pytest.raises(PermissionDenied, match="Must be an organization owner"):
            service.update_org_avatar(who, acme, upload(picture()))
        with pytest.raises(PermissionDenied):
            service.delete_org_avatar(who, acme)
    digest = service.update_org_avatar(alice, acme, upload(picture()))
    assert scene.fresh(acme).avatar == digest
    service.delete_org_avatar(alice, scene.fresh(acme))
    assert scene.fresh(acme).avatar == ""


def test_only_a_repositorys_admins_change_its_avatar(memory):
    people, view = scene.shared_repo("proj", others=("dave",))
    for name in ("bob", "carol", "dave"):                       # a writer, a reader, a stranger
        seen = repos.view_of(view.repo, scene.caller(people[name]))
        with pytest.raises(PermissionDenied, match="admin write of a repository"):
            service.update_repo_avatar(seen, upload(picture(), UpdateRepoAvatarOption))
    digest = service.update_repo_avatar(view, upload(picture(), UpdateRepoAvatarOption))
    stored = repos.repo_by_id(int(view.repo.id))
    assert stored.avatar == digest
    record = repos.repository_record(repos.view_of(stored, scene.caller(people["alice"])), None)
    assert record["avatar_url"] == f"{ROOT}avatars/r{view.repo.id}-{digest}"
    assert decoded(service.served(f"r{view.repo.id}-{digest}")).size == (images.SIZE,) * 2
    service.delete_repo_avatar(repos.view_of(stored, scene.caller(people["alice"])))
    assert repos.repo_by_id(int(view.repo.id)).avatar == ""
    with pytest.raises(NotFoundError):
        service.served(f"r{view.repo.id}-{digest}")


def test_unknown_keys_are_not_found(memory):
    for text in ("nothing", "a1-" + "0" * 64, "r1-" + "f" * 64):
        with pytest.raises(NotFoundError):
            service.served(text)


# At the edge --------------------------------------------------------------------------------

def test_the_api_answers_forgejo_shaped_4xx(fast_api):
    api = fast_api
    api.create_user("alice")
    token = api.create_token("alice")
    refused = {
        "not base64": ({"image": "%%%"}, 400, "base64"),
        "not an image": ({"image": base64.b64encode(b"GIF89a nope").decode()}, 422,
                         "not a PNG"),
        "no image": ({}, 422, "[Image]: Required"),
        "not a text": ({"image": 12}, 422, "Image"),
    }
    for name, (body, status, text) in refused.items():
        r = api.post("/user/avatar", token=token, json=body)
        assert r.status == status, (name, r)
        assert text in r.json["message"], (name, r.json)
        assert set(r.json) >= {"message", "url"}
    with overridden({"NIMBUS__PICTURE__AVATAR_MAX_FILE_SIZE": "1000"}):
        r = api.post("/user/avatar", token=token,
                     json={"image": base64.b64encode(picture((800, 800))).decode()})
    assert r.status == 413 and "maximum of 1000 bytes" in r.json["message"], r
    assert api.post("/user/avatar", json={"image": ""}).status == 401
    assert api.post("/orgs/nobody/avatar", token=token,
                    json={"image": base64.b64encode(picture()).decode()}).status == 404
    assert api.get("/avatars/a1-" + "0" * 64, raw=True).status == 404
    assert api.get("/avatars/..%2Fetc", raw=True).status == 404
