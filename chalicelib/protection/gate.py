"""What a push may do to protected refs: Forgejo's pre-receive rules
(``routers/private/hook_pre_receive.go``) over the objects of the push, no work tree.

``ref_refusal`` takes the ref updates of one push ``(ref, old hex, new hex)`` (all
zeros: absent) and answers the first refusal, in Forgejo's words, or None:

1. deleting the default branch: "branch %s is the default branch and cannot be deleted";
2. a branch without a rule is free; deleting a protected one is refused;
3. a force push (the old tip is not an ancestor of the new one) is refused unless the
   rule enables force pushes;
4. with ``require_signed_commits`` every new commit must verify (``chalicelib.signing``,
   as the commit API's ``verification``);
5. the paths changed between the old and new tips are matched against the protected
   file patterns; then the pusher must be allowed to push (or force push), and no
   protected file may change; a push that may not go through is still let through when
   every changed path matches an unprotected file pattern;
6. a tag matching a tag rule needs the pusher on one of its allowlists.

A merge through the API (``merge=True``) that the pusher may not push directly goes
through when the rule lets them merge (the merge gate checks approvals and statuses).

New branches: the new commits are those of the new tip that none of ``known`` (the tips
of the repository's other refs) contains; their changed paths are taken from the newest
commit on the new tip's first-parent line that is not new (nothing known: every file).
"""
from __future__ import annotations

from typing import Callable, Iterable

from chalicelib import repos
from chalicelib.errors import NotFoundError
from chalicelib.protection.rules import BranchRule, Protection, Pusher

HEADS = "refs/heads/"
TAGS = "refs/tags/"
# How many new commits a push may bring to a branch that requires signed commits; past
# it the push is refused rather than verifying without bound.
MAX_VERIFIED = 10_000

Verifier = Callable[[object], bool]


def _zero(sha: str) -> bool:
    return not sha or set(sha) == {"0"}


# The pusher ---------------------------------------------------------------------------------

def pusher_of(view_or_repo, user, deploy_key: bool = False) -> Pusher:
    """The Pusher for ``user`` (None: anonymous) on a repository, given its RepoView
    (access already decided) or its record (access decided here: the owner and the
    access items, one batched read unless preloaded).  Team ids come from the caller's
    membership item of the owning organization, which deciding access read anyway.
    ``deploy_key``: a deploy key pushes (its write right checked by the caller)."""
    view = view_or_repo
    if not hasattr(view, "access"):
        from chalicelib.repos import Caller, view_of

        view = view_of(view_or_repo, Caller(user))
    if user is None:
        return Pusher(0, "", frozenset(), can_write=deploy_key, is_repo_admin=False,
                      is_site_admin=False, deploy_key=deploy_key)
    team_ids: frozenset[int] = frozenset()
    if repos.is_org(view.owner):
        member = repos.membership(int(view.owner.id), int(user.id))
        team_ids = frozenset(repos.team_grants(member))
    return Pusher(int(user.id), user.login, team_ids, can_write=view.can_write or deploy_key,
                  is_repo_admin=view.is_admin, is_site_admin=bool(user.is_admin),
                  deploy_key=deploy_key)


# Git reads ----------------------------------------------------------------------------------

# The git reads below import dulwich's walker, diff and merge code where they run: the
# API function's routes import this module, and a cold start must not pay for them.

def _is_force_push(store, old: str, new: str) -> bool:
    from chalicelib.gitops import merge as git_merge

    try:
        return not git_merge.is_ancestor(store, old, new)
    except NotFoundError:
        return True   # the old tip cannot be read: nothing proves this is a fast-forward


def _new_commits(store, old: str | None, new: str, known: Iterable[str]) -> list:
    from dulwich.walk import Walker

    from chalicelib.gitops.objects import read_commit

    exclude = [old.encode()] if old else []
    for sha in known:
        if sha and not _zero(sha) and sha != new:
            try:
                read_commit(store, sha)
            except NotFoundError:
                continue
            exclude.append(sha.encode())
    found = []
    for entry in Walker(store, [new.encode()], exclude=exclude):
        found.append(entry.commit)
        if len(found) > MAX_VERIFIED:
            break
    return found


def _base_of_new_branch(store, new: str, new_ids: set[bytes]) -> str | None:
    from chalicelib.gitops.objects import read_commit

    sha = new.encode()
    while sha in new_ids:
        commit = read_commit(store, sha)
        if not commit.parents:
            return None
        sha = commit.parents[0]
    return sha.decode()


def commit_verified(commit) -> bool:
    """Whether a dulwich commit's signature verifies (``chalicelib.signing``)."""
    if not commit.gpgsig:
        return False
    from chalicelib import signing

    _, _, email = commit.committer.decode("utf-8", "replace").partition("<")
    result = signing.verify_commit(commit.gpgsig.decode("ascii", "replace"),
                                   commit.raw_without_sig().decode("utf-8", "replace"),
                                   email.rstrip(">").strip())
    return bool(result.get("verified"))


# The rules ----------------------------------------------------------------------------------

def _branch_refusal(repo, store, name: str, old: str, new: str, pusher: Pusher,
                    protection: Protection, known, verify: Verifier, merge: bool,
                    keep_default: bool = True) -> str | None:
    if _zero(new):
        if keep_default and name == (repo.default_branch or ""):
            return f"branch {name} is the default branch and cannot be deleted"
        return f"branch {name} is protected from deletion" \
            if protection.rule_for(name) is not None else None
    rule: BranchRule | None = protection.rule_for(name)
    if rule is None:
        return None
    old_tip = None if _zero(old) else old
    force = old_tip is not None and _is_force_push(store, old_tip, new)
    if force and not rule.enable_force_push:
        return f"branch {name} is protected from force push"

    new_commits = None
    if rule.require_signed_commits:
        new_commits = _new_commits(store, old_tip, new, known)
        if len(new_commits) > MAX_VERIFIED:
            return f"branch {name} is protected from unverified commit {new}"
        for commit in new_commits:
            if not verify(commit):
                return f"branch {name} is protected from unverified commit {commit.id.decode()}"

    paths: list[str] | None = None

    def changed() -> list[str]:
        nonlocal paths, new_commits
        if paths is None:
            base = old_tip
            if base is None:
                if new_commits is None:
                    new_commits = _new_commits(store, None, new, known)
                base = _base_of_new_branch(store, new, {c.id for c in new_commits})
            from chalicelib.gitops import diff as git_diff

            paths = git_diff.changed_paths(store, base, new)
        return paths

    protected_file = rule.protected_files(changed()) if rule.protected_file_patterns.strip() \
        else None
    allowed = rule.can_force_push(pusher) if force else rule.can_push(pusher)
    if allowed and protected_file is None:
        return None
    if merge:
        return None if rule.can_merge(pusher) else \
            f"Not allowed to push to protected branch {name}"
    if protected_file is not None:
        return f"branch {name} is protected from changing file {protected_file}"
    if rule.unprotected_file_patterns.strip() and rule.only_unprotected(changed()):
        return None
    return f"Not allowed to push to protected branch {name}"


def ref_refusal(repo, object_store, updates, pusher: Pusher, protection: Protection, *,
                known: Iterable[str] = (), verify: Verifier | None = None,
                merge: bool = False, keep_default: bool = True) -> str | None:
    """The first refusal of these ref updates under the repository's rules, or None.
    ``updates``: ``(ref, old hex, new hex)``, full ref names; refs other than branches
    and tags are not protection's concern.  ``known``: the tips of the repository's
    refs before the push (new branches: which commits are new).  ``verify``: how a
    commit's signature is checked (default: ``commit_verified``)."""
    known = [k.decode() if isinstance(k, bytes) else k for k in known]
    verify = verify or commit_verified
    for ref, old, new in updates:
        ref = ref.decode() if isinstance(ref, bytes) else ref
        old = old.decode() if isinstance(old, bytes) else (old or "")
        new = new.decode() if isinstance(new, bytes) else (new or "")
        if ref.startswith(HEADS):
            refusal = _branch_refusal(repo, object_store, ref[len(HEADS):], old, new, pusher,
                                      protection, known, verify, merge, keep_default)
        elif ref.startswith(TAGS):
            tag = ref[len(TAGS):]
            refusal = None if protection.tag_allowed(tag, pusher) else f"Tag {tag} is protected"
        else:
            refusal = None
        if refusal is not None:
            return refusal
    return None


# The entry points of the ref-moving paths ----------------------------------------------------

def has_rules(repo) -> bool:
    """Whether the repository has any rule (its record counts them): without one, no
    ref change needs the rules item or the pusher's access read."""
    return bool(int(getattr(repo, "protection_rules", 0) or 0))


def _tips(refs) -> list[str]:
    """The commits the repository's refs hold (tags peeled): what a new branch's
    commits are new against."""
    found = []
    for name in refs.allkeys():
        value = refs.read_loose_ref(name)
        if value is None or value.startswith(b"ref: "):
            continue
        found.append((refs.get_peeled(name) or value).decode())
    return found


def refusal(view_or_repo, git, updates, actor) -> str | None:
    """The API's ref changes (files, branches, tags, releases, a pull request's head):
    the rules' first refusal to ``actor``, or None; nothing read without rules.  The
    default branch's deletion is each API path's own rule (a rename moves it)."""
    repo = getattr(view_or_repo, "repo", view_or_repo)
    if not has_rules(repo):
        return None
    from chalicelib.protection import store as protection_store

    return ref_refusal(repo, git.object_store, updates, pusher_of(view_or_repo, actor),
                       protection_store.get(int(repo.id)), known=_tips(git.refs),
                       keep_default=False)


def push_refusal(view, git, updates, actor) -> str | None:
    """git push (Forgejo's pre-receive hook): the default branch is never deleted, and
    with rules, the rules' first refusal."""
    if not has_rules(view.repo):
        for ref, _old, new in updates:
            if ref == HEADS + (view.repo.default_branch or "") and _zero(new):
                return (f"branch {view.repo.default_branch} is the default branch and "
                        "cannot be deleted")
        return None
    from chalicelib.protection import store as protection_store

    return ref_refusal(view.repo, git.object_store, updates, pusher_of(view, actor),
                       protection_store.get(int(view.repo.id)), known=_tips(git.refs))
