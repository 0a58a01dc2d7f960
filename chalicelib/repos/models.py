"""The repos domain's items in the table: its models (and key layouts).

Only this domain's modules import this module; other domains reach these items
through the domain's face (``chalicelib/repos/__init__.py``).
"""
from __future__ import annotations

from pynamodb.attributes import (BooleanAttribute, NumberAttribute, NumberSetAttribute,
                                 UnicodeAttribute, UnicodeSetAttribute)

from chalicelib.store.keys import keys as shared_keys
from chalicelib.store.table import Item


class Repo(Item, discriminator="repo"):
    """A repository, keyed by its owner's and its own lower-case name, so a request
    naming ``owner/repo`` finds it with one read; everything else about the repository
    is keyed by the immutable ``id``."""
    id = NumberAttribute()
    owner_id = NumberAttribute()
    owner_login = UnicodeAttribute()
    name = UnicodeAttribute()
    lower_name = UnicodeAttribute()
    description = UnicodeAttribute(default="")
    website = UnicodeAttribute(default="")
    private = BooleanAttribute(default=False)
    template = BooleanAttribute(default=False)
    archived = BooleanAttribute(default=False)
    archived_at = NumberAttribute(default=0)
    empty = BooleanAttribute(default=True)
    default_branch = UnicodeAttribute()
    object_format = UnicodeAttribute(default="sha1")
    size = NumberAttribute(default=0)           # bytes of live packs in its object pool
    # Bytes of the packs charged to this repository (its quota usage): the packs its
    # ref changes brought in, as received (quota/charges.py, docs/quota.md).
    quota_size = NumberAttribute(default=0)
    # Teams of the owning organization that were given this repository.
    team_ids = NumberSetAttribute(null=True)
    # The repository's topics (at most 25, lower-case; topic_store.py changes them with
    # ADD/DELETE on conditions, with the topic index items in the same transaction).
    topics = UnicodeSetAttribute(null=True)
    # How many branch and tag protection rules the repository has (protection/store.py
    # keeps it with the rules, in one transaction): a ref change in a repository without
    # rules reads nothing more to know that none applies.
    protection_rules = NumberAttribute(default=0)
    # Bytes of the Git LFS objects the repository's pushes point at (lfs/needs.py keeps
    # it with the repository's need items): the API's ``size`` adds it to the packs.
    lfs_size = NumberAttribute(default=0)
    # How many Git LFS locks the repository holds (lfs/locks store keeps it with the
    # locks, in one transaction): a push to a repository without locks reads none.
    lfs_locks = NumberAttribute(default=0)
    # Forks share their parent's object pool (packs), so a fork costs no copying.
    pool_id = NumberAttribute()
    fork = BooleanAttribute(default=False)
    parent_id = NumberAttribute(default=0)
    num_forks = NumberAttribute(default=0)
    num_stars = NumberAttribute(default=0)
    num_watches = NumberAttribute(default=0)
    num_open_issues = NumberAttribute(default=0)
    num_open_pulls = NumberAttribute(default=0)
    num_releases = NumberAttribute(default=0)
    mirror = BooleanAttribute(default=False)
    mirror_interval = NumberAttribute(default=0)     # seconds; 0 = no periodic sync
    mirror_updated = NumberAttribute(default=0)
    mirror_next = NumberAttribute(default=0)
    original_url = UnicodeAttribute(default="")      # without credentials
    # SHA-256 of the uploaded avatar's PNG, "" for the identicon (chalicelib/avatars).
    avatar = UnicodeAttribute(default="")
    # Credentials for pulling a private mirror (table is encrypted at rest).
    mirror_auth = UnicodeAttribute(default="")
    # A pull mirror migrated with ``lfs``: each sync fetches the new Git LFS objects
    # (from ``mirror_lfs_endpoint``, else the LFS server the clone address implies).
    mirror_lfs = BooleanAttribute(default=False)
    mirror_lfs_endpoint = UnicodeAttribute(default="")
    # How many push mirrors sync on every push (repo_admin/push_mirror_store.py keeps it
    # with the mirrors, in one transaction): a push to a repository without one asks for
    # no sync at all.
    push_mirrors_on_commit = NumberAttribute(default=0)
    # Pull request settings (allow_* merge styles, defaults), JSON; repos/merge_settings.py.
    merge_settings = UnicodeAttribute(default="")
    # The wiki (chalicelib/wiki): whether it is on (Forgejo's wiki unit), whether its
    # branch exists (set with the branch's creation and deletion, in their
    # transaction: the record's ``has_wiki_contents`` without a read of the wiki), and
    # its branch ("": the instance's default branch, as Forgejo's GetWikiBranchName).
    has_wiki = BooleanAttribute(default=True)
    has_wiki_contents = BooleanAttribute(default=False)
    wiki_branch = UnicodeAttribute(default="")
    created = NumberAttribute()
    updated = NumberAttribute()
    version = NumberAttribute(default=1)
    # A pending transfer (Forgejo's ``repo_transfer`` row, at most one per repository):
    # who started it, to whom, and the recipient organization's teams to give it;
    # 0 when none is pending (repo_admin/transfers.py).
    transfer_doer_id = NumberAttribute(default=0)
    transfer_recipient_id = NumberAttribute(default=0)
    transfer_team_ids = NumberSetAttribute(null=True)
    transfer_created = NumberAttribute(default=0)
    # The site admins' repository flags (Forgejo's ``repo_flag``; repo_admin/flags.py).
    flags = UnicodeSetAttribute(null=True)


class RepoName(Item, discriminator="reponame"):
    """Finds a repository from its id (forks' parents, jobs)."""
    repo_pk = UnicodeAttribute()


class ForkLink(Item, discriminator="forklink"):
    """One per fork, in its parent's partition: lists forks with one Query."""
    fork_pk = UnicodeAttribute()


class Pool(Item, discriminator="pool"):
    """An object pool: the packs a repository and its forks share.  Listed in gsi2
    ``POOLS`` for the compaction job, which needs every member's refs."""
    members = NumberAttribute(default=0)
    repo_ids = NumberSetAttribute(default=set)


class Collaboration(Item, discriminator="collab"):
    """A user's explicit access to a repository (pk = the repository)."""
    user_id = NumberAttribute()
    mode = UnicodeAttribute(default="write")        # read|write|admin
    created = NumberAttribute(default=0)


class RepoLink(Item, discriminator="repolink"):
    """A repository in a user's partition: collaborations, stars, watches (the reverse
    items that list "my collaborations", "my stars", "my subscriptions")."""
    repo_id = NumberAttribute()
    repo_pk = UnicodeAttribute()
    created = NumberAttribute(default=0)


class UserLink(Item, discriminator="userlink"):
    """A user in a repository's partition: stargazers and watchers."""
    user_id = NumberAttribute()
    created = NumberAttribute(default=0)


class DeployKey(Item, discriminator="deploykey"):
    id = NumberAttribute()
    repo_id = NumberAttribute()
    title = UnicodeAttribute()
    content = UnicodeAttribute()
    fingerprint = UnicodeAttribute()
    key_type = UnicodeAttribute()
    read_only = BooleanAttribute(default=True)
    created = NumberAttribute()


class Topic(Item, discriminator="topic"):
    """A topic some repositories list (``TOPIC#<name>``): how many, and in gsi2
    ``TOPICS`` by name for ``topicSearch``.  Deleted when its last repository drops it."""
    id = NumberAttribute()
    name = UnicodeAttribute()
    repo_count = NumberAttribute(default=0)
    created = NumberAttribute(default=0)
    updated = NumberAttribute(default=0)


class RepoTopic(Item, discriminator="repotopic"):
    """A topic of one repository, in its partition: what the repository-cleanup consumer
    counts down when the repository is deleted (each link once)."""
    name = UnicodeAttribute()


class DeletedRepo(Item, discriminator="deletedrepo"):
    """A repository deleted with ``[repository] DELETED_RETENTION_DAYS`` > 0, restorable
    until ``purge_at`` (``DELETED#<id>``): the repository item's stored attributes as
    JSON, and the forks its deletion made independent.  Listed by owner in gsi1
    (``DELETEDBY#<owner id>``, newest first) and by purge time in gsi2 (``DELETED``),
    which the purge schedule and the site admins' list read.  No ``expires``: only the
    purge may remove it, after the data it stands for (deleted_store.py)."""
    repo_id = NumberAttribute()
    owner_id = NumberAttribute()
    owner_login = UnicodeAttribute()
    name = UnicodeAttribute()
    private = BooleanAttribute(default=False)
    deleted_at = NumberAttribute()
    purge_at = NumberAttribute()
    deleted_by_id = NumberAttribute(default=0)
    deleted_by = UnicodeAttribute(default="")
    repo_values = UnicodeAttribute()
    forks = NumberSetAttribute(null=True)


class keys(shared_keys):  # noqa: N801 - a namespace of key builders
    """Key layouts of the repos domain's items (docs/data-model.md)."""

    @staticmethod
    def repo(owner_lower: str, name_lower: str) -> tuple[str, str]:
        return f"REPO#{owner_lower}/{name_lower}", "REPO"

    @staticmethod
    def repo_owner_gsi(owner_id: int, name_lower: str) -> tuple[str, str]:
        return f"OWNS#{owner_id}", f"REPO#{name_lower}"

    ALL_REPOS_GSI = "REPOS"

    ALL_POOLS_GSI = "POOLS"

    @staticmethod
    def repo_name(repo_id: int) -> tuple[str, str]:
        return f"REPOID#{repo_id}", "NAME"

    @staticmethod
    def fork_link(parent_id: int, fork_id: int) -> tuple[str, str]:
        return shared_keys.repo_partition(parent_id), f"FORK#{fork_id:015d}"

    @staticmethod
    def pool(pool_id: int) -> tuple[str, str]:
        return f"POOL#{pool_id}", "POOL"

    @staticmethod
    def collaboration(repo_id: int, user_id: int) -> tuple[str, str]:
        return shared_keys.repo_partition(repo_id), f"COLLAB#{user_id:015d}"

    @staticmethod
    def collaborating_on(user_id: int, repo_id: int) -> tuple[str, str]:
        return shared_keys.account_partition(user_id), f"COLLABON#{repo_id:015d}"

    @staticmethod
    def star(repo_id: int, user_id: int) -> tuple[str, str]:
        return shared_keys.repo_partition(repo_id), f"STAR#{user_id:015d}"

    @staticmethod
    def starred(user_id: int, repo_id: int) -> tuple[str, str]:
        return shared_keys.account_partition(user_id), f"STARRED#{repo_id:015d}"

    @staticmethod
    def watch(repo_id: int, user_id: int) -> tuple[str, str]:
        return shared_keys.repo_partition(repo_id), f"WATCH#{user_id:015d}"

    @staticmethod
    def watching(user_id: int, repo_id: int) -> tuple[str, str]:
        return shared_keys.account_partition(user_id), f"WATCHING#{repo_id:015d}"

    @staticmethod
    def deploy_key(repo_id: int, key_id: int) -> tuple[str, str]:
        return shared_keys.repo_partition(repo_id), f"DEPLOYKEY#{key_id:015d}"

    @staticmethod
    def topic(name: str) -> tuple[str, str]:
        return f"TOPIC#{name}", "TOPIC"

    @staticmethod
    def repo_topic(repo_id: int, name: str) -> tuple[str, str]:
        return shared_keys.repo_partition(repo_id), f"TOPIC#{name}"

    ALL_TOPICS_GSI = "TOPICS"

    REPO_TOPIC_PREFIX = "TOPIC#"

    COLLAB_PREFIX = "COLLAB#"

    COLLABORATING_PREFIX = "COLLABON#"

    STAR_PREFIX = "STAR#"

    STARRED_PREFIX = "STARRED#"

    WATCH_PREFIX = "WATCH#"

    WATCHING_PREFIX = "WATCHING#"

    DEPLOY_KEY_PREFIX = "DEPLOYKEY#"

    FORK_PREFIX = "FORK#"

    REPO_PREFIX = "REPO#"

    @staticmethod
    def deleted_repo(repo_id: int) -> tuple[str, str]:
        return f"DELETED#{int(repo_id)}", "DELETED"

    @staticmethod
    def deleted_by_owner_gsi(owner_id: int, deleted_at: int, repo_id: int) -> tuple[str, str]:
        return f"DELETEDBY#{int(owner_id)}", f"{int(deleted_at):012d}#{int(repo_id):015d}"

    @staticmethod
    def deleted_by_purge_gsi(purge_at: int, repo_id: int) -> tuple[str, str]:
        return "DELETED", f"{int(purge_at):012d}#{int(repo_id):015d}"

    ALL_DELETED_GSI = "DELETED"
