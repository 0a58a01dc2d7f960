"""The table's key layouts, one builder per item kind (docs/data-model.md): every store
module builds its keys here, so two modules never spell one layout differently."""
from __future__ import annotations


class keys:  # noqa: N801 - a namespace of key builders
    """Key layouts of the table (see docs/data-model.md)."""

    @staticmethod
    def account(account_id: int) -> tuple[str, str]:
        return f"A#{account_id}", "A"

    @staticmethod
    def login(lower_name: str) -> tuple[str, str]:
        return f"LOGIN#{lower_name}", "CLAIM"

    @staticmethod
    def login_gsi(lower_name: str) -> tuple[str, str]:
        return f"LOGIN#{lower_name}", "A"

    @staticmethod
    def email(lower_email: str) -> tuple[str, str]:
        return f"EMAIL#{lower_email}", "CLAIM"

    @staticmethod
    def counter(name: str) -> tuple[str, str]:
        return f"SEQ#{name}", "SEQ"

    @staticmethod
    def token(token_hash: str) -> tuple[str, str]:
        return f"TOKEN#{token_hash}", "TOKEN"

    @staticmethod
    def token_ref(user_id: int, name: str) -> tuple[str, str]:
        return f"A#{user_id}", f"TOKEN#{name}"

    @staticmethod
    def public_key(user_id: int, key_id: int) -> tuple[str, str]:
        return f"A#{user_id}", f"KEY#{key_id:015d}"

    @staticmethod
    def key_fingerprint(fingerprint: str) -> tuple[str, str]:
        return f"KEYFP#{fingerprint}", "CLAIM"

    @staticmethod
    def repo(owner_lower: str, name_lower: str) -> tuple[str, str]:
        return f"REPO#{owner_lower}/{name_lower}", "REPO"

    @staticmethod
    def repo_owner_gsi(owner_id: int, name_lower: str) -> tuple[str, str]:
        return f"OWNS#{owner_id}", f"REPO#{name_lower}"

    ALL_REPOS_GSI = "REPOS"
    ALL_USERS_GSI = "USERS"      # users (not organizations) by lower-case name
    ALL_POOLS_GSI = "POOLS"

    @staticmethod
    def repo_name(repo_id: int) -> tuple[str, str]:
        return f"REPOID#{repo_id}", "NAME"

    @staticmethod
    def fork_link(parent_id: int, fork_id: int) -> tuple[str, str]:
        return f"R#{parent_id}", f"FORK#{fork_id:015d}"

    @staticmethod
    def pool(pool_id: int) -> tuple[str, str]:
        return f"POOL#{pool_id}", "POOL"

    LFS_PREFIX = "LFS#"

    @staticmethod
    def lfs_object(pool_id: int, oid: str) -> tuple[str, str]:
        """A Git LFS object of an object pool, beside its packs (forks share both)."""
        return f"POOL#{pool_id}", f"LFS#{oid}"

    LFS_NEED_PREFIX = "LFSNEED#"

    @staticmethod
    def lfs_repo_need(repo_id: int, oid: str) -> tuple[str, str]:
        """A Git LFS object a repository's pushes pointed at (in its partition: it goes
        with the repository)."""
        return f"R#{repo_id}", f"LFSNEED#{oid}"

    @staticmethod
    def lfs_owner_need(owner_id: int, pool_id: int, oid: str) -> tuple[str, str]:
        """A Git LFS object some repository of an owner needs: counted once per owner."""
        return f"A#{owner_id}", f"LFSNEED#{pool_id}#{oid}"

    LFS_LOCK_PREFIX = "LFSLOCK#"

    @staticmethod
    def lfs_lock(repo_id: int, lock_id: int) -> tuple[str, str]:
        """A Git LFS lock, in its repository's partition (it goes when the repository
        does); ordered by id, so the locks are listed page by page with one Query."""
        return f"R#{repo_id}", f"LFSLOCK#{lock_id:015d}"

    @staticmethod
    def lfs_lock_path(repo_id: int, lower_path: str) -> tuple[str, str]:
        """The claim on a path that keeps one lock per path (lower-cased, as Forgejo
        compares lock paths)."""
        return f"R#{repo_id}", f"LFSPATH#{lower_path}"

    @staticmethod
    def branch(repo_id: int, name: str) -> tuple[str, str]:
        return f"R#{repo_id}", f"BRANCH#{name}"

    @staticmethod
    def protection(repo_id: int) -> tuple[str, str]:
        """Every branch and tag protection rule of a repository, in one item."""
        return f"R#{repo_id}", "PROTECTION"

    @staticmethod
    def repo_partition(repo_id: int) -> str:
        return f"R#{repo_id}"

    MIRROR_SCHEDULE = "MIRRORS"

    @staticmethod
    def mirror_due(repo_id: int) -> tuple[str, str]:
        return "MIRRORS", f"{repo_id:015d}"

    # Organizations, teams and repository access (organization issue).
    @staticmethod
    def org_member(org_id: int, user_id: int) -> tuple[str, str]:
        return f"A#{org_id}", f"MEMBER#{user_id:015d}"

    @staticmethod
    def member_of(user_id: int, org_id: int) -> tuple[str, str]:
        return f"A#{user_id}", f"ORGOF#{org_id:015d}"

    @staticmethod
    def team(org_id: int, team_id: int) -> tuple[str, str]:
        return f"A#{org_id}", f"TEAM#{team_id:015d}"

    @staticmethod
    def team_name(org_id: int, lower_name: str) -> tuple[str, str]:
        return f"A#{org_id}", f"TEAMNAME#{lower_name}"

    @staticmethod
    def team_link(team_id: int) -> tuple[str, str]:
        return f"TEAMID#{team_id}", "TEAM"

    @staticmethod
    def team_member(team_id: int, user_id: int) -> tuple[str, str]:
        return f"TEAM#{team_id}", f"MEMBER#{user_id:015d}"

    @staticmethod
    def team_repo(team_id: int, repo_id: int) -> tuple[str, str]:
        return f"TEAM#{team_id}", f"REPO#{repo_id:015d}"

    @staticmethod
    def collaboration(repo_id: int, user_id: int) -> tuple[str, str]:
        return f"R#{repo_id}", f"COLLAB#{user_id:015d}"

    @staticmethod
    def collaborating_on(user_id: int, repo_id: int) -> tuple[str, str]:
        return f"A#{user_id}", f"COLLABON#{repo_id:015d}"

    @staticmethod
    def star(repo_id: int, user_id: int) -> tuple[str, str]:
        return f"R#{repo_id}", f"STAR#{user_id:015d}"

    @staticmethod
    def starred(user_id: int, repo_id: int) -> tuple[str, str]:
        return f"A#{user_id}", f"STARRED#{repo_id:015d}"

    @staticmethod
    def watch(repo_id: int, user_id: int) -> tuple[str, str]:
        return f"R#{repo_id}", f"WATCH#{user_id:015d}"

    @staticmethod
    def watching(user_id: int, repo_id: int) -> tuple[str, str]:
        return f"A#{user_id}", f"WATCHING#{repo_id:015d}"

    @staticmethod
    def deploy_key(repo_id: int, key_id: int) -> tuple[str, str]:
        return f"R#{repo_id}", f"DEPLOYKEY#{key_id:015d}"

    @staticmethod
    def repo_hook(repo_id: int, hook_id: int) -> tuple[str, str]:
        return f"R#{repo_id}", f"HOOK#{hook_id:015d}"

    @staticmethod
    def org_hook(org_id: int, hook_id: int) -> tuple[str, str]:
        return f"A#{org_id}", f"HOOK#{hook_id:015d}"

    @staticmethod
    def system_hook(hook_id: int) -> tuple[str, str]:
        return "SYSHOOKS", f"HOOK#{hook_id:015d}"

    # Code review (reviews/store.py): a pull request's reviews, and each review's code
    # comments, in the repository's partition under the pull request's number.
    @staticmethod
    def review(repo_id: int, number: int, review_id: int) -> tuple[str, str]:
        return f"R#{repo_id}", f"REVIEW#{number:010d}#{review_id:015d}"

    @staticmethod
    def review_prefix(number: int) -> str:
        return f"REVIEW#{number:010d}#"

    @staticmethod
    def review_comment(repo_id: int, number: int, review_id: int,
                       comment_id: int) -> tuple[str, str]:
        return f"R#{repo_id}", f"REVIEWC#{number:010d}#{review_id:015d}#{comment_id:015d}"

    @staticmethod
    def review_comment_prefix(number: int, review_id: int | None = None) -> str:
        if review_id is None:
            return f"REVIEWC#{number:010d}#"
        return f"REVIEWC#{number:010d}#{review_id:015d}#"

    MEMBER_PREFIX = "MEMBER#"
    MEMBER_OF_PREFIX = "ORGOF#"
    TEAM_PREFIX = "TEAM#"
    COLLAB_PREFIX = "COLLAB#"
    COLLABORATING_PREFIX = "COLLABON#"
    STAR_PREFIX = "STAR#"
    STARRED_PREFIX = "STARRED#"
    WATCH_PREFIX = "WATCH#"
    WATCHING_PREFIX = "WATCHING#"
    DEPLOY_KEY_PREFIX = "DEPLOYKEY#"
    HOOK_PREFIX = "HOOK#"

    BRANCH_PREFIX = "BRANCH#"
    FORK_PREFIX = "FORK#"

    # Prefixes of items that live in an account's partition.
    TOKEN_PREFIX = "TOKEN#"
    KEY_PREFIX = "KEY#"
    REPO_PREFIX = "REPO#"
