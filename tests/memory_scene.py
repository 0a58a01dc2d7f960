"""The scene of a fast rule test, set through the domains' faces: accounts, organizations,
repositories and the callers who act on them, on the in-memory twin (the ``memory``
fixture), with no HTTP in between.

    def test_something(memory):
        alice = scene.user("alice")
        view = scene.repo(alice, "proj", auto_init=True)
        ...
"""
from __future__ import annotations

from chalicelib import accounts, repo_admin, repos

PASSWORD = "secret-pass-1"


def user(name: str, *, admin: bool = False, **fields):
    """A user account (``fields``: CreateUserOption's, e.g. ``restricted=True``)."""
    option = accounts.CreateUserOption(**{"username": name, "email": f"{name}@example.com",
                                          "password": PASSWORD, **fields})
    return accounts.create_account(option, is_admin=admin)


def caller(account, *, public_only: bool = False):
    return repos.Caller(account, public_only=public_only)


def org(owner, name: str, **fields):
    """An organization whose Owners team holds ``owner``."""
    from chalicelib.orgs import service
    from chalicelib.orgs.options import CreateOrgOption

    return service.create_org(owner, owner, CreateOrgOption(username=name, **fields))


def repo(owner, name: str, *, actor=None, **fields):
    """A repository of ``owner`` made by ``actor`` (default: the owner itself); ``fields``:
    CreateRepoOption's (``private``, ``auto_init`` …)."""
    option = repo_admin.CreateRepoOption(name=name, **fields)
    return repo_admin.create_repo(caller(actor or owner), owner, option)


def fresh(account):
    """The account as stored now (after writes that changed it)."""
    return accounts.account_by_id(int(account.id), consistent=True)


def shared_repo(name: str, *, writers=("bob",), readers=("carol",), others=(), **fields):
    """alice's repository ``name`` (a first commit unless ``auto_init=False``) with
    collaborators who write and who read, and ``others`` who are strangers to it; the
    people by name, and the repository as alice sees it."""
    from chalicelib.repos import access
    from chalicelib.repos.options import AddCollaboratorOption

    people = {login: user(login) for login in ("alice", *writers, *readers, *others)}
    view = repo(people["alice"], name, **{"auto_init": True, **fields})
    for login, mode in [*((w, "write") for w in writers), *((r, "read") for r in readers)]:
        access.add_collaborator(people["alice"], view, login,
                                AddCollaboratorOption(permission=mode))
    return people, view


class Tracker(dict):
    """A repository's tracker acted on by name: ``people`` (login -> account) and
    ``repo_id`` set by the test's scene; domain tests add what they read back."""

    def ctx(self, who):
        from chalicelib import issues

        acting = caller(self.people[who])
        view = repos.view_of(repos.repo_by_id(self.repo_id), acting)
        return issues.issue_context(acting, view)

    def open(self, who, title, body=""):
        from chalicelib import issues

        return issues.create_issue(self.ctx(who), issues.CreateIssueOption(title=title, body=body))

    def comment(self, who, number, body):
        from chalicelib import issues

        option = issues.CreateIssueCommentOption(body=body)
        return issues.create_comment(self.ctx(who), number, option)[0]
