"""Releases' rules, on the in-memory twin (the fast layer): tag names as git checks them,
one release per tag, drafts (no tag, seen by writers only, not counted) against
published releases (their tag made in the same write, ``num_releases`` on the repository
item), who may change releases, the latest release, and attachments: what they cost the
owner's quota, links, presigned uploads confirmed once, downloads counted, and the
settings' limits."""
from __future__ import annotations

import base64

import pytest

from chalicelib import clock, contents, repos
from chalicelib.errors import (ArchivedRepository, BadInput, ConflictError, InvalidInput,
                               NotFoundError, PermissionDenied, QuotaExceeded, TooLarge)
from chalicelib.contents import service as files
from chalicelib.contents.options import CreateFileOptions
from chalicelib.quota import admin as quota_admin
from chalicelib.quota import service as quota
from chalicelib.quota.options import CreateQuotaGroupOptions, CreateQuotaRuleOptions
from chalicelib.releases import assets, service
from chalicelib.releases import s3_objects as release_bytes
from chalicelib.releases.options import CreateReleaseOption, EditReleaseOption
from chalicelib.repo_admin import EditRepoOption
from chalicelib.repo_admin import service as repo_service
from tests import memory_scene as scene
from tests.environment import settings_env

NOT_WRITER = "user should have a permission to write to a repo"


class Project(dict):
    """alice's public ``proj`` (with a first commit): bob writes to it, carol reads it.
    ``project["bob"]`` is the releases as bob sees them now (a request's context: each
    operation takes a new one, as each request does)."""

    def __missing__(self, name):
        caller = scene.caller(self.people[name] if name else None)
        view = repos.view_of(repos.repo_by_id(self.repo_id), caller)
        return service.context(caller, view)

    @property
    def repo(self):
        return repos.repo_by_id(self.repo_id)

    def create(self, tag, who="bob", **fields):
        fields.setdefault("name", f"Release {tag}")
        return service.create_release(self[who], CreateReleaseOption(tag_name=tag, **fields))

    def tag(self, name):
        """The commit ``refs/tags/<name>`` holds, or None."""
        refs = contents.open_git(self.repo).refs
        found = refs.read_loose_ref(f"refs/tags/{name}".encode())
        return found.decode() if found else None

    def head(self):
        return contents.branch_info(self.repo_id, "main").commit_id

    def attachment_usage(self):
        return quota.used(int(self.people["alice"].id)).attachments_releases


@pytest.fixture
def project(memory):
    found = Project()
    found.people, view = scene.shared_repo("proj")
    found.repo_id = int(view.repo.id)
    return found


def test_tag_names_and_titles_are_checked_before_anything_is_written(project):
    with pytest.raises(InvalidInput, match=r"\[TagName\]: Required"):
        project.create("  ")
    for bad in ("v1..0", "-v1", ".v1", "v1/", "v1.", "a b", "v1~1", "v1^", "v:1", "v?",
                "v*", "v[1", "a\\b", "@", "v@{1}", "a//b", "a/.b", "x.lock/y", "x" * 256):
        with pytest.raises(InvalidInput, match=r"\[TagName\]: invalid tag name"):
            project.create(bad)
    with pytest.raises(InvalidInput, match="title is empty"):
        project.create("v1", name="")
    with pytest.raises(NotFoundError, match='target "nope" not found'):
        project.create("v1", target_commitish="nope")
    assert (project.repo.num_releases, project.tag("v1")) == (0, None)
    empty = scene.repo(project.people["alice"], "empty")
    caller = scene.caller(project.people["alice"])
    with pytest.raises(InvalidInput, match="repo is empty"):
        service.create_release(service.context(caller, empty), CreateReleaseOption(
            tag_name="v1", name="v1"))
    assert project.create("release/v1.0-rc.1").tag_name == "release/v1.0-rc.1"


def test_a_draft_has_no_tag_is_not_counted_and_is_seen_by_writers_only(project):
    draft = project.create("v1", draft=True, body="notes")
    assert (draft.sha, project.tag("v1"), project.repo.num_releases) == ("", None, 0)
    for name in ("carol", None):                           # a reader, anonymous
        with pytest.raises(NotFoundError, match=rf"release does not exist \[id: {draft.id}\]"):
            service.get_release(project[name], draft.id)
        assert service.list_releases(project[name], draft=True) == ([], 0)
    assert service.get_release(project["bob"], draft.id).note == "notes"
    with pytest.raises(NotFoundError, match=r"tag_name: latest"):
        service.latest(project[None])
    # Publishing makes the tag on the target's commit, in the same write as the release.
    published = service.edit_release(project["bob"], draft.id, EditReleaseOption(draft=False))
    assert published.sha == project.head() == project.tag("v1")
    assert project.repo.num_releases == 1
    assert service.by_tag(project["carol"], "v1").id == draft.id
    assert service.latest(project[None]).tag_name == "v1"
    # Deleting the release keeps its tag and gives the count back.
    service.delete_release(project["bob"], draft.id)
    assert (project.repo.num_releases, project.tag("v1")) == (0, published.sha)
    with pytest.raises(NotFoundError):
        service.get_release(project["bob"], draft.id)


def test_a_tag_has_one_release_and_an_existing_tag_is_used_as_it_is(project):
    first = project.create("v1")
    draft = project.create("v2", draft=True)
    for tag in ("v1", "v2"):                               # a draft holds its tag too
        with pytest.raises(ConflictError, match=rf"release tag already exist \[tag_name: "
                                                rf"{tag}\]"):
            project.create(tag)
    with pytest.raises(ConflictError, match=r"release tag already exist \[tag_name: v1\]"):
        service.edit_release(project["bob"], draft.id, EditReleaseOption(tag_name="v1"))
    # main moves on; a release on the old tag takes the tag's commit, not main's.
    view = repos.view_of(project.repo, scene.caller(project.people["alice"]))
    option = CreateFileOptions(content=base64.b64encode(b"more\n").decode())
    files.change_one(view, project.people["alice"], option, "more.txt")
    service.delete_release(project["bob"], first.id)
    again = project.create("v1", target_commitish="main")
    assert again.sha == first.sha != project.head()
    assert project.create("v3").sha == project.head()
    assert project.repo.num_releases == 2                   # v1 and v3; v2 is a draft


def test_only_writers_change_releases_and_strangers_see_no_private_ones(project):
    made = project.create("v1")
    with pytest.raises(PermissionDenied, match=NOT_WRITER):
        project.create("v2", who="carol")
    with pytest.raises(PermissionDenied, match=NOT_WRITER):
        service.edit_release(project["carol"], made.id, EditReleaseOption(name="mine"))
    with pytest.raises(PermissionDenied, match=NOT_WRITER):
        service.delete_release(project[None], made.id)
    alice = project.people["alice"]
    hidden = scene.repo(alice, "hidden", private=True, auto_init=True)
    stranger = scene.caller(scene.user("dave"))
    with pytest.raises(NotFoundError, match="repository does not exist"):
        service.context(stranger, repos.view_of(hidden.repo, stranger))
    # An archived repository keeps its releases and refuses changes.
    view = repos.view_of(project.repo, scene.caller(alice))
    repo_service.edit_repo(scene.caller(alice), view, EditRepoOption(archived=True))
    with pytest.raises(ArchivedRepository):
        project.create("v2", who="alice")
    assert service.list_releases(project["carol"])[1] == 1


def test_the_list_is_newest_first_and_latest_skips_drafts_and_prereleases(project):
    with clock.frozen(1_700_000_000) as at:
        for tag, fields in (("v1", {}), ("v2-rc", {"prerelease": True}),
                            ("v3", {"draft": True, "body": "coming soon"})):
            project.create(tag, **fields)
            at.advance(60)

    def tags(who="bob", **query):
        found, total = service.list_releases(project[who], **query)
        return [r.tag_name for r in found], total

    assert tags() == (["v3", "v2-rc", "v1"], 3)
    assert tags("carol") == (["v2-rc", "v1"], 2)
    assert tags(prerelease=False) == (["v3", "v1"], 2)
    assert tags(draft=True) == (["v3"], 1)
    assert tags(keyword="SOON") == (["v3"], 1)           # title, tag or notes, any case
    assert tags(offset=1, limit=1) == (["v2-rc"], 3)
    assert service.latest(project["carol"]).tag_name == "v1"


def test_attachments_cost_the_owner_and_leave_with_their_release(project):
    release = project.create("v1")
    stored = assets.upload(project["bob"], release.id, name="tool.bin", data=b"x" * 100)
    linked = assets.add_external(project["bob"], release.id, name="",
                                 url="https://example.com/dl/tool.tgz")
    assert (linked.name, linked.size, project.attachment_usage()) == ("tool.tgz", 0, 100)
    with pytest.raises(BadInput, match="invalid external URL: 'javascript:alert"):
        assets.add_external(project["bob"], release.id, name="x", url="javascript:alert(1)")
    with pytest.raises(BadInput, match="existing attachment is not external"):
        assets.edit_asset(project["bob"], release.id, stored.id, assets.EditAttachmentOptions(
            browser_download_url="https://example.com/other"))
    with pytest.raises(PermissionDenied, match=NOT_WRITER):
        assets.upload(project["carol"], release.id, name="mine.bin", data=b"y")
    # Downloads are counted for whoever may read the release.
    reader = scene.caller(project.people["carol"])
    got = assets.download(reader, stored.uuid)
    assets.download(scene.caller(None), stored.uuid)
    assert (got.name, got.data) == ("tool.bin", b"x" * 100)
    shown = service.get_release(project["carol"], release.id).assets
    assert [(a.name, a.download_count) for a in shown] == [("tool.bin", 2), ("tool.tgz", 0)]
    service.delete_release(project["bob"], release.id)
    assert project.attachment_usage() == 0
    assert release_bytes.size_of(stored.s3_key) is None
    with pytest.raises(NotFoundError):
        assets.download(reader, stored.uuid)


def test_a_presigned_upload_is_confirmed_once_with_its_real_size(project):
    release = project.create("v1")
    upload = assets.start_upload(project["bob"], release.id, name="big.bin", size=5)
    assert upload.url and project.attachment_usage() == 0        # pending: not charged
    with pytest.raises(InvalidInput, match="nothing was uploaded yet"):
        assets.confirm_upload(project["bob"], release.id, upload.asset.id)
    release_bytes.put(upload.asset.s3_key, b"four")
    with pytest.raises(InvalidInput, match="the upload has 4 bytes, not the 5 announced"):
        assets.confirm_upload(project["bob"], release.id, upload.asset.id)
    assert service.get_release(project["bob"], release.id).assets == ()   # still pending
    release_bytes.put(upload.asset.s3_key, b"fives")
    ready = assets.confirm_upload(project["bob"], release.id, upload.asset.id)
    again = assets.confirm_upload(project["bob"], release.id, upload.asset.id)
    assert (ready.state, ready.size, again.state) == ("ready", 5, "ready")
    assert project.attachment_usage() == 5                        # charged once


def test_uploads_are_held_to_the_settings_and_the_owner_s_quota(project):
    release = project.create("v1")

    def upload(name="a.bin", data=b"x" * 100):
        return assets.upload(project["bob"], release.id, name=name, data=data)

    with pytest.raises(BadInput, match="Missing 'name' parameter"):
        upload(name="")
    with settings_env({"NIMBUS__REPOSITORY_0X2E_RELEASE__ALLOWED_TYPES": ".zip,image/*"}):
        with pytest.raises(InvalidInput, match="not allowed to be uploaded. Type: text/plain"):
            upload(name="notes.txt")
        assert upload(name="pic", data=b"\x89PNG\r\n\x1a\n....").name == "pic"   # sniffed
    with settings_env({"NIMBUS__ATTACHMENT__MAX_SIZE": "1"}):
        with pytest.raises(TooLarge, match="larger than the maximum of 1 MiB"):
            upload(data=b"x" * (1024 * 1024 + 1))
    with settings_env({"NIMBUS__ATTACHMENT__ENABLED": "false"}):
        with pytest.raises(NotFoundError, match="Attachment is not enabled"):
            upload()
    quota_admin.create_group(CreateQuotaGroupOptions(name="assets", rules=[
        CreateQuotaRuleOptions(name="assets", limit=150,
                               subjects=["size:assets:attachments:releases"])]))
    quota_admin.add_member("assets", project.people["alice"])    # the owner pays
    with settings_env({"NIMBUS__QUOTA__ENABLED": "true"}):
        upload()                                                  # 12 + 100 of 150
        with pytest.raises(QuotaExceeded) as refused:
            upload()
        assert refused.value.username == "alice"
    assert project.attachment_usage() == 112
