"""The releases step of a project migration (``steps.py``): each release with its
attachments, through ``releases``' import functions.

The cursor: ``page``, ``index`` (releases of the page done) and ``assets`` (-1: the
release at ``index`` is not written yet; n: it is, with its first n attachments).
An attachment's bytes are stored first (at a key derived from the release and the
source's attachment id, so a second try overwrites the same object), then its record
goes in one transaction with the cursor that counts it.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass

from chalicelib import releases
from chalicelib.errors import ConditionFailed
from chalicelib.migrations.turn import Run, commit, each_page

PER_PAGE = 20


def releases_step(run: Run) -> None:
    git = _git(run)
    each_page(run, lambda page_no: run.source.releases(page_no, PER_PAGE),
              lambda run, release, position: _one(run, release, position, git),
              {"assets": -1})


def _one(run: Run, source_release, index: int, git) -> None:
    page_no = int(run.cursor.get("page", 1))
    done = int(run.cursor.get("assets", -1))
    assets = list(source_release.assets)
    release = releases.imported_release(run.repo_id, source_release.tag_name)
    if done < 0 or release is None:
        author = run.author(source_release.author)

        def stage_release() -> None:
            releases.stage_imported_release(
                run.repo_id, tag_name=source_release.tag_name,
                target=source_release.target or run.state.get("default_branch", ""),
                title=source_release.name or source_release.tag_name,
                note=source_release.body or "", draft=bool(source_release.draft),
                prerelease=bool(source_release.prerelease),
                sha=_tag_commit(git, source_release.tag_name), publisher=author.account,
                created=int(source_release.published or source_release.created))
            run.count("releases")
            _cursor(run, page_no, index, 0, len(assets))
            run.advance()

        try:
            commit(run, stage_release)
        except ConditionFailed as failed:
            if failed.label != releases.RELEASE_TAG_TAKEN:
                raise
            # Written by an earlier turn whose cursor was lost with it: impossible while
            # the cursor moves in the same transaction, so the source has the tag twice.
            _cursor(run, page_no, index, len(assets), len(assets))
            commit(run, run.advance)
            return
        release = releases.imported_release(run.repo_id, source_release.tag_name)
        done = 0
    while done < len(assets):
        asset = assets[done]
        uuid = releases.imported_asset_uuid(run.repo_id, release.id, asset.id, asset.name)
        key, size = releases.store_imported_asset_bytes(
            run.repo_id, int(run.task.owner_id), uuid, asset.name,
            run.source.asset_stream(asset))
        written = done + 1
        stored = StoredAsset(uuid=uuid, name=asset.name, size=size, object_key=key,
                             created=int(asset.created or source_release.created),
                             download_count=int(asset.download_count))
        commit(run, functools.partial(_stage_asset, run, release, stored,
                                      (page_no, index, written, len(assets))))
        done = written


@dataclass(frozen=True)
class StoredAsset:
    """An attachment whose bytes are in S3, as its record will say."""
    uuid: str
    name: str
    size: int
    object_key: str
    created: int
    download_count: int


def _stage_asset(run: Run, release, stored: StoredAsset, place: tuple) -> None:
    """The attachment's record and the cursor past it (``place``: page, index, assets
    written with this one, assets of the release); every value bound by the caller."""
    releases.stage_imported_asset(
        run.repo_id, int(run.task.owner_id), release.id, uuid=stored.uuid, name=stored.name,
        size=stored.size, created=stored.created, uploader_id=int(release.publisher_id),
        download_count=stored.download_count, object_key=stored.object_key)
    run.count("assets")
    _cursor(run, *place)
    run.advance()


def _cursor(run: Run, page_no: int, index: int, done: int, total: int) -> None:
    run.cursor = {"page": page_no, "index": index + 1, "assets": -1} if done >= total \
        else {"page": page_no, "index": index, "assets": done}


def _tag_commit(git, tag: str) -> str:
    """The commit the fetched tag names (peeled); "" when the source's tag is missing."""
    from dulwich.objects import Tag

    try:
        obj = git[git.refs[f"refs/tags/{tag}".encode()]]
    except KeyError:
        return ""
    while isinstance(obj, Tag):
        obj = git[obj.object[1]]
    return obj.id.decode()


def _git(run: Run):
    from chalicelib.gitstore import repo as gitrepo

    return gitrepo.open_repo(run.repo_id, int(run.task.pool_id))
