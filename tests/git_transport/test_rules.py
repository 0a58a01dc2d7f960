"""Git smart HTTP's rules, on the in-memory twin (the fast layer): who may fetch and who
may push (``repos.git_repo``, the HTTP edge: 401 with a challenge, 404, 403), and what a
push's ref updates go through once past it, by calling ``git_transport.service``'s
``receive_pack`` with a push built here (no git subprocess): the refs move together with
their branch records, a stale old value moves nothing, hidden refs are refused per ref,
and the pre-receive refusals (the default branch, protected branches) decline the whole
push with the reason on the client's terminal."""
from __future__ import annotations

import io
from dataclasses import dataclass, field

import pytest

from chalicelib import accounts, contents, events, protection, repos
from chalicelib.git_transport import service
from chalicelib.repos import access
from chalicelib.repos.options import AddCollaboratorOption
from chalicelib.settings import overridden
from tests import memory_scene as scene
from tests.conftest import drain_outbox
from tests.repos.test_events_repos import make_commit

ZERO = "0" * 40
CAPABILITIES = "report-status side-band-64k delete-refs"


# A push, built and read as the git client does ------------------------------------------------

def new_commit(parent: str | None, files: dict[str, bytes], message: str):
    """A commit on ``parent`` with exactly ``files`` (its id), and the objects a pack needs."""
    commit, objects = make_commit(parent, files, message)
    return commit.id.decode(), objects


def request_body(updates: list[tuple[str, str, str]], objects=()) -> bytes:
    """``POST git-receive-pack``'s body: ``(ref, old, new)`` commands, then the pack."""
    from dulwich.object_format import get_object_format
    from dulwich.pack import write_pack_objects
    from dulwich.protocol import pkt_line

    body = b""
    for i, (ref, old, new) in enumerate(updates):
        capabilities = b"\x00" + CAPABILITIES.encode() if i == 0 else b""
        body += pkt_line(f"{old} {new} {ref}".encode() + capabilities + b"\n")
    body += b"0000"
    if any(new != ZERO for _, _, new in updates):
        pack = io.BytesIO()
        write_pack_objects(pack.write, [(o, None) for o in objects], get_object_format("sha1"))
        body += pack.getvalue()
    return body


def pkt_lines(data: bytes):
    while data:
        size = int(data[:4], 16)
        if size == 0:
            data = data[4:]
            continue
        yield data[4:size]
        data = data[size:]


@dataclass
class Report:
    """What ``git push`` shows: each ref's status ("ok" or the reason) and the lines the
    server printed ("remote: …")."""
    refs: dict[str, str] = field(default_factory=dict)
    remote: list[str] = field(default_factory=list)


def read_report(answer: bytes) -> Report:
    report, status = Report(), b""
    for line in pkt_lines(answer):
        channel, payload = line[0], line[1:]
        if channel == 1:
            status += payload
        elif channel == 2:
            report.remote += [t for t in payload.decode().splitlines() if t]
    for line in pkt_lines(status):
        kind, ref, *reason = line.decode().rstrip("\n").split(" ", 2)
        if kind in ("ok", "ng"):
            report.refs[ref] = "ok" if kind == "ok" else reason[0]
    return report


def push(view, who: str, updates, objects=()) -> Report:
    user = accounts.account_by_name(who)
    mine = repos.view_of(repos.repo_by_id(int(view.repo.id)), scene.caller(user))
    return read_report(service.receive_pack(mine, request_body(updates, objects), actor=user))


def tip(view, branch: str) -> str | None:
    info = contents.branch_info(int(view.repo.id), branch)
    return info.commit_id if info else None


@pytest.fixture
def proj(memory):
    """alice's public ``proj`` (a README on ``main``)."""
    alice = scene.user("alice")
    return scene.repo(alice, "proj", auto_init=True)


# Who may fetch and push (the HTTP edge) -------------------------------------------------------

def info_refs(api, path: str, service_name: str, **auth):
    return api.get(f"{path}/info/refs?service={service_name}", raw=True, **auth)


def test_who_may_fetch_over_http(fast_api):
    alice = scene.user("alice")
    scene.user("carol")
    scene.repo(alice, "open", auto_init=True)
    scene.repo(alice, "closed", private=True, auto_init=True)
    fetch = "git-upload-pack"
    assert info_refs(fast_api, "/alice/open.git", fetch).status == 200     # anonymous
    # Anonymous callers are asked for credentials, whether the repository is private or
    # missing: they cannot tell the two apart.
    for path in ("/alice/closed.git", "/alice/nothing.git"):
        refused = info_refs(fast_api, path, fetch)
        assert refused.status == 401 and refused.headers["www-authenticate"].startswith("Basic")
    carol = ("carol", scene.PASSWORD)
    assert info_refs(fast_api, "/alice/closed.git", fetch, auth=carol).status == 404
    assert info_refs(fast_api, "/alice/closed", fetch, auth=("alice", scene.PASSWORD)
                     ).status == 200
    with overridden({"NIMBUS__SERVICE__REQUIRE_SIGNIN_VIEW": "true"}):
        assert info_refs(fast_api, "/alice/open.git", fetch).status == 401
        assert info_refs(fast_api, "/alice/open.git", fetch, auth=carol).status == 200


def test_who_may_push_over_http(fast_api):
    from chalicelib.repo_admin import EditRepoOption
    from chalicelib.repo_admin import service as repo_admin

    alice, _, _ = (scene.user(name) for name in ("alice", "bob", "carol"))
    view = scene.repo(alice, "proj", auto_init=True)
    access.add_collaborator(alice, view, "bob", AddCollaboratorOption(permission="read"))
    access.add_collaborator(alice, view, "carol", AddCollaboratorOption(permission="write"))
    _, read_only = accounts.create_token(alice, "alice", accounts.CreateAccessTokenOption(
        name="ro", scopes=["read:repository"]))
    send = "git-receive-pack"
    assert info_refs(fast_api, "/alice/proj.git", send).status == 401
    refused = info_refs(fast_api, "/alice/proj.git", send, auth=("bob", scene.PASSWORD))
    assert refused.status == 403 and b"you may read but not push" in refused.body
    assert info_refs(fast_api, "/alice/proj.git", send, auth=("carol", scene.PASSWORD)
                     ).status == 200
    refused = info_refs(fast_api, "/alice/proj.git", send, token=read_only)
    assert refused.status == 403 and b"required scope: write:repository" in refused.body
    assert info_refs(fast_api, "/alice/proj.git", "git-upload-pack", token=read_only
                     ).status == 200
    repo_admin.edit_repo(scene.caller(alice), view, EditRepoOption(archived=True))
    refused = info_refs(fast_api, "/alice/proj.git", send, auth=("alice", scene.PASSWORD))
    assert refused.status == 403 and b"archived" in refused.body


# What a push goes through ---------------------------------------------------------------------

def test_a_push_moves_its_refs_with_their_records_and_events(proj):
    main = tip(proj, "main")
    newer, objects = new_commit(main, {"README.md": b"# proj\n\nmore\n"}, "more")
    drain_outbox()
    report = push(proj, "alice", [("refs/heads/main", main, newer),
                                  ("refs/heads/topic", ZERO, newer)], objects)
    assert report.refs == {"refs/heads/main": "ok", "refs/heads/topic": "ok"}
    assert (tip(proj, "main"), tip(proj, "topic")) == (newer, newer)
    assert contents.branch_info(int(proj.repo.id), "topic").message == "more"
    pushed = [e for e in drain_outbox() if isinstance(e, events.RepositoryPushed)]
    assert sorted((e.ref, e.before, e.after) for e in pushed) == [
        ("refs/heads/main", main, newer), ("refs/heads/topic", ZERO, newer)]


def test_a_stale_old_value_moves_nothing(proj):
    main = tip(proj, "main")
    first, objects = new_commit(main, {"a.txt": b"a\n"}, "first")
    assert push(proj, "alice", [("refs/heads/main", main, first)], objects).refs == {
        "refs/heads/main": "ok"}
    # A second client still believes main is where it was.
    theirs, more = new_commit(main, {"b.txt": b"b\n"}, "theirs")
    report = push(proj, "alice", [("refs/heads/main", main, theirs),
                                  ("refs/heads/side", ZERO, theirs)], more)
    assert report.refs == {"refs/heads/main": "stale old value: ref moved since fetched",
                           "refs/heads/side": "atomic transaction failed"}
    assert (tip(proj, "main"), tip(proj, "side")) == (first, None)


def test_hidden_and_malformed_refs_are_refused_one_by_one(proj):
    main = tip(proj, "main")
    report = push(proj, "alice", [("refs/pull/1/head", ZERO, main),
                                  ("refs/heads/bad..name", ZERO, main),
                                  ("refs/heads/fine", ZERO, main)])
    assert report.refs == {"refs/pull/1/head": "deny updating a hidden ref",
                           "refs/heads/bad..name": "funny refname",        # git's words
                           "refs/heads/fine": "ok"}
    git = contents.open_git(proj.repo)
    assert b"refs/pull/1/head" not in git.refs and tip(proj, "fine") == main


def test_deleting_the_default_branch_declines_the_whole_push(proj):
    main = tip(proj, "main")
    report = push(proj, "alice", [("refs/heads/main", main, ZERO),
                                  ("refs/heads/topic", ZERO, main)])
    assert report.refs == {"refs/heads/main": "pre-receive hook declined",
                           "refs/heads/topic": "pre-receive hook declined"}
    assert report.remote == ["Nimbus: branch main is the default branch and cannot be deleted"]
    assert (tip(proj, "main"), tip(proj, "topic")) == (main, None)
    # Any other branch may go.
    assert push(proj, "alice", [("refs/heads/topic", ZERO, main)]).refs == {
        "refs/heads/topic": "ok"}
    assert push(proj, "alice", [("refs/heads/topic", main, ZERO)]).refs == {
        "refs/heads/topic": "ok"}
    assert tip(proj, "topic") is None


def test_a_protected_branch_refuses_pushes_and_force_pushes_by_its_rule(proj):
    alice = accounts.account_by_name("alice")
    scene.user("bob")
    access.add_collaborator(alice, proj, "bob", AddCollaboratorOption(permission="write"))
    main = tip(proj, "main")
    ahead, objects = new_commit(main, {"a.txt": b"a\n"}, "ahead")
    aside, others = new_commit(main, {"b.txt": b"b\n"}, "aside")
    only_alice = protection.CreateBranchProtectionOption(
        rule_name="main", enable_push=True, enable_push_whitelist=True,
        push_whitelist_usernames=["alice"])
    protection.create_branch_rule(proj, scene.caller(alice), only_alice)
    report = push(proj, "bob", [("refs/heads/main", main, ahead)], objects)
    assert report.refs == {"refs/heads/main": "pre-receive hook declined"}
    assert report.remote == ["Nimbus: Not allowed to push to protected branch main"]
    assert push(proj, "bob", [("refs/heads/free", ZERO, ahead)], objects).refs == {
        "refs/heads/free": "ok"}                                 # no rule, no refusal
    assert push(proj, "alice", [("refs/heads/main", main, ahead)], objects).refs == {
        "refs/heads/main": "ok"}
    # Rewriting main's history is a force push, which the rule does not enable.
    report = push(proj, "alice", [("refs/heads/main", ahead, aside)], others)
    assert report.remote == ["Nimbus: branch main is protected from force push"]
    assert tip(proj, "main") == ahead
