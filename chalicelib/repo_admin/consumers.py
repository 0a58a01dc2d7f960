"""The internal consumer of repository deletions: what a deleted repository leaves
outside its records is cleaned up from the events queue, off the request path.

- its cached source archives in S3 (``archives/<repo id>/``);
- its release attachments' bytes in S3 (``attachments/<repo id>/``) and download links;
- its pull-mirror schedule entry, and its push mirrors' entries;
- what it needed of its pool's Git LFS objects (``lfs.consumers.release``: listed in
  its partition, so before the partition goes);
- its topics' counts, and the topics only it had (``repos.forget_repo_topics``: their
  links are in its partition too);
- its refs, its ``R#<id>`` partition (branch records, collaborations, issues, hooks,
  deploy keys with the fingerprint claims that are still theirs) and, when no
  repository uses it any more, its object pool (``repo_lifecycle.purge``).

A deletion kept restorable (``RepositoryDeleted(restorable=True)``, ``deletion.py``)
only drops the cached archives (they are made again on demand): the rest stays for a
restore, and is cleaned up as above once the purge schedule raises ``RepositoryPurged``
(``deleted_purge.py``).  The pull-mirror schedule entry stays too (the sync job skips a
repository that is not there); a restore puts back the push mirrors' entries.

Every step is idempotent, so a redelivered event does no harm.  The queue worker
(``chalicelib.jobs.consumers``) registers this consumer as ``repository-cleanup``, for
both events.
"""
from __future__ import annotations

from chalicelib import events as domain_events


def on_repository_deleted(event: domain_events.Event) -> None:
    from chalicelib import contents, lfs, releases, repos
    from chalicelib.repo_admin import lifecycle as repo_lifecycle
    from chalicelib.repo_admin import migrations, push_mirror_sync

    assert isinstance(event, (domain_events.RepositoryDeleted, domain_events.RepositoryPurged))
    contents.forget_repo_archives(event.repo_id)
    if isinstance(event, domain_events.RepositoryDeleted) and event.restorable:
        return      # kept for a restore until the purge (RepositoryPurged)
    # Release attachments: their download links (outside the partition) and bytes.
    releases.forget_repo_assets(event.repo_id, int(event.repo.get("owner_id") or 0))
    migrations.unschedule(event.repo_id)
    # Its push mirrors' schedule entries: the mirrors are in the partition, so before it goes.
    push_mirror_sync.forget_repo(event.repo_id)
    lfs.release_needs(event)
    # Its topics counted down: their links are in the partition, so before it goes.
    repos.forget_repo_topics(event.repo_id)
    # Its wiki: refs and pool of their own, keyed by the repository's id.
    from chalicelib import wiki
    wiki.delete_wiki(event.repo_id)
    repo_lifecycle.purge(event.repo_id, int(event.repo.get("pool_id") or 0))
