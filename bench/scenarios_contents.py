"""Contents API scenarios for bench/aws_calls.py (imported there): reads of alice/demo's
README and root, and writes of files of their own (set-up: not counted)."""
from __future__ import annotations

import base64

from scene import Req

DEMO = "/repos/alice/demo"


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def new_file(s) -> tuple[str, str]:
    """A file of its own on main, made through the API; returns (path, blob sha)."""
    path = s.unique("bench-file-") + ".txt"
    made = s.must("POST", f"{DEMO}/contents/{path}", "token", {"content": _b64(path)},
                  expect=201)
    return path, made["content"]["sha"]


def scenarios() -> dict:
    """operationId -> scenario, as in aws_calls.SCENARIOS."""
    def update(s):
        path, sha = new_file(s)
        return [Req("PUT", f"{DEMO}/contents/{path}", "token",
                    {"content": _b64("changed"), "sha": sha}, 200)]

    def delete(s):
        path, sha = new_file(s)
        return [Req("DELETE", f"{DEMO}/contents/{path}", "token", {"sha": sha}, 200)]

    return {
        "repoGetContents": lambda s: [Req("GET", f"{DEMO}/contents/README.md")],
        "repoGetContentsList": lambda s: [Req("GET", f"{DEMO}/contents")],
        "repoCreateFile": lambda s: [Req("POST", f"{DEMO}/contents/{s.unique('new-')}.txt",
                                         "token", {"content": _b64("new")}, 201)],
        "repoUpdateFile": update,
        "repoDeleteFile": delete,
        "repoChangeFiles": lambda s: [Req("POST", f"{DEMO}/contents", "token", {"files": [
            {"operation": "create", "path": f"{s.unique('multi-')}.txt",
             "content": _b64("m")}]}, 201)],
    }
