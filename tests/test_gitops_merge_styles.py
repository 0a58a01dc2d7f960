"""chalicelib.gitops.pull_merge: every Forgejo merge style, made on a dulwich store and
checked with the git CLI reading the same bare repository (graph, parents, trees,
authors, signatures, fsck), and against what git itself does (merge-tree, rebase).

The matrix runs each style on four histories: a clean divergent change, a conflicting
one, a head the base already contains, and a head a fast-forward reaches.
"""
from __future__ import annotations

import shutil
import subprocess

import pytest
from dulwich.repo import Repo

from chalicelib.errors import ConflictError, InvalidInput
from chalicelib.gitops import errors, trees
from chalicelib.gitops.commits import Identity, commit_edits, write_commit
from chalicelib.gitops.merge import merge_commits
from chalicelib.gitops.pull_merge import (STYLES, MergeOutcome, commits_between, default_message,
                                          merge_pull)

GIT = shutil.which("git")
pytestmark = pytest.mark.skipif(not GIT, reason="needs the git CLI")

ALICE = Identity("Alice Base", "alice@example.com", 1_700_000_000, 3600)
BOB = Identity("Bob Feature", "bob@example.com", 1_700_000_100, -5 * 3600)
CAROL = Identity("Carol Second", "carol@example.com", 1_700_000_200, 0)
MERGER = Identity("Mona Merger", "mona@example.com", 1_700_009_000, 7200)
POSTER = Identity("Pat Poster", "pat@example.com", 1_700_000_050, -3600)
SIGNATURE = (b"-----BEGIN PGP SIGNATURE-----\n\niQEzBAABCAAdFiEEZmFrZSBzaWduYXR1cmU=\n=fake\n"
             b"-----END PGP SIGNATURE-----\n")
LINES = b"1\n2\n3\n4\n5\n6\n7\n"
KINDS = ("clean", "conflict", "contained", "fast-forward")


class Bare:
    """A bare repository on disk: dulwich writes into ``store``, git reads it back."""

    def __init__(self, path):
        self.path = path
        self.repo = Repo.init_bare(str(path), mkdir=True)
        self.store = self.repo.object_store
        home = path.parent / "home"
        home.mkdir(exist_ok=True)
        self.env = {"HOME": str(home), "GIT_CONFIG_NOSYSTEM": "1", "PATH": "/usr/bin:/bin",
                    "LC_ALL": "C"}
        self.signed_payloads: list[bytes] = []

    def run(self, *args, cwd=None, check=True) -> subprocess.CompletedProcess:
        command = [GIT, *args] if cwd else [GIT, "--git-dir", str(self.path), *args]
        done = subprocess.run(command, cwd=cwd, env=self.env, capture_output=True, timeout=60)
        if check:
            assert done.returncode == 0, done.stderr.decode()
        return done

    def git(self, *args) -> str:
        return self.run(*args).stdout.decode()

    def commit(self, parent, *edits, author=ALICE, message="change") -> bytes:
        return commit_edits(self.store, parent=parent, edits=list(edits), author=author,
                            message=message).id

    def sign(self, payload: bytes) -> bytes:
        self.signed_payloads.append(payload)
        return SIGNATURE

    def objects(self) -> set[bytes]:
        return set(self.store)

    def packs(self) -> int:
        return len(list((self.path / "objects" / "pack").glob("*.pack")))

    def parents(self, commit: bytes) -> list[bytes]:
        listed = self.git("rev-list", "--parents", "-n1", commit.decode()).split()
        return [parent.encode() for parent in listed[1:]]

    def tree(self, rev: bytes | str) -> str:
        rev = rev.decode() if isinstance(rev, bytes) else rev
        return self.git("rev-parse", f"{rev}^{{tree}}").strip()

    def merge_tree(self, base: bytes, head: bytes) -> subprocess.CompletedProcess:
        """git's own merge of the two (Forgejo's mergeability check)."""
        return self.run("merge-tree", "--write-tree", "-z", "--name-only", "--no-messages",
                        base.decode(), head.decode(), check=False)

    def show(self, rev: bytes, path: str) -> bytes:
        return self.run("show", f"{rev.decode()}:{path}").stdout

    def names(self, rev: bytes) -> list[str]:
        return self.git("ls-tree", "-r", "--name-only", rev.decode()).split()

    def raw(self, commit: bytes) -> bytes:
        return self.run("cat-file", "commit", commit.decode()).stdout

    def people(self, rev_range: str) -> list[tuple[str, ...]]:
        """(author, author date, committer, committer date, message) oldest first."""
        out = self.git("log", "--reverse", "--date=raw", "--format=%an <%ae>%x00%ad%x00%cn <%ce>"
                       "%x00%cd%x00%B%x01", rev_range)
        return [tuple(entry.strip("\n").split("\x00")) for entry in out.split("\x01")[:-1]]


def person(who: Identity) -> tuple[str, str]:
    sign = "-" if who.timezone < 0 else "+"
    offset = abs(who.timezone)
    zone = f"{sign}{offset // 3600:02d}{offset % 3600 // 60:02d}"
    return f"{who.name} <{who.email}>", f"{who.time} {zone}"


@pytest.fixture
def bare(tmp_path):
    made = Bare(tmp_path / "repo.git")
    yield made
    made.repo.close()


def history(bare: Bare, kind: str) -> tuple[bytes, bytes, list[bytes]]:
    """(base tip, PR head, the PR's commits) for one kind of history."""
    root = bare.commit(None, trees.write("a.txt", LINES), trees.write("README.md", b"# r\n"),
                       message="root")
    feature = bare.commit(root, trees.write("feature.txt", b"f\n"), author=BOB,
                          message="Add feature")
    if kind == "contained":  # the PR's commit is already on the base branch
        later = bare.commit(feature, trees.write("base.txt", b"b\n"), message="Later")
        return later, feature, [feature]
    edited = b"1\nHEAD\n3\n4\n5\n6\n7\n" if kind == "conflict" else b"1\n2\n3\n4\n5\n6\nHEAD\n"
    second = bare.commit(feature, trees.write("a.txt", edited), author=CAROL,
                         message="Edit a.txt\n\nWith a body.")
    if kind == "fast-forward":
        return root, second, [feature, second]
    base = bare.commit(root, trees.write("a.txt", b"1\nBASE\n3\n4\n5\n6\n7\n"),
                       trees.write("base.txt", b"b\n"), message="Base moves on")
    return base, second, [feature, second]


def expected_error(style: str, kind: str):
    if kind == "contained":
        return errors.NothingToMerge
    if style == "fast-forward-only":
        return None if kind == "fast-forward" else errors.NotFastForward
    return errors.MergeConflict if kind == "conflict" else None


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("style", STYLES)
def test_every_style_on_every_history(bare, style, kind):
    base, head, pr_commits = history(bare, kind)
    before, packs = bare.objects(), bare.packs()
    failure = expected_error(style, kind)
    if failure is not None:
        with pytest.raises(failure) as caught:
            merge_pull(bare.store, style=style, base=base, head=head, author=MERGER,
                       committer=MERGER, message="msg", sign=bare.sign, squash_author=POSTER)
        assert isinstance(caught.value, ConflictError)
        assert bare.objects() == before and bare.packs() == packs  # nothing written
        assert bare.signed_payloads == [] or style in ("merge", "squash")
        if failure is errors.MergeConflict:
            assert caught.value.paths == ("a.txt",) and caught.value.style == style
            # git agrees: its own merge of the two conflicts on the same file.
            assert bare.merge_tree(base, head).returncode == 1
            assert "a.txt" in bare.merge_tree(base, head).stdout.decode().split("\0")
            if style.startswith("rebase"):  # the first commit replayed, the second did not
                assert caught.value.commit == pr_commits[1].decode()
        if failure is errors.NotFastForward:
            assert bare.run("merge-base", "--is-ancestor", base.decode(), head.decode(),
                            check=False).returncode == 1
        return

    out = merge_pull(bare.store, style=style, base=base, head=head, author=MERGER,
                     committer=MERGER, message="Merge pull request 'x' (#1)", sign=bare.sign,
                     squash_author=POSTER)
    assert isinstance(out, MergeOutcome) and out.merge_commit == out.new_head
    bare.repo.refs[b"refs/heads/main"] = out.new_head
    bare.run("fsck", "--strict", "--no-dangling")
    assert bare.git("rev-parse", "main").strip() == out.new_head.decode()
    assert bare.git("merge-base", "--is-ancestor", base.decode(), "main") == ""  # base kept
    assert bare.packs() == packs + (1 if out.commits_created else 0)  # one pack, or none
    for made in out.commits_created:
        assert bare.git("cat-file", "-t", made.decode()).strip() == "commit"
    # Whatever the style, the base branch now holds what git's own merge gives.
    assert bare.tree(out.new_head) == bare.merge_tree(base, head).stdout.decode().split("\0")[0]
    CHECKS[style](bare, base, head, pr_commits, out, kind)


def check_merge(bare, base, head, pr_commits, out, kind):
    assert out.commits_created == (out.new_head,)
    assert bare.parents(out.new_head) == [base, head]  # --no-ff, even when ff is possible
    names = bare.names(out.new_head)
    assert "feature.txt" in names and ("base.txt" in names) == (kind == "clean")
    if kind == "clean":
        assert bare.show(out.new_head, "a.txt") == b"1\nBASE\n3\n4\n5\n6\nHEAD\n"
    (author, date, committer, cdate, message), = bare.people(f"{out.new_head.decode()}^!")
    assert (author, date) == person(MERGER) and (committer, cdate) == person(MERGER)
    assert message == "Merge pull request 'x' (#1)"
    assert_signed(bare, out.new_head)


def check_squash(bare, base, head, pr_commits, out, kind):
    assert out.commits_created == (out.new_head,)
    assert bare.parents(out.new_head) == [base]
    changed = bare.git("diff", "--name-only", base.decode(), out.new_head.decode()).split()
    assert changed == ["a.txt", "feature.txt"]  # both PR commits' changes, in one commit
    (author, date, committer, _, _), = bare.people(f"{out.new_head.decode()}^!")
    assert (author, date) == person(POSTER) and committer == person(MERGER)[0]
    assert_signed(bare, out.new_head)


def check_rebase(bare, base, head, pr_commits, out, kind):
    if kind == "fast-forward":  # already on top of base: git leaves the branch as it is
        assert out.new_head == head and out.commits_created == ()
        return
    rebased = bare.git("rev-list", "--reverse", f"{base.decode()}..main").split()
    assert [c.encode() for c in rebased] == list(out.commits_created) and len(rebased) == 2
    assert bare.git("rev-list", "--min-parents=2", f"{base.decode()}..main") == ""  # linear
    assert bare.parents(out.commits_created[0]) == [base]
    assert not set(out.commits_created) & set(pr_commits)  # new commits, originals untouched
    assert_rebased(bare, base, out.new_head, pr_commits)


def check_rebase_merge(bare, base, head, pr_commits, out, kind):
    tip = out.commits_created[-2] if len(out.commits_created) > 1 else head
    assert bare.parents(out.new_head) == [base, tip]
    assert out.commits_created[-1] == out.new_head
    (_, _, _, _, message), = bare.people(f"{out.new_head.decode()}^!")
    assert message == "Merge pull request 'x' (#1)"
    assert_signed(bare, out.new_head)
    if kind == "fast-forward":
        assert tip == head and len(out.commits_created) == 1
    else:
        assert bare.git("rev-list", "--min-parents=2", f"{base.decode()}..{tip.decode()}") == ""
        assert_rebased(bare, base, tip, pr_commits)


def check_fast_forward_only(bare, base, head, pr_commits, out, kind):
    assert out.new_head == head and out.commits_created == ()
    assert bare.signed_payloads == []


CHECKS = {"merge": check_merge, "squash": check_squash, "rebase": check_rebase,
          "rebase-merge": check_rebase_merge, "fast-forward-only": check_fast_forward_only}


def assert_signed(bare: Bare, commit: bytes):
    raw = bare.raw(commit)
    assert b"\ngpgsig -----BEGIN PGP SIGNATURE-----\n" in raw
    # The signer was given exactly the commit git verifies: the object without gpgsig.
    header, _, body = raw.partition(b"\n\n")
    unsigned = b"\n".join(line for line in header.split(b"\n")
                          if not line.startswith((b"gpgsig ", b" "))) + b"\n\n" + body
    assert bare.signed_payloads[-1] == unsigned


def assert_rebased(bare: Bare, base: bytes, tip: bytes, originals: list[bytes]):
    """Replayed commits keep author, author date and message; the merger commits them;
    none is signed."""
    replayed = bare.people(f"{base.decode()}..{tip.decode()}")
    before = bare.people(f"{originals[0].decode()}~1..{originals[-1].decode()}")
    assert [(a, d, m) for a, d, _, _, m in replayed] == [(a, d, m) for a, d, _, _, m in before]
    assert [r[0] for r in replayed] == [person(BOB)[0], person(CAROL)[0]]
    assert all((c, cd) == person(MERGER) for _, _, c, cd, _ in replayed)
    for commit in bare.git("rev-list", f"{base.decode()}..{tip.decode()}").split():
        assert b"gpgsig" not in bare.raw(commit.encode())


# --- rebase, compared with git rebase --------------------------------------------------------

def test_rebase_matches_git_rebase(bare, tmp_path):
    """A PR that merged the base branch in, holds an empty commit and one whose change is
    upstream already: git drops the merge and the already-applied commit, keeps the empty
    one; the replayed trees, authors and messages must be git's."""
    root = bare.commit(None, trees.write("a.txt", LINES), trees.write("lib/x.py", b"x\n"))
    b1 = bare.commit(root, trees.write("base.txt", b"b1\n"), message="B1")
    b2 = bare.commit(b1, trees.write("lib/x.py", b"x = 2\n"), message="B2")
    h1 = bare.commit(root, trees.write("a.txt", b"1\nH1\n3\n4\n5\n6\n7\n"), author=BOB,
                     message="H1")
    empty = commit_edits(bare.store, parent=h1, edits=[], author=CAROL, message="empty").id
    # "Update branch" by merge: the base's B1 merged into the PR, with a change of its own
    # that git rebase loses along with the merge.
    merged_tree = trees.build_tree(bare.store, merge_commits(bare.store, empty, b1).tree,
                                   [trees.write("only-in-merge.txt", b"m\n")])
    merged = write_commit(bare.store, tree=merged_tree, parents=[empty, b1], author=BOB,
                          message="merge B1")
    same = bare.commit(merged.id, trees.write("lib/x.py", b"x = 2\n"), author=CAROL,
                       message="same as B2")
    h4 = bare.commit(same, trees.write("a.txt", b"1\nH1\n3\n4\n5\n6\nH4\n"),
                     trees.delete("base.txt"), author=BOB, message="H4\n\nbody")
    assert len(commits_between(bare.store, b2, h4)) == 5

    out = merge_pull(bare.store, style="rebase", base=b2, head=h4, author=MERGER,
                     committer=MERGER, message="")
    bare.repo.refs[b"refs/heads/ours"] = out.new_head
    bare.repo.refs[b"refs/heads/pr"] = h4
    bare.run("fsck", "--strict", "--no-dangling")
    work = tmp_path / "work"
    bare.run("worktree", "add", "-q", str(work), "pr")
    bare.run("-c", "user.name=Mona Merger", "-c", "user.email=mona@example.com", "rebase",
             b2.decode(), cwd=work)

    ours, theirs = bare.people(f"{b2.decode()}..ours"), bare.people(f"{b2.decode()}..pr")
    assert [t[:2] + t[4:] for t in ours] == [t[:2] + t[4:] for t in theirs]
    assert [m for *_, m in ours] == ["H1", "empty", "H4\n\nbody"]
    ours_trees = bare.git("log", "--reverse", "--format=%T", f"{b2.decode()}..ours").split()
    assert ours_trees == bare.git("log", "--reverse", "--format=%T", f"{b2.decode()}..pr").split()
    assert len(out.commits_created) == 3
    assert "only-in-merge.txt" not in bare.names(out.new_head)


def parallel_lines(bare: Bare, dates: tuple[int, int]) -> tuple[bytes, bytes]:
    """A PR of two lines of work merged together, then one more commit; ``dates`` are
    the two lines' commit dates, so that date order and git's graph order can differ."""
    root = bare.commit(None, trees.write("a.txt", LINES))
    base = bare.commit(root, trees.write("base.txt", b"b\n"), message="B")
    tips = []
    for name, offset in zip(("h", "s"), dates):
        who = Identity(name.upper(), f"{name}@example.com", 1_700_000_000 + offset)
        first = bare.commit(root, trees.write(f"{name}1.txt", b"1\n"), author=who,
                            message=f"{name}1")
        tips.append(bare.commit(first, trees.write("a.txt", LINES + name.encode() + b"\n")
                                if name == "h" else trees.write(f"{name}2.txt", b"2\n"),
                                author=who, message=f"{name}2"))
    merged = write_commit(bare.store, tree=merge_commits(bare.store, *tips).tree, parents=tips,
                          author=Identity("M", "m@example.com", 1_700_000_010), message="M")
    head = bare.commit(merged.id, trees.write("a.txt", LINES + b"h\nlast\n"), author=BOB,
                       message="last")
    return base, head


@pytest.mark.parametrize("dates", [(1, 2), (2, 1)])
def test_parallel_lines_replay_in_git_rebase_order(bare, tmp_path, dates):
    base, head = parallel_lines(bare, dates)
    listed = [c.id.decode() for c in commits_between(bare.store, base, head)]
    assert listed == bare.git("rev-list", "--reverse", "--topo-order",
                              f"{base.decode()}..{head.decode()}").split()
    assert [c.id.decode() for c in commits_between(bare.store, base, head, limit=2)] == listed[-2:]
    assert commits_between(bare.store, base, head, limit=0) == []
    assert commits_between(bare.store, head, head) == []

    out = merge_pull(bare.store, style="rebase", base=base, head=head, author=MERGER,
                     committer=MERGER, message="")
    bare.repo.refs[b"refs/heads/ours"] = out.new_head
    bare.repo.refs[b"refs/heads/pr"] = head
    work = tmp_path / "work"
    bare.run("worktree", "add", "-q", str(work), "pr")
    bare.run("-c", "user.name=Mona Merger", "-c", "user.email=mona@example.com", "rebase",
             base.decode(), cwd=work)
    replayed = bare.git("log", "--reverse", "--format=%T %s", f"{base.decode()}..ours")
    assert replayed == bare.git("log", "--reverse", "--format=%T %s", f"{base.decode()}..pr")
    assert [line.split()[1] for line in replayed.splitlines()] == ["h1", "h2", "s1", "s2", "last"]


def test_commits_between_unknown_commit(bare):
    base, _, _ = history(bare, "clean")
    with pytest.raises(errors.ObjectMissing):
        commits_between(bare.store, base, "0" * 40)


# --- refusals --------------------------------------------------------------------------------

def test_unrelated_histories_are_refused_by_every_style(bare):
    base, _, _ = history(bare, "clean")
    lonely = bare.commit(None, trees.write("other.txt", b"o\n"), author=BOB, message="lonely")
    assert bare.run("merge-base", base.decode(), lonely.decode(), check=False).returncode == 1
    before = bare.objects()
    for style in STYLES:
        with pytest.raises(errors.UnrelatedHistories) as caught:
            merge_pull(bare.store, style=style, base=base, head=lonely, author=MERGER,
                       committer=MERGER, message="m")
        assert isinstance(caught.value, ConflictError) and caught.value.style == style
    assert bare.objects() == before


def test_unknown_style_and_unknown_commits(bare):
    base, head, _ = history(bare, "clean")
    with pytest.raises(errors.UnknownMergeStyle) as caught:
        merge_pull(bare.store, style="manually-merged", base=base, head=head, author=MERGER,
                   committer=MERGER, message="m")
    assert isinstance(caught.value, InvalidInput)
    with pytest.raises(errors.ObjectMissing):
        merge_pull(bare.store, style="merge", base=base, head="1" * 40, author=MERGER,
                   committer=MERGER, message="m")
    assert issubclass(errors.MergeConflict, ConflictError)
    assert issubclass(errors.NotFastForward, ConflictError)


def test_same_commit_is_nothing_to_merge(bare):
    base, _, _ = history(bare, "clean")
    with pytest.raises(errors.NothingToMerge):
        merge_pull(bare.store, style="fast-forward-only", base=base, head=base.decode(),
                   author=MERGER, committer=MERGER, message="m")


def test_rebase_of_changes_already_upstream_leaves_the_base(bare):
    """Every PR commit is on the base already (cherry-picked): the rebase drops them all,
    as git does, and rebase-merge has nothing left to merge."""
    root = bare.commit(None, trees.write("a.txt", LINES))
    base = bare.commit(root, trees.write("fix.txt", b"fix\n"), message="fix (picked)")
    head = bare.commit(root, trees.write("fix.txt", b"fix\n"), author=BOB, message="fix")
    for style in ("rebase", "rebase-merge"):
        out = merge_pull(bare.store, style=style, base=base, head=head, author=MERGER,
                         committer=MERGER, message="m", sign=bare.sign)
        assert out == MergeOutcome(base, base, ())
    assert bare.signed_payloads == []


def test_squash_author_defaults_to_the_merger_and_unsigned_without_signer(bare):
    base, head, _ = history(bare, "clean")
    out = merge_pull(bare.store, style="squash", base=base, head=head, author=POSTER,
                     committer=MERGER, message="Title (#3)")
    (author, _, committer, _, message), = bare.people(f"{out.new_head.decode()}^!")
    assert (author, committer, message) == (person(POSTER)[0], person(MERGER)[0], "Title (#3)")
    assert b"gpgsig" not in bare.raw(out.new_head)


# --- messages --------------------------------------------------------------------------------

def test_default_messages():
    common = dict(title="Fix it", index=7, head_label="feature", base_branch="main")
    assert default_message("squash", **common) == "Fix it (#7)"
    assert default_message("merge", **common) == \
        "Merge pull request 'Fix it' (#7) from feature into main"
    assert default_message("rebase-merge", **common, fork_label="bob/fork") == \
        "Merge pull request 'Fix it' (#7) from bob/fork:feature into main"
    assert default_message("rebase", **common) == ""
    with pytest.raises(errors.UnknownMergeStyle):
        default_message("octopus", **common)
