"""Who may do what: every caller against every kind of repository, every action.

404 where the caller may not see the repository, 403 where they may see it but not
act, 401 where an anonymous caller must sign in first.
"""
from enum import IntEnum

import pytest

from tests.conftest import ADMIN, basic


class M(IntEnum):
    NONE = 0
    READ = 1
    WRITE = 2
    ADMIN = 3
    OWNER = 4


TARGETS = ("uown/upub", "uown/upriv", "corp/opub", "corp/opriv")
CALLERS = ("anonymous", "stranger", "cread", "cwrite", "cadmin", "mread", "mwrite", "madmin",
           "corp-owner", "uown", "site-admin")


def expected_mode(caller: str, target: str) -> M:
    owner, name = target.split("/")
    private = name.endswith("priv")
    public_mode = M.NONE if private else M.READ
    if caller == "site-admin":
        return M.OWNER
    if caller.startswith("c") and caller != "corp-owner":
        return {"cread": M.READ, "cwrite": M.WRITE, "cadmin": M.ADMIN}[caller]
    if caller.startswith("m") and owner == "corp":
        # A team with admin owns the repositories it covers (Forgejo).
        return {"mread": M.READ, "mwrite": M.WRITE, "madmin": M.OWNER}[caller]
    if caller == "corp-owner" and owner == "corp":
        return M.OWNER
    if caller == "uown" and owner == "uown":
        return M.OWNER
    return public_mode


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    """One moto world for the whole matrix (building it per cell would take minutes)."""
    from moto import mock_aws

    with mock_aws():
        from app import app
        from chalicelib import aws
        from chalicelib.accounts.service import ensure_admin
        from chalicelib.store import table
        from infra.bootstrap import ensure_resources
        from tests.conftest import ApiClient

        aws.reset_clients()
        table.configure()
        ensure_resources()
        ensure_admin(ADMIN[0], ADMIN[1], "root@example.com")
        api = ApiClient(app)
        users = ("uown", "corp-owner", "stranger", "cread", "cwrite", "cadmin", "mread",
                 "mwrite", "madmin", "dummy")
        tokens = {u: (api.create_user(u), api.create_token(u))[1] for u in users}
        tokens["site-admin"] = api.create_token(*ADMIN)
        for name in ("upub", "upriv"):
            assert api.post("/user/repos", token=tokens["uown"], json={
                "name": name, "private": name == "upriv", "auto_init": True}).status == 201
        assert api.post("/orgs", token=tokens["corp-owner"], json={"username": "corp"}).status == 201
        for name in ("opub", "opriv"):
            assert api.post("/orgs/corp/repos", token=tokens["corp-owner"], json={
                "name": name, "private": name == "opriv", "auto_init": True}).status == 201
        for target in TARGETS:
            owner = "uown" if target.startswith("uown") else "corp-owner"
            for who, mode in (("cread", "read"), ("cwrite", "write"), ("cadmin", "admin")):
                r = api.put(f"/repos/{target}/collaborators/{who}", token=tokens[owner],
                            json={"permission": mode})
                assert r.status == 204, r
        for who, mode in (("mread", "read"), ("mwrite", "write"), ("madmin", "admin")):
            team = api.post("/orgs/corp/teams", token=tokens["corp-owner"], json={
                "name": f"t{mode}", "permission": mode}).json
            assert api.put(f"/teams/{team['id']}/members/{who}",
                           token=tokens["corp-owner"]).status == 204
            for name in ("opub", "opriv"):
                assert api.put(f"/teams/{team['id']}/repos/corp/{name}",
                               token=tokens["corp-owner"]).status == 204
        yield api, tokens
        aws.reset_clients()
        table.configure()


def _call(api, tokens, caller, method, path, **kw):
    token = None if caller == "anonymous" else tokens[caller]
    return api.request(method, path, token=token, **kw).status


def _git(api, tokens, caller, path):
    headers = {}
    if caller != "anonymous":
        headers["Authorization"] = basic(caller if caller != "site-admin" else ADMIN[0],
                                         tokens[caller])
    return api.request("GET", path, headers=headers, raw=True).status


def expect_read(mode, anonymous):
    return 200 if mode >= M.READ else 404


def expect_clone(mode, anonymous):
    return 200 if mode >= M.READ else 401 if anonymous else 404


def expect_level(level, ok=200):
    def decide(mode, anonymous):
        if anonymous:
            return 401
        if mode >= level:
            return ok
        return 403 if mode >= M.READ else 404
    return decide


ACTIONS = {
    "read metadata": (expect_read, lambda a, t, c, r: _call(a, t, c, "GET", f"/repos/{r}")),
    "read raw file": (expect_read, lambda a, t, c, r: _call(a, t, c, "GET",
                                                            f"/repos/{r}/raw/README.md")),
    "clone": (expect_clone, lambda a, t, c, r: _git(
        a, t, c, f"/{r}.git/info/refs?service=git-upload-pack")),
    "push": (expect_level(M.WRITE), lambda a, t, c, r: _git(
        a, t, c, f"/{r}.git/info/refs?service=git-receive-pack")),
    "edit": (expect_level(M.ADMIN), lambda a, t, c, r: _call(
        a, t, c, "PATCH", f"/repos/{r}", json={"description": f"edited by {c}"})),
    "manage collaborators": (expect_level(M.ADMIN, 204), lambda a, t, c, r: _call(
        a, t, c, "PUT", f"/repos/{r}/collaborators/dummy", json={"permission": "read"})),
    "manage hooks": (expect_level(M.ADMIN), lambda a, t, c, r: _call(
        a, t, c, "GET", f"/repos/{r}/hooks")),
    "manage deploy keys": (expect_level(M.ADMIN), lambda a, t, c, r: _call(
        a, t, c, "GET", f"/repos/{r}/keys")),
}


@pytest.mark.parametrize("action", list(ACTIONS))
def test_repository_matrix(world, action):
    api, tokens = world
    decide, call = ACTIONS[action]
    wrong = []
    for caller in CALLERS:
        for target in TARGETS:
            want = decide(expected_mode(caller, target), caller == "anonymous")
            got = call(api, tokens, caller, target)
            if got != want:
                wrong.append(f"{caller} {action} {target}: expected {want}, got {got}")
    assert not wrong, "\n".join(wrong)


def test_delete_matrix(world):
    """Only owners delete; the allowed cells are checked on throwaway repositories."""
    api, tokens = world
    wrong = []
    for caller in CALLERS:
        for target in TARGETS:
            mode = expected_mode(caller, target)
            if mode == M.OWNER:
                continue
            want = expect_level(M.OWNER, 204)(mode, caller == "anonymous")
            got = _call(api, tokens, caller, "DELETE", f"/repos/{target}")
            if got != want:
                wrong.append(f"{caller} delete {target}: expected {want}, got {got}")
    assert not wrong, "\n".join(wrong)
    for caller, owner in (("madmin", "corp"), ("corp-owner", "corp"), ("site-admin", "corp"),
                          ("uown", "uown"), ("site-admin", "uown")):
        creator = "corp-owner" if owner == "corp" else "uown"
        path = "/orgs/corp/repos" if owner == "corp" else "/user/repos"
        name = f"bin-{caller}"
        assert api.post(path, token=tokens[creator], json={"name": name}).status == 201
        if owner == "corp":
            teams = api.get("/orgs/corp/teams", token=tokens["corp-owner"]).json
            tadmin = next(t for t in teams if t["name"] == "tadmin")
            api.put(f"/teams/{tadmin['id']}/repos/corp/{name}", token=tokens["corp-owner"])
        assert _call(api, tokens, caller, "DELETE", f"/repos/{owner}/{name}") == 204, caller


def test_edit_organization_matrix(world):
    api, tokens = world
    allowed = {"corp-owner", "site-admin"}
    wrong = []
    for caller in CALLERS:
        want = 401 if caller == "anonymous" else 200 if caller in allowed else 403
        got = _call(api, tokens, caller, "PATCH", "/orgs/corp",
                    json={"description": f"by {caller}"})
        if got != want:
            wrong.append(f"{caller}: expected {want}, got {got}")
    assert not wrong, "\n".join(wrong)
