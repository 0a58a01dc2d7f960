"""A project on a running Nimbus instance, made through its API and ``git`` only (as a
team would have made it): the source of the migrations between two real instances
(``test_migration_instances.py``, ``bench/migration_cost.py``).

Users: ``alice`` and ``bob`` (``<name>@example.com``) beside the site admin ``root``.
The repository ``alice/proj`` holds labels, milestones (one closed), issues with
comments and reactions (some closed, labelled, with a milestone), pull requests open,
merged and closed (with a review each), releases with attachments (one a prerelease),
a wiki page and, when asked, a Git LFS file.  The sizes come from ``Size``;
``NIMBUS_MIGRATION_SIZE`` names one: ``small`` (the default, for CI), ``full`` (the
issue's acceptance: 200 issues, 50 pull requests, 10 releases) or
``<issues>,<pulls>,<releases>``.
"""
from __future__ import annotations

import base64
import json
import os
import subprocess
import urllib.error
import urllib.request
import uuid
from dataclasses import dataclass
from pathlib import Path

from tests.local_server import ADMIN_PASSWORD, call

OWNER, REPO = "alice", "proj"
PEOPLE = {"alice": "alice-password-1", "bob": "bob-password-1"}
ROOT = ("root", ADMIN_PASSWORD)
LABELS = (("bug", "ee0701", "Something is wrong"), ("feature", "84b6eb", ""),
          ("docs", "00aabb", "Words"))
MILESTONES = (("v1", "open"), ("v0", "closed"))


@dataclass(frozen=True)
class Size:
    issues: int = 20
    pulls: int = 6
    releases: int = 2
    comments: int = 2            # per issue
    lfs: bool = True

    @classmethod
    def from_env(cls, default: str = "small") -> Size:
        wanted = os.environ.get("NIMBUS_MIGRATION_SIZE", default).strip().lower()
        if wanted == "full":
            return cls(issues=200, pulls=50, releases=10)
        if wanted in ("", "small"):
            return cls()
        issues, pulls, releases = (int(n) for n in wanted.split(","))
        return cls(issues=issues, pulls=pulls, releases=releases)


def as_user(login: str) -> tuple[str, str]:
    return (login, PEOPLE[login]) if login in PEOPLE else ROOT


# Tokens by (instance, login): a password costs a scrypt hash on every request.
_tokens: dict[tuple[str, str], str] = {}


def token_of(base: str, login: str) -> str:
    if (base, login) not in _tokens:
        status, made = call(base, "POST", f"/api/v1/users/{login}/tokens",
                            {"name": f"t-{uuid.uuid4().hex[:8]}", "scopes": ["all"]},
                            auth=as_user(login))
        assert status == 201, (status, made)
        _tokens[base, login] = made["sha1"]
    return _tokens[base, login]


def request(base: str, method: str, path: str, body: dict | None = None, *,
            who: str = "root") -> tuple[int, object]:
    """An API request as ``who`` (by token); (status, decoded JSON or None)."""
    made = urllib.request.Request(base + "/api/v1" + path, method=method,
                                  data=json.dumps(body).encode() if body is not None
                                  else None)
    made.add_header("Content-Type", "application/json")
    made.add_header("Authorization", "token " + token_of(base, who))
    try:
        with urllib.request.urlopen(made, timeout=60) as response:
            data = response.read()
            return response.status, json.loads(data) if data else None
    except urllib.error.HTTPError as err:
        data = err.read()
        return err.code, json.loads(data) if data else None


def ok(base: str, method: str, path: str, body: dict | None = None, *, who: str = "root",
       expect: tuple[int, ...] = (200, 201, 204)):
    status, data = request(base, method, path, body, who=who)
    assert status in expect, (method, path, status, data)
    return data


def git(*args: str, cwd: Path | None = None, env: dict | None = None) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=False,
                          env={
        **os.environ, "GIT_TERMINAL_PROMPT": "0", "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": "Alice", "GIT_AUTHOR_EMAIL": "alice@example.com",
        "GIT_COMMITTER_NAME": "Alice", "GIT_COMMITTER_EMAIL": "alice@example.com",
        **(env or {})})
    assert done.returncode == 0, f"git {' '.join(args)}: {done.stderr}"
    return done.stdout.strip()


def authed(base: str, login: str = "alice") -> str:
    return base.replace("http://", f"http://{login}:{token_of(base, login)}@")


def upload(base: str, path: str, name: str, data: bytes, who: str = "alice") -> dict:
    """A multipart upload of ``data`` as the form field ``attachment``."""
    boundary = uuid.uuid4().hex
    body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"attachment\"; "
            f"filename=\"{name}\"\r\nContent-Type: application/octet-stream\r\n\r\n"
            ).encode() + data + f"\r\n--{boundary}--\r\n".encode()
    made = urllib.request.Request(f"{base}/api/v1{path}?name={name}", data=body,
                                  method="POST")
    made.add_header("Content-Type", f"multipart/form-data; boundary={boundary}")
    made.add_header("Authorization", "token " + token_of(base, who))
    try:
        with urllib.request.urlopen(made, timeout=30) as response:
            return json.loads(response.read())
    except urllib.error.HTTPError as err:
        raise AssertionError(f"upload {path}: {err.code} {err.read()!r}") from None


def make_people(base: str, names=("alice", "bob")) -> None:
    for name in names:
        ok(base, "POST", "/admin/users", {"username": name, "password": PEOPLE[name],
                                           "email": f"{name}@example.com",
                                           "must_change_password": False})


def populate(base: str, work: Path, size: Size) -> dict:
    """The project on the instance at ``base``; what was made (numbers by kind)."""
    make_people(base)
    ok(base, "POST", "/user/repos", {"name": REPO, "description": "a migrated project"},
       who="alice")
    repo = f"/repos/{OWNER}/{REPO}"
    tree = work / "tree"
    git("init", "-q", "-b", "main", str(tree))
    (tree / "README.md").write_text("# proj\n")
    git("add", ".", cwd=tree)
    git("commit", "-q", "-m", "first", cwd=tree)
    if size.lfs:
        _lfs_file(tree)
    git("push", "-q", authed(base) + f"/{OWNER}/{REPO}.git", "main", cwd=tree)

    for name, color, description in LABELS:
        ok(base, "POST", f"{repo}/labels", {"name": name, "color": "#" + color,
                                            "description": description}, who="alice")
    milestone_ids = {}
    for title, state in MILESTONES:
        made = ok(base, "POST", f"{repo}/milestones", {"title": title,
                                                       "description": f"about {title}"},
                  who="alice")
        milestone_ids[title] = made["id"]
        if state == "closed":
            ok(base, "PATCH", f"{repo}/milestones/{made['id']}", {"state": "closed"},
               who="alice")
    label_ids = {label["name"]: label["id"] for label in ok(base, "GET", f"{repo}/labels")}

    made = {"issues": [], "pulls": []}
    half = size.issues // 2
    for i in range(size.issues):
        made["issues"].append(_issue(base, repo, i, label_ids, milestone_ids, size))
        if i + 1 == half:
            made["pulls"] = _pulls(base, repo, tree, size)
    if not size.issues:
        made["pulls"] = _pulls(base, repo, tree, size)
    made["releases"] = _releases(base, repo, tree, size)
    made["wiki"] = ok(base, "POST", f"{repo}/wiki/new", {
        "title": "Home", "message": "first page",
        "content_base64": base64.b64encode(b"# Welcome\n\nThe wiki.\n").decode()},
        who="alice")["title"]
    return made


def _lfs_file(tree: Path) -> None:
    git("lfs", "install", "--local", cwd=tree)
    git("lfs", "track", "*.bin", cwd=tree)
    (tree / "blob.bin").write_bytes(os.urandom(4096))
    git("add", ".gitattributes", "blob.bin", cwd=tree)
    git("commit", "-q", "-m", "an LFS file", cwd=tree)


def _issue(base: str, repo: str, i: int, label_ids: dict, milestone_ids: dict,
           size: Size) -> int:
    author = ("alice", "bob", "root")[i % 3]
    body = {"title": f"Issue {i}: something", "body": f"Body of issue {i}\n\n*kept verbatim*",
            "labels": [label_ids[LABELS[i % len(LABELS)][0]]]}
    if i % 2:
        body["milestone"] = milestone_ids["v1"]
    number = ok(base, "POST", f"{repo}/issues", body, who=author)["number"]
    for k in range(size.comments):
        commenter = ("bob", "alice")[k % 2]
        comment = ok(base, "POST", f"{repo}/issues/{number}/comments",
                     {"body": f"comment {k} on {number}"}, who=commenter)
        if k == 0:
            ok(base, "POST", f"{repo}/issues/comments/{comment['id']}/reactions",
               {"content": "laugh"}, who="root")
    ok(base, "POST", f"{repo}/issues/{number}/reactions", {"content": "+1"}, who="bob")
    if i % 5 == 0:
        ok(base, "POST", f"{repo}/issues/{number}/reactions", {"content": "heart"},
           who="alice")
    if i % 4 == 3:
        ok(base, "PATCH", f"{repo}/issues/{number}", {"state": "closed"}, who="alice")
    return number


def _pulls(base: str, repo: str, tree: Path, size: Size) -> list[int]:
    numbers = []
    url = authed(base) + f"/{OWNER}/{REPO}.git"
    for k in range(size.pulls):
        branch = f"feature-{k}"
        git("checkout", "-q", "-b", branch, "main", cwd=tree)
        (tree / f"f{k}.txt").write_text(f"feature {k}\n")
        git("add", ".", cwd=tree)
        git("commit", "-q", "-m", f"feature {k}", cwd=tree)
        git("push", "-q", url, branch, cwd=tree)
        git("checkout", "-q", "main", cwd=tree)
        author = ("bob", "alice")[k % 2]
        pull = ok(base, "POST", f"{repo}/pulls", {
            "title": f"Pull {k}", "body": f"Adds feature {k}", "head": branch, "base": "main"},
            who=author)
        number = pull["number"]
        numbers.append(number)
        ok(base, "POST", f"{repo}/issues/{number}/comments", {"body": f"looks fine {k}"},
           who="alice")
        reviewer = "alice" if author == "bob" else "bob"
        ok(base, "POST", f"{repo}/pulls/{number}/reviews",
           {"event": "APPROVED", "body": f"approved {k}"}, who=reviewer)
        kind = k % 3            # 0 open, 1 merged, 2 closed
        if kind == 1:
            ok(base, "POST", f"{repo}/pulls/{number}/merge", {"Do": "merge"}, who="alice")
        elif kind == 2:
            ok(base, "PATCH", f"{repo}/pulls/{number}", {"state": "closed"}, who="alice")
    return numbers


def _releases(base: str, repo: str, tree: Path, size: Size) -> list[str]:
    tags = []
    for k in range(size.releases):
        tag = f"v{k + 1}.0"
        tags.append(tag)
        release = ok(base, "POST", f"{repo}/releases", {
            "tag_name": tag, "target_commitish": "main", "name": f"Release {k + 1}",
            "body": f"Notes of {tag}", "prerelease": k % 2 == 1}, who="alice")
        for n in range(2 if k == 0 else 1):
            upload(base, f"{repo}/releases/{release['id']}/assets", f"asset-{k}-{n}.bin",
                   os.urandom(1000 + 97 * k + n))
    return tags
