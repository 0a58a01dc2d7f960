"""What Git LFS pointers add to a push, in AWS calls (issue 28).

The same fast-forward push of one commit is measured under moto with no pointer, and
with 5 and 60 pointers to objects the pool holds (uploaded and verified before): the
gate reads the objects and what the repository and its owner already need (one
BatchGetItem per 25 objects) and records the new needs (one transaction per 25).  So a
push costs at most ``2 * ceil(n / 25)`` calls more than the same push without LFS,
whatever the size of the objects; a push without pointers costs nothing more.  The
gate makes no Query, and the pack store may list its packs once more in a push that
runs longer than its rescan interval (gitstore/objects.py): Queries are shown, not
compared.

    .venv/bin/python bench/lfs_push_calls.py [--json]

Exit status 1 when a difference is over that (or a request did not succeed).
"""
from __future__ import annotations

import base64
import hashlib
import json
import math
import os
import sys

import _harness

_harness.use_repo({"NIMBUS__SERVER__ROOT_URL": "http://nimbus.test/",
                   "NIMBUS__SECURITY__PASSWORD_HASH_COST": "1024"})

from scenarios_git import MAIN, head_of, receive_pack_body  # noqa: E402
from scene import moto_scene  # noqa: E402

COUNTS = (0, 5, 60)
PER_CHUNK = 25      # chalicelib/lfs/needs.py CHUNK
MEDIA = "application/vnd.git-lfs+json"


def most_added(pointers: int) -> int:
    return 2 * math.ceil(pointers / PER_CHUNK)


def _stored_pointer_files(s, repo: str, count: int) -> dict[str, bytes]:
    """``count`` objects uploaded and verified in the repository: its pointer files."""
    from chalicelib import aws
    from chalicelib.lfs import s3_objects
    from chalicelib.repos import store
    from chalicelib.settings import get_settings

    pool = int(store.get("alice", repo).pool_id)
    files = {}
    for n in range(count):
        data = os.urandom(64)
        oid = hashlib.sha256(data).hexdigest()
        aws.client("s3").put_object(
            Bucket=get_settings().aws.BUCKET, Key=s3_objects.incoming_key(pool, oid), Body=data,
            ChecksumAlgorithm="SHA256",
            ChecksumSHA256=base64.b64encode(hashlib.sha256(data).digest()).decode())
        status, out = s.call("POST", f"/alice/{repo}.git/info/lfs/verify", "token",
                             data=json.dumps({"oid": oid, "size": 64}).encode(),
                             content_type=MEDIA)
        assert status == 200, (status, out[:200])
        files[f"f{n}.bin"] = (f"version https://git-lfs.github.com/spec/v1\noid sha256:{oid}\n"
                              "size 64\n").encode()
    return files


def run() -> dict:
    counter = _harness.CallCounter()
    rows = []
    with moto_scene("nimbus-lfs-push-bench-", counter.hook) as s:
        s.build()
        s.call("GET", "/api/v1/users/root", "token")        # per-process costs, not counted
        for count in COUNTS:
            repo = s.new_repo(auto_init=True)
            files = {"bench.txt": s.unique("pushed ").encode(),
                     **_stored_pointer_files(s, repo, count)}
            body = receive_pack_body(files, head_of(s, f"/repos/alice/{repo}"))
            with counter.counting() as calls:
                status, out = s.call("POST", f"/alice/{repo}.git/git-receive-pack", "token",
                                     data=body, content_type="application/x-git-receive-pack-request")
            ok = status == 200 and f"ok {MAIN}".encode() in out
            rows.append({"pointers": count, "calls": sum(calls.values()),
                         "compared": sum(n for call, n in calls.items()
                                         if call != "dynamodb:Query"),
                         "breakdown": dict(sorted(calls.items())), "ok": ok,
                         "answer": "" if ok else out[:300].decode("utf-8", "replace")})
    plain = rows[0]["compared"]
    added = {row["pointers"]: row["compared"] - plain for row in rows[1:]}
    failed = any(n > most_added(count) for count, n in added.items()) \
        or not all(r["ok"] for r in rows)
    return {"rows": rows, "added": added,
            "most_added": {count: most_added(count) for count in added},
            "exit_status": 1 if failed else 0}


def show(result: dict) -> None:
    for row in result["rows"]:
        print(f"push with {row['pointers']:3} pointers: {row['calls']:3} calls  {row['breakdown']}"
              + ("" if row["ok"] else f"  FAILED: {row['answer']}"))
    for count, n in result["added"].items():
        print(f"{count} pointers add {n} call(s) (at most {result['most_added'][count]})")


def main() -> int:
    return _harness.report(__doc__, run, show)


if __name__ == "__main__":
    sys.exit(main())
