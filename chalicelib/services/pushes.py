"""What follows every ref change (git push, API, mirror sync): branch records for fast
lists, the repository's ``empty``/``size``/``updated``, and a push event per ref."""
from __future__ import annotations

import time

from chalicelib.services import events
from chalicelib.store import repos as repo_store
from chalicelib.store.table import BranchInfo, Item, Repo, keys

ZERO = "0" * 40
HEADS = "refs/heads/"
# Commits carried by one push event (Forgejo's feed keeps a few; the count is total).
MAX_EVENT_COMMITS = 20


def _split_identity(raw: bytes) -> tuple[str, str]:
    text = raw.decode("utf-8", "replace")
    if "<" in text and text.endswith(">"):
        name, _, email = text[:-1].partition("<")
        return name.strip(), email.strip()
    return text.strip(), ""


def branch_info(repo_id: int, name: str, commit) -> BranchInfo:
    author_name, author_email = _split_identity(commit.author)
    committer_name, committer_email = _split_identity(commit.committer)
    signature = commit.gpgsig or b""
    payload = commit.raw_without_sig() if signature else b""
    return BranchInfo(*keys.branch(repo_id, name), name=name, commit_id=commit.id.decode(),
                      message=commit.message.decode("utf-8", "replace"),
                      author_name=author_name, author_email=author_email,
                      author_time=int(commit.author_time), author_tz=int(commit.author_timezone),
                      committer_name=committer_name, committer_email=committer_email,
                      committer_time=int(commit.commit_time),
                      committer_tz=int(commit.commit_timezone),
                      signature=signature.decode("ascii", "replace"),
                      signed_payload=payload.decode("utf-8", "replace"))


def _pushed_commits(git, before: str, after: str) -> tuple[list, int]:
    """New commits on the ref, newest first (capped), and how many there are."""
    if after == ZERO:
        return [], 0
    exclude = [before.encode()] if before != ZERO else []
    walker = git.get_walker(include=[after.encode()], exclude=exclude)
    found, total = [], 0
    for entry in walker:
        total += 1
        if len(found) < MAX_EVENT_COMMITS:
            c = entry.commit
            author_name, author_email = _split_identity(c.author)
            committer_name, committer_email = _split_identity(c.committer)
            found.append(events.PushedCommit(
                id=c.id.decode(), message=c.message.decode("utf-8", "replace"),
                author_name=author_name, author_email=author_email,
                committer_name=committer_name, committer_email=committer_email,
                timestamp=int(c.author_time), tz_offset=int(c.author_timezone)))
    return found, total


def pool_size(pool_id: int) -> int:
    """Bytes of live packs in the repository's object pool (shared with its forks)."""
    from chalicelib.gitstore import packdb

    return sum(info.pack_size for info in packdb.list_packs(pool_id).values())


def after_update(repo: Repo, git, updates: list[tuple[str, str, str]], *,
                 actor_id: int | None) -> None:
    """Bring metadata in line with refs that moved (called after the refs committed)."""
    with BranchInfo.batch_write() as batch:
        for ref, _, new in updates:
            if not ref.startswith(HEADS):
                continue
            name = ref[len(HEADS):]
            if new == ZERO:
                batch.delete(BranchInfo(*keys.branch(int(repo.id), name)))
            else:
                batch.save(branch_info(int(repo.id), name, git[new.encode()]))
    has_branches = any(r.startswith(HEADS.encode()) for r in git.refs.allkeys())
    repo.update(actions=[Repo.empty.set(not has_branches), Repo.updated.set(int(time.time())),
                         Repo.size.set(pool_size(int(repo.pool_id)))])
    for ref, old, new in updates:
        commits, total = _pushed_commits(git, old, new)
        events.publish(events.RepositoryPushed(
            actor_id=actor_id, repo_id=int(repo.id), ref=ref, before=old, after=new,
            commits=tuple(commits), total_commits=total))


def apply_ref_updates(repo: Repo, git, updates: list[tuple[str, str | None, str | None]], *,
                      actor_id: int | None) -> None:
    """Move refs for the API (not a push): one transaction, then the follow-up."""
    normalized = [(ref, old or ZERO, new or ZERO) for ref, old, new in updates]
    git.refs.commit_updates([(ref.encode(), old.encode(), new.encode())
                             for ref, old, new in normalized])
    after_update(repo, git, normalized, actor_id=actor_id)


def refresh_branches(repo: Repo) -> None:
    """Rebuild every branch record from the refs (after a fork or a mirror sync)."""
    from chalicelib.gitstore import repo as gitrepo

    git = gitrepo.open_repo(int(repo.id), int(repo.pool_id))
    current = {item.name: item for item in Item.query(
        keys.repo_partition(int(repo.id)), Item.sk.startswith(keys.BRANCH_PREFIX))}
    heads = {ref.decode()[len(HEADS):]: sha for ref, sha in git.get_refs().items()
             if ref.startswith(HEADS.encode())}
    with BranchInfo.batch_write() as batch:
        for name, sha in heads.items():
            if name not in current or current[name].commit_id != sha.decode():
                batch.save(branch_info(int(repo.id), name, git[sha]))
        for name in current.keys() - heads.keys():
            batch.delete(BranchInfo(*keys.branch(int(repo.id), name)))
    repo.update(actions=[Repo.empty.set(not heads), Repo.updated.set(int(time.time()))])
    repo_store.session.forget((repo.pk, repo.sk))
