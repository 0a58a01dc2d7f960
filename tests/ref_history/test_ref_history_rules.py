"""The ref history on the in-memory twin (the fast layer): which moves are forced (a
branch moved off its history, a tag moved; never a creation or a deletion), one entry
per move of a branch or tag written once however often its event is delivered, the
filters, what compaction keeps, expiry, and the rules of a restore."""
from __future__ import annotations

import pytest
from dulwich.objects import Commit

from chalicelib import clock, contents, events, ref_history, repos
from chalicelib.errors import InvalidInput, NotFoundError, PermissionDenied
from chalicelib.ref_history import service, store
from tests import memory_scene as scene
from tests.conftest import drain_outbox

MAIN = "refs/heads/main"


class Proj:
    """alice's repository ``proj``: bob writes, carol reads."""

    def __init__(self):
        self.people, view = scene.shared_repo("proj")
        self.repo_id = int(view.repo.id)
        drain_outbox()

    def view(self, who="alice"):
        acting = scene.caller(self.people[who])
        return repos.view_of(repos.repo_by_id(self.repo_id), acting)

    def git(self):
        return contents.open_git(self.view().repo)

    def tip(self, ref=MAIN) -> str:
        return self.git().refs[ref.encode()].decode()

    def commits(self, parent: str, count: int, label: str) -> list[str]:
        """``count`` commits in a row on ``parent`` (same tree), oldest first."""
        git = self.git()
        tree = git[parent.encode()].tree
        made, previous = [], parent.encode()
        for n in range(count):
            c = Commit()
            c.tree, c.parents = tree, [previous]
            c.author = c.committer = b"Alice <alice@example.com>"
            c.author_time = c.commit_time = 1_700_000_000 + n
            c.author_timezone = c.commit_timezone = 0
            c.message = f"{label} {n}\n".encode()
            git.object_store.add_objects([(c, None)])
            made.append(c.id.decode())
            previous = c.id
        return made

    def move(self, ref, old, new, who="alice"):
        view = self.view(who)
        contents.apply_ref_updates(view.repo, self.git(), [(ref, old, new)],
                                   actor=self.people[who])

    def deliver(self) -> list:
        """The push events waiting, each handed to the ref history twice (a redelivery)."""
        pushed = [e for e in drain_outbox() if isinstance(e, events.RepositoryPushed)]
        for event in pushed + pushed:
            if ref_history.wants_event(event):
                ref_history.on_event(event)
        return pushed

    def history(self, **query):
        shown, _, _ = service.list_activity(self.view(), service.RefFilter(**query),
                                            offset=0, limit=50)
        return [(e.ref, e.action, e.forced, e.old, e.new) for e in shown]


@pytest.fixture
def proj(memory):
    return Proj()


def test_forced_is_a_move_off_the_old_tips_history(proj):
    start = proj.tip()
    c1, c2, c3 = proj.commits(start, 3, "line")
    proj.move(MAIN, start, c3)                       # fast-forward
    proj.move(MAIN, c3, c1)                          # back two commits
    (d1,) = proj.commits(c1, 1, "other")
    proj.move(MAIN, c1, d1)                          # forward again
    proj.move(MAIN, d1, c2)                          # onto another line
    proj.move("refs/tags/v1", None, c1)
    proj.move("refs/tags/v1", c1, c2)                # a tag moved
    proj.move("refs/tags/v1", c2, None)
    pushed = proj.deliver()
    assert [(e.ref, e.forced) for e in pushed] == [
        (MAIN, False), (MAIN, True), (MAIN, False), (MAIN, True),
        ("refs/tags/v1", False), ("refs/tags/v1", True), ("refs/tags/v1", False)]


def test_one_entry_per_move_once_newest_first_with_filters(proj):
    start = proj.tip()
    c1, c2, c3 = proj.commits(start, 3, "line")
    proj.move(MAIN, start, c3, who="bob")
    proj.move(MAIN, c3, c1, who="bob")
    proj.move("refs/heads/feature", None, c2)
    proj.move("refs/heads/feature", c2, None)
    proj.move("refs/tags/main", None, c1)            # a tag named like the branch
    proj.deliver()
    assert proj.history() == [
        ("refs/tags/main", "created", False, contents.ZERO, c1),
        ("refs/heads/feature", "deleted", False, c2, contents.ZERO),
        ("refs/heads/feature", "created", False, contents.ZERO, c2),
        (MAIN, "updated", True, c3, c1),
        (MAIN, "updated", False, start, c3)]
    assert proj.history(ref="main") == [
        ("refs/tags/main", "created", False, contents.ZERO, c1),
        (MAIN, "updated", True, c3, c1), (MAIN, "updated", False, start, c3)]
    assert proj.history(ref=MAIN, forced=True) == [(MAIN, "updated", True, c3, c1)]
    assert proj.history(forced=True) == [(MAIN, "updated", True, c3, c1)]
    assert len(proj.history(forced=False)) == 4
    shown, movers, _ = service.list_activity(proj.view("carol"), service.RefFilter(ref=MAIN),
                                             offset=0, limit=1)
    assert [e.actor_login for e in shown] == ["bob"]
    assert movers[int(shown[0].actor_id)].login == "bob"
    # What compaction keeps: the old tips of forced moves and deletions.
    assert ref_history.kept_tips([proj.repo_id]) == {c3, c2}


def test_expired_entries_are_neither_listed_nor_restored_nor_kept(proj, monkeypatch):
    start = proj.tip()
    (c1,) = proj.commits(start, 1, "line")
    proj.move(MAIN, start, c1)
    proj.move(MAIN, c1, start)
    proj.deliver()
    entry = next(iter(store.entries(proj.repo_id, now=clock.now(), forced=True)))
    later = float(entry.expires) + 1
    with clock.driven_by(lambda: later):
        assert proj.history() == []
        assert ref_history.kept_tips([proj.repo_id]) == set()
        with pytest.raises(NotFoundError):
            service.restore(scene.caller(proj.people["alice"]), proj.view(), int(entry.id))


def test_restore_rules(proj):
    start = proj.tip()
    c1, c2 = proj.commits(start, 2, "line")
    proj.move(MAIN, start, c2)
    proj.move(MAIN, c2, start)                       # c1, c2 dropped
    proj.move("refs/heads/gone", None, c1)
    proj.move("refs/heads/gone", c1, None)
    proj.deliver()
    entries = {(e.ref, e.action, e.forced): e
               for e in store.entries(proj.repo_id, now=clock.now())}
    forced = entries[(MAIN, "updated", True)]
    created = entries[("refs/heads/gone", "created", False)]
    deleted = entries[("refs/heads/gone", "deleted", False)]

    with pytest.raises(PermissionDenied):            # a reader
        service.restore(scene.caller(proj.people["carol"]), proj.view("carol"), int(forced.id))
    with pytest.raises(NotFoundError):
        service.restore(scene.caller(proj.people["bob"]), proj.view("bob"), 987654)
    with pytest.raises(InvalidInput):                # no earlier tip
        service.restore(scene.caller(proj.people["bob"]), proj.view("bob"), int(created.id))

    done = service.restore(scene.caller(proj.people["bob"]), proj.view("bob"), int(forced.id))
    assert (done.ref, done.old, done.new, done.changed) == (MAIN, start, c2, True)
    assert proj.tip() == c2
    again = service.restore(scene.caller(proj.people["bob"]), proj.view("bob"), int(forced.id))
    assert again.changed is False and proj.tip() == c2
    service.restore(scene.caller(proj.people["bob"]), proj.view("bob"), int(deleted.id))
    assert proj.tip("refs/heads/gone") == c1
    # Each restore is a move of its own, in the history too.
    pushed = proj.deliver()
    assert [(e.ref, e.before, e.after, e.forced) for e in pushed] == [
        (MAIN, start, c2, False), ("refs/heads/gone", contents.ZERO, c1, False)]
    assert proj.history()[0][:2] == ("refs/heads/gone", "created")
