"""chalicelib.protection.gate: Forgejo's pre-receive rules over a real dulwich object
store (commits built as tests/test_gitops.py builds them), first refusal wins."""
from __future__ import annotations

from types import SimpleNamespace

from dulwich.object_store import MemoryObjectStore

from chalicelib.gitops import commits, diff, trees
from chalicelib.protection.gate import commit_verified, ref_refusal
from chalicelib.protection.rules import BranchRule, Protection, Pusher, TagRule

ME = commits.Identity("Ada Lovelace", "ada@example.com", 1_700_000_000, 0)
ZERO = "0" * 40
REPO = SimpleNamespace(default_branch="main")


def commit(store, parent, *edits, message="change", sign=None) -> str:
    parent = parent.encode() if isinstance(parent, str) else parent
    return commits.commit_edits(store, parent=parent, edits=list(edits), author=ME,
                                message=message, sign=sign).id.decode()


def pusher(user_id=7, *, teams=(), write=True) -> Pusher:
    return Pusher(user_id, "ada", frozenset(teams), can_write=write, is_repo_admin=False,
                  is_site_admin=False)


def history():
    """root -> a (README) -> b (src/x.py); c: a sibling of b (a force push from b)."""
    store = MemoryObjectStore()
    root = commit(store, None, trees.create("README.md", b"hi\n"))
    a = commit(store, root, trees.create("docs/guide.md", b"guide\n"))
    b = commit(store, a, trees.create("src/x.py", b"x = 1\n"))
    c = commit(store, a, trees.create("Cargo.lock", b"lock\n"))
    return store, root, a, b, c


def refusal(store, updates, protection, p=None, **kw):
    return ref_refusal(REPO, store, updates, p or pusher(), protection, **kw)


def test_unprotected_branches_are_free_but_the_default_branch_stays():
    store, root, a, b, c = history()
    none = Protection()
    assert refusal(store, [("refs/heads/topic", b, c)], none) is None
    assert refusal(store, [("refs/heads/topic", b, ZERO)], none) is None
    assert refusal(store, [("refs/heads/main", b, ZERO)], none) == \
        "branch main is the default branch and cannot be deleted"
    assert refusal(store, [("refs/pull/1/head", b, ZERO)], none) is None


def test_deletion_and_force_push():
    store, root, a, b, c = history()
    rules = Protection([BranchRule("release/*", enable_push=True)])
    assert refusal(store, [("refs/heads/release/1", b, ZERO)], rules) == \
        "branch release/1 is protected from deletion"
    assert refusal(store, [("refs/heads/release/1", a, b)], rules) is None  # fast-forward
    assert refusal(store, [("refs/heads/release/1", b, c)], rules) == \
        "branch release/1 is protected from force push"
    rules.branch_rules[0].enable_force_push = True
    assert refusal(store, [("refs/heads/release/1", b, c)], rules) is None
    rules.branch_rules[0].enable_force_push_allowlist = True
    assert refusal(store, [("refs/heads/release/1", b, c)], rules) == \
        "Not allowed to push to protected branch release/1"


def test_push_rights_and_the_first_refusal_wins():
    store, root, a, b, c = history()
    rules = Protection([BranchRule("main")])                  # enable_push off
    assert refusal(store, [("refs/heads/main", a, b)], rules) == \
        "Not allowed to push to protected branch main"
    assert refusal(store, [("refs/heads/topic", a, b), ("refs/heads/MAIN", b, ZERO)],
                   rules) == "branch MAIN is protected from deletion"
    rules.branch_rules[0].enable_push = True
    assert refusal(store, [("refs/heads/main", a, b)], rules) is None
    assert refusal(store, [("refs/heads/main", a, b)], rules, pusher(write=False)) == \
        "Not allowed to push to protected branch main"
    rules.branch_rules[0].enable_push_whitelist = True
    rules.branch_rules[0].push_whitelist_team_ids = [3]
    assert refusal(store, [("refs/heads/main", a, b)], rules) is not None
    assert refusal(store, [("refs/heads/main", a, b)], rules, pusher(teams={3})) is None


def test_protected_and_unprotected_files():
    store, root, a, b, c = history()
    rule = BranchRule("main", enable_push=True, enable_force_push=True,
                      protected_file_patterns="*.lock")
    rules = Protection([rule])
    assert refusal(store, [("refs/heads/main", a, b)], rules) is None
    assert refusal(store, [("refs/heads/main", a, c)], rules) == \
        "branch main is protected from changing file Cargo.lock"
    # Not allowed to push, but only unprotected files change: let through.
    rule.enable_push, rule.protected_file_patterns = False, ""
    rule.unprotected_file_patterns = "docs/**"
    assert refusal(store, [("refs/heads/main", root, a)], rules) is None
    assert refusal(store, [("refs/heads/main", a, b)], rules) == \
        "Not allowed to push to protected branch main"


def test_new_branch_files_are_those_its_new_commits_change():
    store, root, a, b, c = history()
    rule = BranchRule("rel", enable_push=True, protected_file_patterns="src/**")
    rules = Protection([rule])
    # b is new, a is known: only src/x.py changed.
    assert refusal(store, [("refs/heads/rel", ZERO, b)], rules, known=[a]) == \
        "branch rel is protected from changing file src/x.py"
    assert refusal(store, [("refs/heads/rel", ZERO, c)], rules, known=[a]) is None


def test_signed_commits_are_verified():
    store, root, a, b, c = history()
    rules = Protection([BranchRule("main", enable_push=True, require_signed_commits=True)])
    d = commit(store, b, trees.create("e", b"e\n"), sign=lambda payload: b"SIGNED")
    e = commit(store, d, trees.create("f", b"f\n"))
    seen = []

    def verify(c):
        seen.append(c.id.decode())
        return c.gpgsig == b"SIGNED"

    assert refusal(store, [("refs/heads/main", b, d)], rules, verify=verify) is None
    assert seen == [d]
    assert refusal(store, [("refs/heads/main", b, e)], rules, verify=verify) == \
        f"branch main is protected from unverified commit {e}"
    # A new branch: every commit its tip brings that no known ref has.
    assert refusal(store, [("refs/heads/main", ZERO, d)], rules, verify=verify,
                   known=[b]) is None
    assert refusal(store, [("refs/heads/main", ZERO, d)], rules, verify=verify) is not None
    # Unsigned commits never verify, without any key lookup.
    assert not commit_verified(store[e.encode()])


def test_merges_through_the_api_follow_the_merge_allowlist():
    store, root, a, b, c = history()
    rule = BranchRule("main", enable_merge_whitelist=True, merge_whitelist_user_ids=[7])
    rules = Protection([rule])
    assert refusal(store, [("refs/heads/main", a, b)], rules, merge=True) is None
    assert refusal(store, [("refs/heads/main", a, b)], rules, pusher(8), merge=True) == \
        "Not allowed to push to protected branch main"


def test_tags():
    store, root, a, b, c = history()
    rules = Protection(tag_rules=[TagRule(1, "v*", [7])])
    assert refusal(store, [("refs/tags/v1", ZERO, a)], rules) is None
    assert refusal(store, [("refs/tags/v1", ZERO, a)], rules, pusher(8)) == "Tag v1 is protected"
    assert refusal(store, [("refs/tags/v1", a, ZERO)], rules, pusher(8)) == "Tag v1 is protected"
    assert refusal(store, [("refs/tags/x1", ZERO, a)], rules, pusher(8)) is None


def test_changed_paths_lists_names_only():
    store, root, a, b, c = history()
    assert diff.changed_paths(store, a, c) == ["Cargo.lock"]
    assert diff.changed_paths(store, b, c) == ["Cargo.lock", "src/x.py"]
    assert diff.changed_paths(store, None, a) == ["README.md", "docs/guide.md"]
