"""The single DynamoDB table, as PynamoDB models.

Every item has ``pk``/``sk`` and, where it must be found by a second key, ``gsi1pk``/
``gsi1sk``.  ``kind`` is the PynamoDB discriminator, so a read of the wrong kind of
item fails loudly.  Key layouts are listed in ``docs/data-model.md``; the helpers in
``keys`` below are the only place that spells them.
"""
from __future__ import annotations

from pynamodb.attributes import (BooleanAttribute, DiscriminatorAttribute, ListAttribute,
                                 NumberAttribute, NumberSetAttribute, UnicodeAttribute)
from pynamodb.connection import Connection
from pynamodb.indexes import AllProjection, GlobalSecondaryIndex
from pynamodb.models import Model

from chalicelib import aws
from chalicelib.settings import Settings, get_settings


class GSI1(GlobalSecondaryIndex):
    class Meta:
        index_name = "gsi1"
        projection = AllProjection()
        billing_mode = "PAY_PER_REQUEST"

    gsi1pk = UnicodeAttribute(hash_key=True)
    gsi1sk = UnicodeAttribute(range_key=True)


class GSI2(GlobalSecondaryIndex):
    """Instance-wide listings (all repositories, for search)."""
    class Meta:
        index_name = "gsi2"
        projection = AllProjection()
        billing_mode = "PAY_PER_REQUEST"

    gsi2pk = UnicodeAttribute(hash_key=True)
    gsi2sk = UnicodeAttribute(range_key=True)


class Item(Model):
    class Meta:
        table_name = "nimbus"
        region = "us-east-1"
        billing_mode = "PAY_PER_REQUEST"
        max_retry_attempts = 3

    pk = UnicodeAttribute(hash_key=True)
    sk = UnicodeAttribute(range_key=True)
    kind = DiscriminatorAttribute()
    gsi1pk = UnicodeAttribute(null=True)
    gsi1sk = UnicodeAttribute(null=True)
    gsi1 = GSI1()
    gsi2pk = UnicodeAttribute(null=True)
    gsi2sk = UnicodeAttribute(null=True)
    gsi2 = GSI2()

    @classmethod
    def _get_connection(cls):
        # One connection (one botocore client) for every kind of item: creating a
        # client per model class would cost each cold start several clients.
        made = Model._get_connection.__func__(Item)
        aws.attach_hooks(made.connection.client)   # call counting (benchmarks)
        return made


class Counter(Item, discriminator="counter"):
    value = NumberAttribute(default=0)


class Claim(Item, discriminator="claim"):
    """Reserves a unique value (login name, e-mail, key fingerprint) for ``owner_id``."""
    owner_id = NumberAttribute()


class Account(Item, discriminator="account"):
    """A user or an organization: they share one id space and one name space."""
    id = NumberAttribute()
    account_type = UnicodeAttribute(default="user")  # user | org
    login = UnicodeAttribute()
    lower_name = UnicodeAttribute()
    email = UnicodeAttribute(default="")
    full_name = UnicodeAttribute(default="")
    password_hash = UnicodeAttribute(default="")
    login_name = UnicodeAttribute(default="")
    source_id = NumberAttribute(default=0)
    is_admin = BooleanAttribute(default=False)
    active = BooleanAttribute(default=True)
    prohibit_login = BooleanAttribute(default=False)
    restricted = BooleanAttribute(default=False)
    must_change_password = BooleanAttribute(default=False)
    keep_email_private = BooleanAttribute(default=False)
    visibility = UnicodeAttribute(default="public")
    location = UnicodeAttribute(default="")
    website = UnicodeAttribute(default="")
    description = UnicodeAttribute(default="")
    pronouns = UnicodeAttribute(default="")
    language = UnicodeAttribute(default="")
    allow_git_hook = BooleanAttribute(default=False)
    allow_import_local = BooleanAttribute(default=False)
    allow_create_organization = BooleanAttribute(default=True)
    max_repo_creation = NumberAttribute(default=-1)
    created = NumberAttribute()          # unix seconds
    updated = NumberAttribute()
    last_login = NumberAttribute(default=0)
    # Kept by repository creation/deletion in the same transaction as the repository.
    num_repos = NumberAttribute(default=0)
    # Organizations only.
    repo_admin_change_team_access = BooleanAttribute(default=False)
    # Bumped on every edit: writes are conditional on the version they read.
    version = NumberAttribute(default=1)
    # Part of what a web session cookie is signed over: bumping it ends every session.
    session_generation = NumberAttribute(default=0)


class Token(Item, discriminator="token"):
    """Looked up by the SHA-256 of the secret (pk), so authentication is one GetItem."""
    id = NumberAttribute()
    user_id = NumberAttribute()
    name = UnicodeAttribute()
    scopes = ListAttribute(of=UnicodeAttribute, default=list)
    last_eight = UnicodeAttribute()
    created = NumberAttribute()


class TokenRef(Item, discriminator="tokenref"):
    """The user's copy of a token (pk = the user): lists tokens, keeps names unique."""
    id = NumberAttribute()
    name = UnicodeAttribute()
    token_hash = UnicodeAttribute()
    scopes = ListAttribute(of=UnicodeAttribute, default=list)
    last_eight = UnicodeAttribute()
    created = NumberAttribute()


class PublicKey(Item, discriminator="publickey"):
    id = NumberAttribute()
    user_id = NumberAttribute()
    title = UnicodeAttribute()
    content = UnicodeAttribute()
    fingerprint = UnicodeAttribute()
    key_type = UnicodeAttribute()
    read_only = BooleanAttribute(default=False)
    created = NumberAttribute()
    updated = NumberAttribute()


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
    # Credentials for pulling a private mirror (table is encrypted at rest).
    mirror_auth = UnicodeAttribute(default="")
    # A pull mirror migrated with ``lfs``: each sync fetches the new Git LFS objects
    # (from ``mirror_lfs_endpoint``, else the LFS server the clone address implies).
    mirror_lfs = BooleanAttribute(default=False)
    mirror_lfs_endpoint = UnicodeAttribute(default="")
    # Pull request settings (allow_* merge styles, defaults), JSON; repos/merge_settings.py.
    merge_settings = UnicodeAttribute(default="")
    created = NumberAttribute()
    updated = NumberAttribute()
    version = NumberAttribute(default=1)


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


class BranchInfo(Item, discriminator="branch"):
    """The head commit of a branch, kept on every ref change so branch lists need no
    git reads."""
    name = UnicodeAttribute()
    commit_id = UnicodeAttribute()
    message = UnicodeAttribute(default="")
    author_name = UnicodeAttribute(default="")
    author_email = UnicodeAttribute(default="")
    author_time = NumberAttribute(default=0)
    author_tz = NumberAttribute(default=0)
    committer_name = UnicodeAttribute(default="")
    committer_email = UnicodeAttribute(default="")
    committer_time = NumberAttribute(default=0)
    committer_tz = NumberAttribute(default=0)
    signature = UnicodeAttribute(default="")
    signed_payload = UnicodeAttribute(default="")


class MirrorDue(Item, discriminator="mirrordue"):
    """A pull mirror's next sync time; the schedule is one small partition."""
    repo_pk = UnicodeAttribute(default="")
    due = NumberAttribute(default=0)


class OrgMember(Item, discriminator="orgmember"):
    """A user's membership of an organization (pk = the organization).  ``grants``
    denormalises the user's teams in the organization, so deciding access to an
    organization repository needs this one item (read in the same batch as the
    repository's owner): JSON {team id: [permission, units_map or null, includes_all]}."""
    user_id = NumberAttribute()
    public = BooleanAttribute(default=False)
    grants = UnicodeAttribute(default="{}")
    created = NumberAttribute(default=0)


class MemberOf(Item, discriminator="memberof"):
    """The reverse of OrgMember, in the user's partition: lists a user's organizations."""
    org_id = NumberAttribute()


class Team(Item, discriminator="team"):
    id = NumberAttribute()
    org_id = NumberAttribute()
    name = UnicodeAttribute()
    lower_name = UnicodeAttribute()
    description = UnicodeAttribute(default="")
    permission = UnicodeAttribute(default="read")   # none|read|write|admin|owner
    units = ListAttribute(of=UnicodeAttribute, default=list)
    units_map = UnicodeAttribute(default="{}")       # JSON {unit: mode}
    includes_all_repositories = BooleanAttribute(default=False)
    can_create_org_repo = BooleanAttribute(default=False)
    created = NumberAttribute(default=0)


class TeamLink(Item, discriminator="teamlink"):
    """Finds a team's organization from the team id (``/teams/{id}`` routes)."""
    org_id = NumberAttribute()


class TeamMember(Item, discriminator="teammember"):
    user_id = NumberAttribute()


class TeamRepo(Item, discriminator="teamrepo"):
    repo_id = NumberAttribute()
    repo_pk = UnicodeAttribute()


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


class Hook(Item, discriminator="hook"):
    """A webhook of a repository (pk ``R#<id>``) or an organization (pk ``A#<id>``)."""
    id = NumberAttribute()
    owner_kind = UnicodeAttribute()                  # repo | org
    owner_id = NumberAttribute()
    hook_type = UnicodeAttribute(default="gitea")
    url = UnicodeAttribute()
    content_type = UnicodeAttribute(default="json")
    secret = UnicodeAttribute(default="")
    http_method = UnicodeAttribute(default="post")
    events = ListAttribute(of=UnicodeAttribute, default=list)
    push_only = BooleanAttribute(default=False)
    choose_events = BooleanAttribute(default=False)
    branch_filter = UnicodeAttribute(default="")
    authorization_header = UnicodeAttribute(default="")
    config = UnicodeAttribute(default="{}")          # JSON of the remaining config keys
    active = BooleanAttribute(default=False)
    # Admin hooks (owner_kind "system"): a system hook fires for every repository; the
    # others are Forgejo's default hooks (kept, listed by id, never fired).
    is_system = BooleanAttribute(default=False)
    created = NumberAttribute()
    updated = NumberAttribute()


def configure(settings: Settings | None = None) -> None:
    """Point every model at the configured table and endpoint (moto locally)."""
    settings = settings or get_settings()
    host = settings.aws.ENDPOINT_URL or None
    for model in (Item, GSI1, GSI2):
        model.Meta.table_name = settings.aws.TABLE
        model.Meta.region = settings.aws.REGION
        model.Meta.host = host
    Item._connection = None


def connection() -> Connection:
    """The low-level connection, shared with the models (transactions need it)."""
    return Item._get_connection().connection


configure()
