"""The signed-in user's settings pages (chalicelib/web/settings_user, settings_account,
settings_user_keys), in-process under moto through the gateway: each form changes what
the API then returns, refuses bad input beside its field with nothing written, needs
its CSRF token, sends visitors to sign in, and reaches only the caller's own records."""
from __future__ import annotations

import io
import re
import uuid
import warnings
from urllib.parse import urlsplit

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ed25519
from PIL import Image

from tests.web.test_web_actions import PASSWORD, WebUser, error_shown, field_error_shown, text

NEW_PASSWORD = "a-new-secret-2"


@pytest.fixture
def people(api):
    """alice and bob, each signed in, each with a token for the API's view."""
    for name in ("alice", "bob"):
        api.create_user(name)
    tokens = {n: api.create_token(n) for n in ("alice", "bob")}
    return {"tokens": tokens, "alice": WebUser(api).sign_in("alice"),
            "bob": WebUser(api).sign_in("bob"), "anonymous": WebUser(api)}


def ssh_key(comment: str = "me@host") -> str:
    key = ed25519.Ed25519PrivateKey.generate().public_key()
    line = key.public_bytes(serialization.Encoding.OpenSSH, serialization.PublicFormat.OpenSSH)
    return f"{line.decode()} {comment}"


def gpg_key(email: str):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import pgpy
        from pgpy.constants import EllipticCurveOID, HashAlgorithm, KeyFlags, PubKeyAlgorithm

        key = pgpy.PGPKey.new(PubKeyAlgorithm.EdDSA, EllipticCurveOID.Ed25519)
        key.add_uid(pgpy.PGPUID.new("Someone", email=email),
                    usage={KeyFlags.Sign, KeyFlags.Certify}, hashes=[HashAlgorithm.SHA256])
        return key


def png(size=(40, 30), colour=(200, 40, 40)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, colour).save(out, format="PNG")
    return out.getvalue()


def upload(user: WebUser, data: bytes, *, filename: str = "me.png", csrf: str | None = "fresh"):
    """The avatar form as a browser posts it: multipart/form-data with the token field."""
    boundary = uuid.uuid4().hex
    parts = []
    if csrf is not None:
        token = user.token("/user/settings") if csrf == "fresh" else csrf
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="_csrf"\r\n\r\n'
                     f'{token}\r\n'.encode())
    parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="avatar"; '
                 f'filename="{filename}"\r\nContent-Type: image/png\r\n\r\n'.encode()
                 + data + b"\r\n")
    body = b"".join(parts) + f"--{boundary}--\r\n".encode()
    return user.request("POST", "/user/settings/avatar", body,
                        **{"Content-Type": f"multipart/form-data; boundary={boundary}"})


def me(api, token: str) -> dict:
    return api.get("/user", token=token).json


def test_profile_edit_shows_in_the_api_and_on_the_profile(api, people):
    alice, token = people["alice"], people["tokens"]["alice"]
    form = alice.get("/user/settings")
    assert form.status == 200 and 'name="full_name"' in text(form)
    assert 'aria-label="User settings"' in text(form) and 'href="/user/settings/keys"' in text(form)
    saved = alice.post("/user/settings", {
        "full_name": "Alice Liddell", "description": "Down the rabbit hole",
        "website": "https://alice.example", "location": "Wonderland", "pronouns": "she/her",
        "language": "en-GB", "theme": "forgejo-dark", "hide_email": "on"})
    assert saved.status == 303 and saved.headers["location"] == "/user/settings"
    record = me(api, token)
    assert (record["full_name"], record["description"], record["website"], record["location"],
            record["pronouns"]) == ("Alice Liddell", "Down the rabbit hole",
                                    "https://alice.example", "Wonderland", "she/her")
    settings = api.get("/user/settings", token=token).json
    assert settings["language"] == "en-GB" and settings["theme"] == "forgejo-dark"
    assert settings["hide_email"] is True and settings["hide_activity"] is False
    profile = text(people["anonymous"].get("/alice"))
    assert "Alice Liddell" in profile and "Down the rabbit hole" in profile
    assert '<a href="https://alice.example"' in profile and "Wonderland" in profile
    again = text(alice.get("/user/settings"))
    assert 'value="Alice Liddell"' in again and '<option value="forgejo-dark" selected>' in again


def test_profile_text_is_escaped_and_bad_input_is_refused_beside_the_field(api, people):
    alice, token = people["alice"], people["tokens"]["alice"]
    script = '<script>alert("x")</script>'
    assert alice.post("/user/settings", {"full_name": script, "description": script,
                                         "website": ""}).status == 303
    for page in (alice.get("/user/settings"), people["anonymous"].get("/alice")):
        assert "<script>alert" not in text(page) and "&lt;script&gt;" in text(page)
    # A javascript: website is refused (the API's Url rule) and never becomes a link.
    bad = alice.post("/user/settings", {"full_name": "Alice", "website": "javascript:alert(1)"})
    assert bad.status == 422 and field_error_shown(bad, "website", "Url")
    assert 'value="javascript:alert(1)"' in text(bad)      # typed values are kept
    assert me(api, token)["website"] == "" and me(api, token)["full_name"] == script
    assert 'href="javascript:' not in text(people["anonymous"].get("/alice"))
    long = alice.post("/user/settings", {"full_name": "x" * 101})
    assert long.status == 422 and field_error_shown(long, "full_name", "MaxSize")
    assert me(api, token)["full_name"] == script


def test_avatar_upload_and_delete(api, people):
    alice, token = people["alice"], people["tokens"]["alice"]
    identicon_url = me(api, token)["avatar_url"]
    identicon = api.get(urlsplit(identicon_url).path, raw=True).body
    assert upload(alice, png()).status == 303
    uploaded_url = me(api, token)["avatar_url"]
    assert uploaded_url != identicon_url
    served = api.get(urlsplit(uploaded_url).path, raw=True)
    assert served.status == 200 and served.body != identicon
    image = Image.open(io.BytesIO(served.body))
    assert image.format == "PNG" and image.getpixel((0, 0))[:3] == (200, 40, 40)
    assert urlsplit(uploaded_url).path in text(alice.get("/user/settings"))
    # Not a picture, too large, nothing chosen: beside the field, the avatar unchanged.
    for data, status, message in ((b"<html>no</html>", 422, "not a PNG"),
                                  (b"\x89PNG" + b"0" * (1024 * 1024 + 10), 413, "larger"),
                                  (b"", 422, "choose a picture")):
        refused = upload(alice, data, filename="x.png" if data else "")
        assert refused.status == status and field_error_shown(refused, "avatar", message)
        assert me(api, token)["avatar_url"] == uploaded_url
    assert upload(alice, png(), csrf=None).status == 403
    assert alice.post("/user/settings/avatar/delete", {}).status == 303
    assert me(api, token)["avatar_url"] == identicon_url


def test_password_change(api, people):
    alice = people["alice"]
    wrong = alice.post("/user/settings/account", {
        "old_password": "not-it", "password": NEW_PASSWORD, "retype": NEW_PASSWORD})
    assert wrong.status == 422 and field_error_shown(wrong, "old_password", "not correct")
    assert NEW_PASSWORD not in text(wrong)
    mismatch = alice.post("/user/settings/account", {
        "old_password": PASSWORD, "password": NEW_PASSWORD, "retype": "something-else"})
    assert mismatch.status == 422 and field_error_shown(mismatch, "retype", "do not match")
    short = alice.post("/user/settings/account", {
        "old_password": PASSWORD, "password": "short", "retype": "short"})
    assert short.status == 422 and field_error_shown(short, "password", "too short")
    # Nothing changed: the old password still signs in, the new one does not.
    assert api.get("/user", auth=("alice", PASSWORD)).status == 200
    assert api.get("/user", auth=("alice", NEW_PASSWORD)).status == 401
    other_browser = WebUser(api).sign_in("alice")
    done = alice.post("/user/settings/account", {
        "old_password": PASSWORD, "password": NEW_PASSWORD, "retype": NEW_PASSWORD})
    assert done.status == 303 and done.headers["location"].startswith("/user/settings/account")
    # This browser was signed in again; the other session ended with the old password.
    assert "Your password has been changed" in text(alice.get(done.headers["location"]))
    assert other_browser.get("/user/settings").status == 303
    assert api.get("/user", auth=("alice", NEW_PASSWORD)).status == 200
    assert api.get("/user", auth=("alice", PASSWORD)).status == 401
    login = WebUser(api).post("/user/login", {"user_name": "alice", "password": PASSWORD})
    assert login.status != 303


def test_email_addresses(api, people):
    alice, token = people["alice"], people["tokens"]["alice"]
    page = text(alice.get("/user/settings/account"))
    assert "alice@example.com" in page and "Primary" in page
    assert alice.post("/user/settings/account/email", {"email": "al@example.org"}).status == 303
    listed = {e["email"]: e["primary"] for e in api.get("/user/emails", token=token).json}
    assert listed == {"alice@example.com": True, "al@example.org": False}
    for taken in ("al@example.org", "BOB@example.com"):
        dup = alice.post("/user/settings/account/email", {"email": taken})
        assert dup.status == 422 and field_error_shown(dup, "email", "has been used")
        assert f'value="{taken}"' in text(dup)
    bad = alice.post("/user/settings/account/email", {"email": "not an address"})
    assert bad.status == 422 and field_error_shown(bad, "email", "invalid")
    assert len(api.get("/user/emails", token=token).json) == 2
    # The primary address stays; another one goes.
    primary = alice.post("/user/settings/account/email/delete", {"email": "alice@example.com"})
    assert primary.status == 422 and error_shown(primary, "primary")
    assert alice.post("/user/settings/account/email/delete",
                      {"email": "al@example.org"}).status == 303
    assert [e["email"] for e in api.get("/user/emails", token=token).json] == \
        ["alice@example.com"]
    # bob cannot delete alice's address: it is not among his.
    assert people["bob"].post("/user/settings/account/email/delete",
                              {"email": "alice@example.com"}).status == 404


def test_ssh_keys(api, people):
    alice, token = people["alice"], people["tokens"]["alice"]
    key = ssh_key()
    assert alice.post("/user/settings/keys", {"type": "ssh", "title": "laptop",
                                              "content": key}).status == 303
    [record] = api.get("/user/keys", token=token).json
    assert record["title"] == "laptop"
    page = text(alice.get("/user/settings/keys"))
    assert "laptop" in page and record["fingerprint"] in page
    garbage = alice.post("/user/settings/keys", {"type": "ssh", "title": "junk",
                                                 "content": "ssh-ed25519 AAAAnotbase64!!"})
    assert garbage.status == 422 and field_error_shown(garbage, "ssh_content", "Invalid key")
    assert 'value="junk"' in text(garbage)
    again = alice.post("/user/settings/keys", {"type": "ssh", "title": "again", "content": key})
    assert again.status == 422 and field_error_shown(again, "ssh_content", "has been used")
    untitled = alice.post("/user/settings/keys", {"type": "ssh", "title": " ",
                                                  "content": ssh_key()})
    assert untitled.status == 422 and field_error_shown(untitled, "ssh_title", "Required")
    assert len(api.get("/user/keys", token=token).json) == 1
    # bob cannot delete alice's key by its id: the 404 page, the key stays.
    stolen = people["bob"].post("/user/settings/keys/delete", {"type": "ssh",
                                                               "id": record["id"]})
    assert stolen.status == 404 and len(api.get("/user/keys", token=token).json) == 1
    assert alice.post("/user/settings/keys/delete", {"type": "ssh", "id": record["id"]},
                      csrf=None).status == 403
    assert alice.post("/user/settings/keys/delete", {"type": "ssh",
                                                     "id": record["id"]}).status == 303
    assert api.get("/user/keys", token=token).json == []


def test_gpg_keys(api, people):
    alice, token = people["alice"], people["tokens"]["alice"]
    key = gpg_key("alice@example.com")
    assert alice.post("/user/settings/keys", {"type": "gpg",
                                              "content": str(key.pubkey)}).status == 303
    [record] = api.get("/user/gpg_keys", token=token).json
    assert record["key_id"] == key.fingerprint.keyid.upper()
    assert record["key_id"] in text(alice.get("/user/settings/keys"))
    for content, message in (("garbage", "failed to parse"),
                             (str(gpg_key("someone@else.example").pubkey), "none of the emails"),
                             (str(key.pubkey), "same id")):
        refused = alice.post("/user/settings/keys", {"type": "gpg", "content": content})
        assert refused.status == 422 and field_error_shown(refused, "gpg_content", message)
    assert len(api.get("/user/gpg_keys", token=token).json) == 1
    stolen = people["bob"].post("/user/settings/keys/delete", {"type": "gpg",
                                                               "id": record["id"]})
    assert stolen.status == 404 and len(api.get("/user/gpg_keys", token=token).json) == 1
    assert alice.post("/user/settings/keys/delete", {"type": "gpg",
                                                     "id": record["id"]}).status == 303
    assert api.get("/user/gpg_keys", token=token).json == []


PAGES = ("/user/settings", "/user/settings/account", "/user/settings/keys")
POSTS = ("/user/settings", "/user/settings/avatar/delete", "/user/settings/account",
         "/user/settings/account/email", "/user/settings/account/email/delete",
         "/user/settings/keys", "/user/settings/keys/delete")


def test_visitors_are_sent_to_sign_in_and_forms_need_their_token(api, people):
    visitor = people["anonymous"]
    for path in PAGES:
        found = visitor.get(path)
        assert found.status == 303 and found.headers["location"].startswith(
            "/user/login?redirect_to=" + path.replace("/", "%2F")), path
    for path in POSTS:
        sent = visitor.post(path, {"email": "x@example.com"}, csrf=visitor.token("/user/login"))
        assert sent.status == 303 and sent.headers["location"].startswith("/user/login"), path
        assert people["alice"].post(path, {"full_name": "Nope", "email": "x@example.com"},
                                    csrf=None).status == 403, path
    assert me(api, people["tokens"]["alice"])["full_name"] == ""
    assert len(api.get("/user/emails", token=people["tokens"]["alice"]).json) == 1


def test_navigation(api, people):
    alice = people["alice"]
    for path, current in (("/user/settings", "Profile"), ("/user/settings/account", "Account"),
                          ("/user/settings/keys", "SSH / GPG keys"),
                          ("/user/settings/applications", "Applications")):
        page = text(alice.get(path))
        assert re.search(rf'<a href="{path}" aria-current="page">{re.escape(current)}</a>', page)
        assert '<a href="/user/settings">Settings</a>' in page
