"""The client side of a large push (``python -m chalicelib.cli push-bundle``): what
``git push`` does, through S3 instead of one request body.

1. read the remote's refs (``git ls-remote``): the old values the push is based on;
2. ``git bundle create`` of the refs to push, excluding everything the remote has
   (its refs that exist here), so the bundle carries only what is new;
3. ask the API for a presigned upload URL (write access and quota are checked then);
4. PUT the bundle to S3, streamed from disk;
5. ask the API to apply it: every ref moves only if it still holds the old value read
   in step 1, and the report says per ref what happened, as ``git push`` does.

Only the git CLI and the standard library are used, so any checkout can run it.
"""
from __future__ import annotations

import base64
import json
import os
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote, urlsplit, urlunsplit

ZERO = "0" * 40
TIMEOUT = 900  # applying a large bundle may take minutes (the streamed route allows 15)


class PushError(Exception):
    """A failure to report on one line."""


@dataclass
class Remote:
    base: str            # scheme://host[:port][/prefix], no credentials
    owner: str
    repo: str
    git_url: str         # what git is given (credentials included)
    authorization: str | None


def _git(repo_dir: Path, *args: str, input: bytes | None = None) -> str:
    done = subprocess.run(["git", *args], cwd=repo_dir, capture_output=True, input=input)
    if done.returncode != 0:
        raise PushError(f"git {args[0]} failed: {done.stderr.decode(errors='replace').strip()}")
    return done.stdout.decode()


def parse_remote(repo_dir: Path, remote: str, token: str | None) -> Remote:
    """``remote``: a URL ``http(s)://[user:token@]host/owner/repo[.git]`` or a remote's
    name.  Credentials: ``token`` (or NIMBUS_TOKEN), else those in the URL."""
    url = remote if "://" in remote else _git(repo_dir, "remote", "get-url", remote).strip()
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https"):
        raise PushError(f"{url}: only http(s) remotes can take a large push")
    path = parts.path.rstrip("/")
    segments = path.split("/")
    if len(segments) < 3 or not segments[-1] or not segments[-2]:
        raise PushError(f"{url}: expected .../<owner>/<repo>.git")
    owner, repo = segments[-2], segments[-1].removesuffix(".git")
    prefix = "/".join(segments[:-2])
    host = parts.hostname + (f":{parts.port}" if parts.port else "")
    token = token or os.environ.get("NIMBUS_TOKEN")
    if token:
        authorization = f"token {token}"
    elif parts.username:
        pair = f"{parts.username}:{parts.password or ''}".encode()
        authorization = "Basic " + base64.b64encode(pair).decode()
    else:
        authorization = None
    git_url = url
    if token and not parts.username:
        git_url = urlunsplit((parts.scheme, f"nimbus:{quote(token, safe='')}@{host}",
                              parts.path, "", ""))
    return Remote(f"{parts.scheme}://{host}{prefix}", owner, repo, git_url, authorization)


def remote_refs(repo_dir: Path, remote: Remote) -> dict[str, str]:
    refs = {}
    for line in _git(repo_dir, "ls-remote", remote.git_url).splitlines():
        oid, _, name = line.partition("\t")
        if name and not name.endswith("^{}"):
            refs[name] = oid
    return refs


def _has_object(repo_dir: Path, oid: str) -> bool:
    return subprocess.run(["git", "cat-file", "-e", oid], cwd=repo_dir,
                          capture_output=True).returncode == 0


def _is_ancestor(repo_dir: Path, old: str, new: str) -> bool:
    return subprocess.run(["git", "merge-base", "--is-ancestor", old, new], cwd=repo_dir,
                          capture_output=True).returncode == 0


def plan(repo_dir: Path, refspecs: list[str], remote_values: dict[str, str],
         force: bool) -> list[dict]:
    """The updates to send: ``{"ref", "old", "new", "src"}`` per refspec that changes
    something; a non-fast-forward is refused unless ``force``, as git push does."""
    updates = []
    for spec in refspecs:
        forced = force or spec.startswith("+")
        src, _, dst = spec.lstrip("+").partition(":")
        full = _git(repo_dir, "rev-parse", "--symbolic-full-name", src).strip() or src
        dst = dst or full
        if not dst.startswith("refs/"):
            dst = "refs/heads/" + dst
        new = _git(repo_dir, "rev-parse", src).strip()
        old = remote_values.get(dst, ZERO)
        if old == new:
            continue
        if old != ZERO and not forced and not (
                _has_object(repo_dir, old) and _is_ancestor(repo_dir, old, new)):
            raise PushError(f"{dst}: not a fast-forward of the remote's {old[:12]} "
                            "(fetch first, or --force)")
        updates.append({"ref": dst, "old": old, "new": new, "src": full})
    return updates


def make_bundle(repo_dir: Path, updates: list[dict], remote_values: dict[str, str],
                path: Path) -> None:
    # The bundle's refs are named after the sources; apply maps them by object id.
    sources = sorted({u["src"] for u in updates})
    have = sorted({oid for oid in remote_values.values() if _has_object(repo_dir, oid)})
    revs = "\n".join(sources + [f"^{oid}" for oid in have]) + "\n"
    _git(repo_dir, "bundle", "create", str(path), "--stdin", input=revs.encode())


def _api(remote: Remote, method: str, path: str, doc: dict) -> tuple[int, dict]:
    url = f"{remote.base}/api/v1/repos/{quote(remote.owner)}/{quote(remote.repo)}{path}"
    request = urllib.request.Request(url, method=method, data=json.dumps(doc).encode(),
                                     headers={"Content-Type": "application/json"})
    if remote.authorization:
        request.add_header("Authorization", remote.authorization)
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
            return response.status, json.loads(response.read() or b"{}")
    except urllib.error.HTTPError as exc:
        body = exc.read()
        try:
            message = json.loads(body).get("message") or body.decode(errors="replace")
        except (ValueError, AttributeError):
            message = body.decode(errors="replace")
        raise PushError(f"{method} {path}: HTTP {exc.code}: {message}") from None


def upload(url: str, path: Path) -> None:
    size = path.stat().st_size
    with open(path, "rb") as body:
        request = urllib.request.Request(url, method="PUT", data=body,
                                         headers={"Content-Length": str(size),
                                                  "Content-Type": "application/octet-stream"})
        try:
            with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
                response.read()
        except urllib.error.HTTPError as exc:
            raise PushError(f"upload failed: HTTP {exc.code}: {exc.read()[:200]!r}") from None


def push(repo_dir: str | Path, remote: str, refspecs: list[str], *, token: str | None = None,
         force: bool = False, say=print) -> bool:
    """Push ``refspecs`` (default: the current branch) through a bundle; True when every
    ref was accepted."""
    repo_dir = Path(repo_dir)
    target = parse_remote(repo_dir, remote, token)
    values = remote_refs(repo_dir, target)
    if not refspecs:
        refspecs = [_git(repo_dir, "symbolic-ref", "HEAD").strip()]
    updates = plan(repo_dir, refspecs, values, force)
    if not updates:
        say("Everything up-to-date")
        return True
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="nimbus-push-") as work:
        path = Path(work) / "push.bundle"
        make_bundle(repo_dir, updates, values, path)
        size = path.stat().st_size
        say(f"bundle: {size / 1e6:.1f} MB for {len(updates)} ref(s) "
            f"({time.monotonic() - started:.1f} s)")
        _, ticket = _api(target, "POST", "/large-pushes", {"size": size})
        started = time.monotonic()
        upload(ticket["upload_url"], path)
        say(f"uploaded ({time.monotonic() - started:.1f} s)")
    started = time.monotonic()
    _, result = _api(target, "POST", f"/large-pushes/{ticket['id']}/apply",
                     {"updates": [{k: u[k] for k in ("ref", "old", "new")} for u in updates]})
    say(f"applied ({time.monotonic() - started:.1f} s)")
    if result.get("unpack") != "ok":
        say(f"error: unpack failed: {result.get('unpack')}")
    for ref in result.get("refs", []):
        mark = "ok" if ref["ok"] else f"rejected ({ref['status']})"
        say(f" {ref['old'][:9]}..{ref['new'][:9]}  {ref['ref']}  {mark}")
    return bool(result.get("ok"))
